/**
 * Opening a session for writing (SPEC S3, S4): take the lease, load the journal, check it, and
 * hand back a writer that holds the lease's token.
 *
 * @module
 */
import type { Observable } from "rxjs";
import { andThenValue, maybeAsync } from "../rx/maybe-async.js";
import { checkJournal } from "./journal-entry.js";
import { JournalWriter } from "./journal-writer.js";
import { replayJournal, type SessionImage } from "./session-image.js";
import type { LoadedJournal, SessionLease, SessionStore } from "./session-store.js";

/** Where an Agent keeps its session, and how it holds it. */
export interface SessionOptions {
  store: SessionStore;
  /** The session's id: any non-empty string the store can keep. */
  id: string;
  /**
   * Who holds the lease: a worker, process or tab name. Writers with the same owner take the
   * session from each other (the newest fences the older out: a restarted process need not
   * wait for its old lease); writers with different owners wait for the lease or ask for a
   * takeover. Default `"rxagent"`: give each worker or tab its own name to keep them apart.
   */
  owner?: string | undefined;
  /** How long the lease lasts after the last write; 30 s by default. */
  leaseTtlMs?: number | undefined;
  /** Take the session even while another owner's lease has not expired. */
  takeover?: boolean | undefined;
}

/** A session opened for writing. */
export interface OpenedSession {
  readonly lease: SessionLease;
  readonly writer: JournalWriter;
  /** The state the journal describes; `undefined` for a new session. */
  readonly image: SessionImage | undefined;
  /** What the store dropped of a torn last record, if anything. */
  readonly droppedTail: LoadedJournal["droppedTail"];
}

const DEFAULT_TTL_MS = 30_000;

/** The owner when none is named: one process's restart takes its session back at once. */
const DEFAULT_OWNER = "rxagent";

/** Throws a `TypeError` naming what is wrong with `options` (the Agent checks them when it is made). @internal */
export function checkSessionOptions(options: SessionOptions): void {
  const store = options?.store as Partial<SessionStore> | undefined;
  const methods = ["load", "append", "acquire", "release", "list", "delete"] as const;
  if (!store || methods.some((method) => typeof store[method] !== "function")) throw new TypeError("session.store must be a SessionStore (load, append, acquire, release, list, delete).");
  if (typeof options.id !== "string" || options.id === "") throw new TypeError("session.id must be a non-empty string.");
  if (options.leaseTtlMs !== undefined && !(options.leaseTtlMs > 0)) throw new TypeError("session.leaseTtlMs must be a positive number of milliseconds.");
}

/**
 * Acquires the lease, then loads and checks the journal. Synchronous with a synchronous store.
 *
 * @example
 * ```ts
 * const opened = await lastValueFrom(from([openSession({ store, id: "s1" })]).pipe(mergeAll()));
 * ```
 * @internal
 */
export function openSession(options: SessionOptions): OpenedSession | Observable<OpenedSession> {
  checkSessionOptions(options);
  const { store, id } = options;
  const ttlMs = options.leaseTtlMs ?? DEFAULT_TTL_MS;
  const request = { owner: options.owner ?? DEFAULT_OWNER, ttlMs, ...(options.takeover ? { takeover: true } : {}) };
  return andThenValue(maybeAsync(() => store.acquire(id, request), "error"), (lease) =>
    andThenValue(maybeAsync(() => store.load(id), "error"), (loaded) => {
      const entries = loaded ? checkJournal(loaded.entries, id) : [];
      const image = entries.length > 0 ? replayJournal(entries) : undefined;
      return { lease, writer: new JournalWriter(store, id, lease.token, ttlMs, entries.length), image, droppedTail: loaded?.droppedTail };
    }),
  );
}
