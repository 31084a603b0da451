/**
 * The in-memory session store: for tests, examples and a tab that only needs to survive
 * navigation inside the app. Synchronous (SPEC S2, L12): with it, a whole Agent run stays in
 * virtual time.
 *
 * @module
 */
import type { JournalEntry } from "../journal-entry.js";
import { checkAppend, grantLease, type LeaseRecord } from "../lease-rules.js";
import type { AcquireLease, AppendCondition, LoadedJournal, SessionLease, SessionStore, SessionSummary } from "../session-store.js";

interface Held {
  /** The entries as given: copying each on append would double the per-turn cost of a run. */
  entries: JournalEntry[];
  lease: LeaseRecord | undefined;
  updatedAt: number;
}

/** Options of {@link InMemorySessionStore}. */
export interface InMemorySessionStoreOptions {
  /** The clock of leases; pass `() => scheduler.now()` in marble tests. */
  now?: (() => number) | undefined;
}

/**
 * Journals in a `Map`. Every method answers synchronously. `append` keeps the entries it is
 * given, without a copy (the Agent never changes an entry or a committed message after writing
 * it; an app that changes a committed message in place changes it here too, as in the Agent's
 * own transcript); `load` gives back JSON copies, so what comes back shares nothing with the
 * store and is what a file or a database would give back.
 *
 * @example
 * ```ts
 * const store = new InMemorySessionStore();
 * const agent = new Agent({ initialState: { model }, streamFn, session: agentSession({ store, id: "chat-1" }) });
 * await agent.resume();
 * ```
 */
export class InMemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, Held>();
  private readonly now: () => number;

  constructor(options: InMemorySessionStoreOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  load(id: string): LoadedJournal | undefined {
    const held = this.sessions.get(id);
    return held && held.entries.length > 0 ? { entries: JSON.parse(JSON.stringify(held.entries)) as JournalEntry[] } : undefined;
  }

  append(id: string, entries: readonly JournalEntry[], condition: AppendCondition): number {
    const held = this.held(id);
    checkAppend(id, held.lease, held.entries.length, entries, condition);
    for (const entry of entries) held.entries.push(entry);
    const now = this.now();
    held.updatedAt = now;
    if (held.lease) held.lease.expiresAt = now + condition.ttlMs;
    return held.entries.length;
  }

  acquire(id: string, request: AcquireLease): SessionLease {
    const held = this.held(id);
    const lease = grantLease(id, held.lease, request, this.now());
    held.lease = { owner: lease.owner, token: lease.token, expiresAt: lease.expiresAt };
    return lease;
  }

  release(id: string, token: number): void {
    const lease = this.sessions.get(id)?.lease;
    if (lease && lease.token === token) lease.expiresAt = 0;
  }

  list(): SessionSummary[] {
    const summaries: SessionSummary[] = [];
    for (const [id, held] of this.sessions) if (held.entries.length > 0) summaries.push({ id, seq: held.entries.length, updatedAt: held.updatedAt });
    return summaries.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** Removes the journal; the lease's last token stays, so a writer from before is still fenced out (SPEC S3). */
  delete(id: string): void {
    const held = this.sessions.get(id);
    if (!held) return;
    held.entries = [];
    if (held.lease) held.lease.expiresAt = 0;
  }

  private held(id: string): Held {
    let held = this.sessions.get(id);
    if (!held) this.sessions.set(id, (held = { entries: [], lease: undefined, updatedAt: 0 }));
    return held;
  }
}
