/**
 * A decorating `SessionStore` that reports every lease and every append, with its outcome, as
 * it happens: the audit trail that shows who wrote which entries of which session with which
 * fencing token. The store behind it is untouched; the Agent sees the same answers.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { isObservable, lastValueFrom, type Observable } from "rxjs";
import type { AcquireLease, AppendCondition, JournalEntry, SessionLease, SessionStore } from "../../src/session/index.js"; // "rxagent/session"

/** What the audit reports. `from`..`to` are the seqs of the appended entries. */
export type AuditEvent =
  | { ev: "acquired"; s: string; owner: string; token: number; expiresAt: number }
  | { ev: "acquire-refused"; s: string; owner: string; error: string; holder?: string; expiresAt?: number }
  /** Reported before the store is asked, so an append cut short by a crash is on record too. */
  | { ev: "append"; s: string; token: number; from: number; to: number; digest: string; types: string[] }
  | { ev: "appended"; s: string; token: number; from: number; to: number }
  | { ev: "append-refused"; s: string; token: number; from: number; to: number; error: string; currentToken?: number };

/** Object keys sorted at every level: the same JSON whatever order a database hands keys back in. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? "null" : canonicalJson(item))).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).filter((key) => (value as Record<string, unknown>)[key] !== undefined).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * A short fingerprint of entries, equal for the entries an Agent wrote and the same entries
 * loaded back from any store: it ties a journal's entries to the append that wrote them.
 */
export function digestEntries(entries: readonly JournalEntry[]): string {
  return createHash("sha256").update(canonicalJson(entries)).digest("hex").slice(0, 16);
}

function settle<T>(value: T | PromiseLike<T> | Observable<T>): Promise<T> {
  return isObservable(value) ? lastValueFrom(value) : Promise.resolve(value);
}

const describe = (error: unknown): { error: string; holder?: string; expiresAt?: number; currentToken?: number } => {
  const e = error as { name?: string; owner?: string; expiresAt?: number; currentToken?: number };
  return { error: e?.name ?? String(error), ...(e?.owner ? { holder: e.owner } : {}), ...(e?.expiresAt ? { expiresAt: e.expiresAt } : {}), ...(e?.currentToken !== undefined ? { currentToken: e.currentToken } : {}) };
};

/**
 * `store`, reporting leases and appends to `report` (synchronously, before and after each call).
 *
 * @example
 * ```ts
 * const store = auditedStore(new PostgresSessionStore({ pool }), (event) => console.log(JSON.stringify(event)));
 * ```
 */
export function auditedStore(store: SessionStore, report: (event: AuditEvent) => void): SessionStore {
  return {
    load: (id) => store.load(id),
    list: () => store.list(),
    delete: (id) => store.delete(id),
    release: (id, token) => store.release(id, token),
    async acquire(id: string, request: AcquireLease): Promise<SessionLease> {
      try {
        const lease = await settle(store.acquire(id, request));
        report({ ev: "acquired", s: id, owner: request.owner, token: lease.token, expiresAt: lease.expiresAt });
        return lease;
      } catch (error) {
        report({ ev: "acquire-refused", s: id, owner: request.owner, ...describe(error) });
        throw error;
      }
    },
    async append(id: string, entries: readonly JournalEntry[], condition: AppendCondition): Promise<number> {
      const range = { s: id, token: condition.token, from: condition.expectedSeq + 1, to: condition.expectedSeq + entries.length };
      report({ ev: "append", ...range, digest: digestEntries(entries), types: entries.map((entry) => entry.type) });
      try {
        const seq = await settle(store.append(id, entries, condition));
        report({ ev: "appended", ...range });
        return seq;
      } catch (error) {
        report({ ev: "append-refused", ...range, ...describe(error) });
        throw error;
      }
    },
  };
}
