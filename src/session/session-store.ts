/**
 * The store port (SPEC S2, S3): what an `Agent` needs of a place that keeps session journals.
 * Every method may answer with a plain value, a promise or an Observable; a store that answers
 * with plain values (the in-memory one) keeps a whole run synchronous, so it runs in virtual
 * time (SPEC L12).
 *
 * @module
 */
import type { MaybeAsync } from "../rx/maybe-async.js";
import type { JournalEntry } from "./journal-entry.js";

/** A writer's hold on a session. Appends carry `token`; a newer lease's token fences older ones out. */
export interface SessionLease {
  readonly sessionId: string;
  /** Who holds it: a process, worker or tab name. */
  readonly owner: string;
  /** The fencing token: grows by one with every lease granted on the session. */
  readonly token: number;
  /** Epoch milliseconds after which another owner may take the session. */
  readonly expiresAt: number;
}

/** How to ask for a lease. */
export interface AcquireLease {
  owner: string;
  /** How long the lease lasts without an append; every append renews it. */
  ttlMs: number;
  /** Take the session even when another owner's lease has not expired (an operator's decision). */
  takeover?: boolean;
}

/** The conditions of an append (SPEC S2). */
export interface AppendCondition {
  /** The seq of the journal's last entry as the writer knows it (0 for an empty journal). */
  expectedSeq: number;
  /** The writer's fencing token, from {@link SessionStore.acquire}. */
  token: number;
  /** How long the renewed lease lasts from now. */
  ttlMs: number;
}

/** A session as `list()` reports it. */
export interface SessionSummary {
  readonly id: string;
  /** Seq of the last entry. */
  readonly seq: number;
  /** Epoch milliseconds of the last append. */
  readonly updatedAt: number;
}

/** What `load()` reads: every entry in order, seq 1 to n. */
export interface LoadedJournal {
  readonly entries: readonly JournalEntry[];
  /**
   * Set when the store dropped a torn last record (a line cut short by a crash): never merged,
   * never silently (SPEC S4). The file store moves the bytes into a `.torn-*` file before its
   * next append; nothing is deleted.
   */
  readonly droppedTail?: { readonly bytes: number } | undefined;
}

/**
 * Keeps session journals. Implementations: `InMemorySessionStore` (`rxagent/session`),
 * `FileSessionStore` (`rxagent/session/file`), `IndexedDbSessionStore`
 * (`rxagent/session/indexeddb`), `PostgresSessionStore` (`rxagent/session/postgres`). Each
 * passes the same contract suite (`test/session/store-contract.ts`).
 *
 * @example
 * ```ts
 * const lease = await store.acquire("s1", { owner: "worker-1", ttlMs: 30_000 });
 * await store.append("s1", [entry], { expectedSeq: 0, token: lease.token, ttlMs: 30_000 });
 * ```
 */
export interface SessionStore {
  /** The journal of `id`, or `undefined` when there is none. Errors with `SessionCorruptError` on bad data. */
  load(id: string): MaybeAsync<LoadedJournal | undefined>;
  /**
   * Appends `entries` (their `seq` run on from `expectedSeq + 1`) atomically: all or none.
   * Errors with `SessionConflictError` when the journal does not end at `expectedSeq`, with
   * `SessionFencedError` when `token` is not the session's newest. Renews the lease.
   * @return The seq of the last entry written.
   */
  append(id: string, entries: readonly JournalEntry[], condition: AppendCondition): MaybeAsync<number>;
  /** Grants a lease with the next fencing token, or errors with `SessionLeaseHeldError`. */
  acquire(id: string, request: AcquireLease): MaybeAsync<SessionLease>;
  /** Gives the lease up early, if `token` is still the newest (else does nothing). */
  release(id: string, token: number): MaybeAsync<void>;
  /** Every session, by id. */
  list(): MaybeAsync<SessionSummary[]>;
  /** Removes a session's journal. Its lease's last token stays, so a writer from before is still fenced out (SPEC S3). */
  delete(id: string): MaybeAsync<void>;
}
