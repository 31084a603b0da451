/**
 * The lease and append rules every store applies the same way (SPEC S2, S3), as pure functions
 * over what the store holds: stores differ in where they keep a lease, not in what it means.
 *
 * @module
 */
import type { JournalEntry } from "./journal-entry.js";
import { SessionConflictError, SessionCorruptError, SessionFencedError, SessionLeaseHeldError } from "./session-errors.js";
import type { AcquireLease, AppendCondition, SessionLease } from "./session-store.js";

/** A session's newest lease as a store keeps it (`token` 0: never leased). */
export interface LeaseRecord {
  owner: string;
  token: number;
  expiresAt: number;
}

/**
 * The lease `request` gets, given the session's newest one: the next token, unless another
 * owner's lease has not expired and no takeover was asked for. The same owner asking again gets
 * a new token too: a restarted process must fence out its own older incarnation.
 */
export function grantLease(sessionId: string, current: LeaseRecord | undefined, request: AcquireLease, now: number): SessionLease {
  if (typeof request.owner !== "string" || request.owner === "") throw new TypeError("acquire() needs an owner name.");
  if (!(request.ttlMs > 0)) throw new TypeError("acquire() needs a positive ttlMs.");
  if (current && current.owner !== request.owner && current.expiresAt > now && !request.takeover) {
    throw new SessionLeaseHeldError(sessionId, current.owner, current.expiresAt);
  }
  return { sessionId, owner: request.owner, token: (current?.token ?? 0) + 1, expiresAt: now + request.ttlMs };
}

/**
 * Throws unless `entries` may be appended: the token is the newest (else fenced), the journal ends
 * at `expectedSeq` (else a conflict), and the entries are numbered on from it.
 */
export function checkAppend(sessionId: string, lease: LeaseRecord | undefined, lastSeq: number, entries: readonly JournalEntry[], condition: AppendCondition): void {
  const current = lease?.token ?? 0;
  if (condition.token !== current) throw new SessionFencedError(sessionId, condition.token, current);
  if (condition.expectedSeq !== lastSeq) throw new SessionConflictError(sessionId, condition.expectedSeq, lastSeq);
  entries.forEach((entry, index) => {
    if (entry.seq !== lastSeq + 1 + index) throw new SessionCorruptError(sessionId, lastSeq + 1 + index, `append() was given an entry with seq ${entry.seq}`);
  });
}
