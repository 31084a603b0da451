/**
 * The IndexedDB session store: journals that survive a reload, a crash of the tab and a closed
 * browser, for an Agent that runs in the page. Several tabs of one origin share the database;
 * every append is one IndexedDB transaction that reads the session's record, checks the lease
 * and the seq (`checkAppend`) and writes the entries and the renewed lease, so a tab never acts
 * on what it read earlier and IndexedDB's ordering of transactions settles any race between tabs.
 *
 * No Node API and no dependency: it runs in any browser (and in Node with `fake-indexeddb`).
 *
 * @module
 */
import { checkJournal, type JournalEntry } from "../journal-entry.js";
import { checkAppend, grantLease } from "../lease-rules.js";
import { SessionCorruptError } from "../session-errors.js";
import type { AcquireLease, AppendCondition, LoadedJournal, SessionLease, SessionStore, SessionSummary } from "../session-store.js";
import { DatabaseConnection } from "./indexeddb/connection.js";
import { inTransaction, isDomError, requestResult } from "./indexeddb/requests.js";
import { ENTRIES, LEASES, readSessionRecord, type SessionRecord } from "./indexeddb/schema.js";

/**
 * Options of {@link IndexedDbSessionStore}.
 *
 * @example
 * ```ts
 * new IndexedDbSessionStore({ name: "my-app-sessions" });
 * ```
 */
export interface IndexedDbSessionStoreOptions {
  /** The database name (default `"rxagent-sessions"`): one database holds every session of the origin. */
  name?: string | undefined;
  /** The IndexedDB to use (default `globalThis.indexedDB`); in Node, fake-indexeddb's `new IDBFactory()`. */
  indexedDB?: IDBFactory | undefined;
  /**
   * The `IDBKeyRange` that goes with `indexedDB` (default `globalThis.IDBKeyRange`). Pass
   * fake-indexeddb's together with its factory: key ranges of one implementation are not
   * understood by another.
   */
  IDBKeyRange?: Pick<typeof IDBKeyRange, "bound"> | undefined;
  /** The clock of leases and `updatedAt` (default `Date.now`). */
  now?: (() => number) | undefined;
}

type Mode = "readonly" | "readwrite";

/**
 * Session journals in IndexedDB (SPEC S2, S3): one record per entry, keyed `[sessionId, seq]`,
 * and one lease record per session. Every method answers with a promise.
 *
 * Entries are stored as they are given, by structured clone: they must be plain data (an entry
 * holding a function is refused, and nothing of the append is written).
 *
 * @example
 * ```ts
 * const store = new IndexedDbSessionStore();
 * const agent = new Agent({ initialState: { model }, streamFn, session: agentSession({ store, id: "chat-1" }) });
 * await agent.resume(); // after a reload, the chat is back
 * ```
 *
 * @example In Node, with fake-indexeddb:
 * ```ts
 * import { IDBFactory, IDBKeyRange } from "fake-indexeddb";
 * const store = new IndexedDbSessionStore({ indexedDB: new IDBFactory(), IDBKeyRange });
 * ```
 */
export class IndexedDbSessionStore implements SessionStore {
  private readonly connection: DatabaseConnection;
  private readonly keyRange: Pick<typeof IDBKeyRange, "bound"> | undefined;
  private readonly now: () => number;

  constructor(options: IndexedDbSessionStoreOptions = {}) {
    // Resolved now, failing on first use: constructing a store where there is no IndexedDB (server-side rendering) is not an error.
    this.connection = new DatabaseConnection(options.indexedDB ?? (globalThis as { indexedDB?: IDBFactory }).indexedDB, options.name ?? "rxagent-sessions");
    this.keyRange = options.IDBKeyRange ?? (globalThis as { IDBKeyRange?: typeof IDBKeyRange }).IDBKeyRange;
    this.now = options.now ?? Date.now;
  }

  /** The journal of `id` in seq order, checked entry by entry; `undefined` when it has no entry. */
  async load(id: string): Promise<LoadedJournal | undefined> {
    const [values, value] = await this.transaction([ENTRIES, LEASES], "readonly", (tx) =>
      Promise.all([requestResult(tx.objectStore(ENTRIES).getAll(this.range([id, 1], [id, Infinity]))), requestResult(tx.objectStore(LEASES).get(id))]),
    );
    const record = readSessionRecord(value, id);
    const entries = checkJournal(values, id);
    const lastSeq = record?.lastSeq ?? 0;
    // Both were written in the same transactions, so they can only disagree if something else
    // removed or added records: a lost tail must not pass for a shorter journal.
    if (entries.length !== lastSeq) {
      throw new SessionCorruptError(id, Math.min(entries.length, lastSeq) + 1, `the session's record says the journal ends at entry ${lastSeq}, but ${entries.length} entries are stored`);
    }
    return entries.length > 0 ? { entries } : undefined;
  }

  /** Appends all of `entries` or none, in one transaction with the lease check; renews the lease. */
  append(id: string, entries: readonly JournalEntry[], condition: AppendCondition): Promise<number> {
    return this.transaction([ENTRIES, LEASES], "readwrite", async (tx) => {
      const leases = tx.objectStore(LEASES);
      const record = readSessionRecord(await requestResult(leases.get(id)), id);
      const lastSeq = record?.lastSeq ?? 0;
      checkAppend(id, record, lastSeq, entries, condition);
      if (entries.length === 0 && !record) return 0;
      const journal = tx.objectStore(ENTRIES);
      // `add`, not `put`: an entry already stored at a seq (the record and the entries
      // disagree) fails the request, which aborts the whole transaction. An entry that cannot
      // be cloned throws here, and the transaction is aborted the same way.
      const adds = entries.map((entry) => requestResult(journal.add(entry, [id, entry.seq])));
      const now = this.now();
      const next: SessionRecord = {
        owner: record?.owner ?? "",
        token: record?.token ?? 0,
        // Renewed only when there is a lease: a session written without one (token 0) has none to renew.
        expiresAt: record && record.token > 0 ? now + condition.ttlMs : (record?.expiresAt ?? 0),
        updatedAt: now,
        lastSeq: lastSeq + entries.length,
      };
      const outcomes = await Promise.allSettled([...adds, requestResult(leases.put(next, id))]);
      // When one request fails, the others fail with AbortError: report the one that failed first.
      const failed = outcomes.findIndex((o) => o.status === "rejected" && !isDomError(o.reason, "AbortError"));
      const cause = outcomes[failed] ?? outcomes.find((o) => o.status === "rejected");
      if (cause?.status === "rejected") {
        const seq = entries[failed]?.seq;
        if (seq !== undefined && isDomError(cause.reason, "ConstraintError")) {
          throw new SessionCorruptError(id, seq, `an entry is already stored at seq ${seq}, but the session's record says the journal ends at entry ${lastSeq}`);
        }
        throw cause.reason;
      }
      return next.lastSeq;
    });
  }

  /** Grants the next fencing token (see `grantLease`), or rejects with `SessionLeaseHeldError`. */
  acquire(id: string, request: AcquireLease): Promise<SessionLease> {
    return this.transaction([LEASES], "readwrite", async (tx) => {
      const leases = tx.objectStore(LEASES);
      const record = readSessionRecord(await requestResult(leases.get(id)), id);
      const lease = grantLease(id, record, request, this.now());
      const next: SessionRecord = { owner: lease.owner, token: lease.token, expiresAt: lease.expiresAt, updatedAt: record?.updatedAt ?? 0, lastSeq: record?.lastSeq ?? 0 };
      await requestResult(leases.put(next, id));
      return lease;
    });
  }

  /** Ends the lease now if `token` is still the newest; a stale token changes nothing. */
  release(id: string, token: number): Promise<void> {
    return this.transaction([LEASES], "readwrite", async (tx) => {
      const leases = tx.objectStore(LEASES);
      const record = readSessionRecord(await requestResult(leases.get(id)), id);
      // The token stays, so the next lease still fences this one out.
      if (record && record.token === token) await requestResult(leases.put({ ...record, expiresAt: 0 }, id));
    });
  }

  /** Every session with at least one entry, by id. */
  async list(): Promise<SessionSummary[]> {
    const [keys, values] = await this.transaction([LEASES], "readonly", (tx) => {
      const leases = tx.objectStore(LEASES);
      return Promise.all([requestResult(leases.getAllKeys()), requestResult(leases.getAll())]);
    });
    const summaries: SessionSummary[] = [];
    keys.forEach((key, index) => {
      if (typeof key !== "string") return;
      const record = readSessionRecord(values[index], key);
      if (record && record.lastSeq > 0) summaries.push({ id: key, seq: record.lastSeq, updatedAt: record.updatedAt });
    });
    // Already in key order, which for strings is code-unit order, the order `<` gives.
    return summaries;
  }

  /**
   * Removes the session's journal in one transaction. Its record stays with the lease expired and
   * its last token, so a writer from before the delete is still fenced out (SPEC S3).
   */
  delete(id: string): Promise<void> {
    return this.transaction([ENTRIES, LEASES], "readwrite", async (tx) => {
      // `[id]` sorts before every `[id, seq]` and `[id, []]` after them (arrays sort after
      // numbers): the range takes every entry key of the session, whatever its seq.
      const range = this.range([id], [id, []]);
      const leases = tx.objectStore(LEASES);
      const [record] = await Promise.all([requestResult(leases.get(id)), requestResult(tx.objectStore(ENTRIES).delete(range))]);
      const kept = readSessionRecord(record, id);
      if (kept) await requestResult(leases.put({ ...kept, expiresAt: 0, lastSeq: 0 }, id));
    });
  }

  /**
   * Closes the database connection (a later call opens it again). Call it before deleting the
   * database, or when the store is no longer used, so another tab's upgrade need not wait.
   *
   * @example
   * ```ts
   * store.close();
   * indexedDB.deleteDatabase("rxagent-sessions");
   * ```
   */
  close(): void {
    this.connection.close();
  }

  private range(lower: IDBValidKey, upper: IDBValidKey): IDBKeyRange {
    if (!this.keyRange) throw new Error("IndexedDbSessionStore: there is no IDBKeyRange here (globalThis.IDBKeyRange is undefined). Pass options.IDBKeyRange along with options.indexedDB.");
    return this.keyRange.bound(lower, upper);
  }

  private async transaction<T>(stores: string[], mode: Mode, body: (tx: IDBTransaction) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const db = await this.connection.get();
      let tx: IDBTransaction;
      try {
        // "strict": an append is reported done only once it is on disk, so a crash cannot take back what was acknowledged.
        tx = db.transaction(stores, mode, { durability: mode === "readwrite" ? "strict" : "default" });
      } catch (error) {
        // The connection was closed after it was handed out (another tab's upgrade, the browser):
        // nothing has happened yet, so open again, once.
        if (attempt === 1 && isDomError(error, "InvalidStateError")) {
          this.connection.close(db);
          continue;
        }
        throw error;
      }
      return inTransaction(tx, body);
    }
  }
}
