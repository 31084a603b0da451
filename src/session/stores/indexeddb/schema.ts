/**
 * What the session database holds: two object stores, and the shape of a session's record.
 *
 * - `entries`: one journal entry per record, out-of-line key `[sessionId, seq]`, so a seq is
 *   unique per session and a key range reads one session's journal in order.
 * - `leases`: one record per session, key `sessionId`: its newest lease and the seq of its last
 *   entry, which every append reads and writes in the same transaction as the entries.
 *
 * @module
 */
import type { LeaseRecord } from "../../lease-rules.js";
import { SessionCorruptError } from "../../session-errors.js";

/** The schema version this release creates and reads. */
export const SCHEMA_VERSION = 1;
/** The object store of journal entries. */
export const ENTRIES = "entries";
/** The object store of session records (lease and last seq). */
export const LEASES = "leases";

/**
 * A session's record in `leases`. `token` 0 and `owner` "" when the session was written without
 * ever being leased.
 *
 * @example
 * ```ts
 * const record: SessionRecord = { owner: "tab-1", token: 3, expiresAt: Date.now() + 30_000, updatedAt: Date.now(), lastSeq: 12 };
 * ```
 */
export interface SessionRecord extends LeaseRecord {
  /** Epoch milliseconds of the last append (0: never appended). */
  updatedAt: number;
  /** Seq of the journal's last entry (0: empty). */
  lastSeq: number;
}

/**
 * Creates the object stores on a first open (`upgradeneeded` from version 0). Later versions add
 * their steps here, keyed on `oldVersion`.
 *
 * @example
 * ```ts
 * request.onupgradeneeded = (event) => upgradeSchema(request.result, event.oldVersion);
 * ```
 */
export function upgradeSchema(db: IDBDatabase, oldVersion: number): void {
  if (oldVersion < 1) {
    db.createObjectStore(ENTRIES);
    db.createObjectStore(LEASES);
  }
}

/**
 * Whether an opened database has the object stores of this schema (not someone else's database
 * of the same name).
 *
 * @example
 * ```ts
 * if (!hasSchema(db)) db.close();
 * ```
 */
export function hasSchema(db: IDBDatabase): boolean {
  return db.objectStoreNames.contains(ENTRIES) && db.objectStoreNames.contains(LEASES);
}

const isCount = (value: unknown): value is number => typeof value === "number" && Number.isInteger(value) && value >= 0;

/**
 * Checks a value read from `leases`: `undefined` stays `undefined` (no record), anything that is
 * not a session record is a `SessionCorruptError`, since a wrong token or seq would break fencing.
 *
 * @example
 * ```ts
 * const record = readSessionRecord(await requestResult(leases.get(id)), id);
 * ```
 */
export function readSessionRecord(value: unknown, sessionId: string): SessionRecord | undefined {
  if (value === undefined) return undefined;
  const record = value as Partial<Record<keyof SessionRecord, unknown>> | null;
  if (
    typeof record !== "object" ||
    record === null ||
    typeof record.owner !== "string" ||
    !isCount(record.token) ||
    typeof record.expiresAt !== "number" ||
    typeof record.updatedAt !== "number" ||
    !isCount(record.lastSeq)
  ) {
    // Position 0: the record is about the journal as a whole, not one entry.
    throw new SessionCorruptError(sessionId, 0, `its record in the "${LEASES}" object store is not a session record (owner, token, expiresAt, updatedAt, lastSeq)`);
  }
  return { owner: record.owner, token: record.token, expiresAt: record.expiresAt, updatedAt: record.updatedAt, lastSeq: record.lastSeq };
}
