/**
 * The contract every session store passes (SPEC S2, S3, S4), run against each store by its own
 * test file: `describeStoreContract("file", async () => ({ store, cleanup }))`.
 */
import { firstValueFrom, isObservable, type Observable } from "rxjs";
import { describe, expect, it } from "vitest";
import { JOURNAL_VERSION, type JournalEntry } from "../../src/session/journal-entry.js";
import { SessionConflictError, SessionCorruptError, SessionFencedError, SessionLeaseHeldError } from "../../src/session/session-errors.js";
import type { SessionStore } from "../../src/session/session-store.js";
import { InMemorySessionStore } from "../../src/session/stores/memory-store.js";

/** A store under test, and how to let it go. */
export interface StoreUnderTest {
  store: SessionStore;
  cleanup?: () => Promise<void> | void;
}

/** A plain value, promise or Observable as a promise. */
export async function settle<T>(value: T | PromiseLike<T> | Observable<T>): Promise<T> {
  return isObservable(value) ? firstValueFrom(value as Observable<T>) : await value;
}

/** An error the call raised, synchronously or as a rejection. */
export async function failure(call: () => unknown): Promise<unknown> {
  try {
    await settle(call() as Promise<unknown>);
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail");
}

/**
 * An in-memory store holding `entries` as session "s", its lease released: the journal a crash
 * left, for a fresh Agent to resume.
 */
export function storeWith(entries: readonly JournalEntry[], options: ConstructorParameters<typeof InMemorySessionStore>[0] = {}): InMemorySessionStore {
  const store = new InMemorySessionStore(options);
  const { token } = store.acquire("s", { owner: "seed", ttlMs: 1 });
  if (entries.length > 0) store.append("s", entries, { expectedSeq: 0, token, ttlMs: 1 });
  store.release("s", token);
  return store;
}

/**
 * `memory` as a `SessionStore` whose `append` (and, when given, `acquire`) is the test's own:
 * a store that answers later, counts what is in flight, or logs what it confirmed.
 */
export function storeAppending(
  memory: InMemorySessionStore,
  append: SessionStore["append"],
  acquire: SessionStore["acquire"] = (id, request) => memory.acquire(id, request),
): SessionStore {
  return {
    load: (id) => memory.load(id),
    acquire,
    release: (id, token) => memory.release(id, token),
    list: () => memory.list(),
    delete: (id) => memory.delete(id),
    append,
  };
}

export const created = (sessionId: string, at = 1): JournalEntry => ({ v: JOURNAL_VERSION, seq: 1, at, type: "created", sessionId });
export const userEntry = (seq: number, text: string): JournalEntry => ({ v: JOURNAL_VERSION, seq, at: seq, type: "message", message: { role: "user", content: text, timestamp: seq } });

const TTL = 60_000;

/** What a store promises beyond the port. */
export interface ContractOptions {
  /** `append` copies what it is given (every store that serializes: all but the in-memory one). */
  copiesOnAppend?: boolean;
}

export function describeStoreContract(name: string, open: () => Promise<StoreUnderTest>, options: ContractOptions = { copiesOnAppend: true }): void {
  describe(`${name} store: the store contract (SPEC S2, S3)`, () => {
    async function withStore(test: (store: SessionStore) => Promise<void>): Promise<void> {
      const { store, cleanup } = await open();
      try {
        await test(store);
      } finally {
        await cleanup?.();
      }
    }

    it("S2: an unknown session loads as undefined; a first append creates it", () =>
      withStore(async (store) => {
        expect(await settle(store.load("nobody"))).toBeUndefined();
        const lease = await settle(store.acquire("s1", { owner: "a", ttlMs: TTL }));
        expect(lease.token).toBe(1);
        expect(await settle(store.append("s1", [created("s1"), userEntry(2, "hi")], { expectedSeq: 0, token: lease.token, ttlMs: TTL }))).toBe(2);
        const loaded = await settle(store.load("s1"));
        expect(loaded?.entries).toEqual([created("s1"), userEntry(2, "hi")]);
        expect(loaded?.droppedTail).toBeUndefined();
      }));

    it("S2: an append at a stale expectedSeq is a conflict and writes nothing", () =>
      withStore(async (store) => {
        const { token } = await settle(store.acquire("s1", { owner: "a", ttlMs: TTL }));
        await settle(store.append("s1", [created("s1")], { expectedSeq: 0, token, ttlMs: TTL }));
        const error = await failure(() => store.append("s1", [userEntry(1, "again")], { expectedSeq: 0, token, ttlMs: TTL }));
        expect(error).toBeInstanceOf(SessionConflictError);
        expect(error).toMatchObject({ expectedSeq: 0, actualSeq: 1, sessionId: "s1" });
        expect((await settle(store.load("s1")))?.entries).toHaveLength(1);
      }));

    it("S2: entries are appended all or none", () =>
      withStore(async (store) => {
        const { token } = await settle(store.acquire("s1", { owner: "a", ttlMs: TTL }));
        await settle(store.append("s1", [created("s1")], { expectedSeq: 0, token, ttlMs: TTL }));
        const error = await failure(() => store.append("s1", [userEntry(2, "ok"), userEntry(4, "gap")], { expectedSeq: 1, token, ttlMs: TTL }));
        expect(error).toBeInstanceOf(SessionCorruptError);
        expect((await settle(store.load("s1")))?.entries).toEqual([created("s1")]);
      }));

    it("S2: of two racing appends at the same seq exactly one lands", () =>
      withStore(async (store) => {
        const { token } = await settle(store.acquire("s1", { owner: "a", ttlMs: TTL }));
        await settle(store.append("s1", [created("s1")], { expectedSeq: 0, token, ttlMs: TTL }));
        const outcomes = await Promise.allSettled([1, 2, 3].map(async (n) => settle(store.append("s1", [userEntry(2, `racer ${n}`)], { expectedSeq: 1, token, ttlMs: TTL }))));
        expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
        for (const o of outcomes) if (o.status === "rejected") expect(o.reason).toBeInstanceOf(SessionConflictError);
        expect((await settle(store.load("s1")))?.entries).toHaveLength(2);
      }));

    it("S3: a takeover fences the older writer out; nothing it sends is written", () =>
      withStore(async (store) => {
        const first = await settle(store.acquire("s1", { owner: "a", ttlMs: TTL }));
        await settle(store.append("s1", [created("s1")], { expectedSeq: 0, token: first.token, ttlMs: TTL }));
        const held = await failure(() => store.acquire("s1", { owner: "b", ttlMs: TTL }));
        expect(held).toBeInstanceOf(SessionLeaseHeldError);
        expect(held).toMatchObject({ owner: "a" });
        const second = await settle(store.acquire("s1", { owner: "b", ttlMs: TTL, takeover: true }));
        expect(second.token).toBe(first.token + 1);
        const fenced = await failure(() => store.append("s1", [userEntry(2, "late")], { expectedSeq: 1, token: first.token, ttlMs: TTL }));
        expect(fenced).toBeInstanceOf(SessionFencedError);
        expect(fenced).toMatchObject({ token: first.token, currentToken: second.token });
        expect(await settle(store.append("s1", [userEntry(2, "new owner")], { expectedSeq: 1, token: second.token, ttlMs: TTL }))).toBe(2);
      }));

    it("S3: the same owner asking again gets a new token, which fences its older incarnation", () =>
      withStore(async (store) => {
        const old = await settle(store.acquire("s1", { owner: "a", ttlMs: TTL }));
        const restarted = await settle(store.acquire("s1", { owner: "a", ttlMs: TTL }));
        expect(restarted.token).toBe(old.token + 1);
        expect(await failure(() => store.append("s1", [created("s1")], { expectedSeq: 0, token: old.token, ttlMs: TTL }))).toBeInstanceOf(SessionFencedError);
      }));

    it("S3: an expired or released lease can be taken by another owner", () =>
      withStore(async (store) => {
        const short = await settle(store.acquire("s1", { owner: "a", ttlMs: 40 }));
        await new Promise((resolve) => setTimeout(resolve, 120));
        const next = await settle(store.acquire("s1", { owner: "b", ttlMs: TTL }));
        expect(next.token).toBe(short.token + 1);
        await settle(store.release("s1", short.token)); // a stale release does nothing
        expect(await failure(() => store.acquire("s1", { owner: "c", ttlMs: TTL }))).toBeInstanceOf(SessionLeaseHeldError);
        await settle(store.release("s1", next.token));
        expect((await settle(store.acquire("s1", { owner: "c", ttlMs: TTL }))).token).toBe(next.token + 1);
      }));

    it("S2: list() names every session with its last seq; delete() removes one", () =>
      withStore(async (store) => {
        for (const id of ["b", "a"]) {
          const { token } = await settle(store.acquire(id, { owner: "w", ttlMs: TTL }));
          await settle(store.append(id, [created(id)], { expectedSeq: 0, token, ttlMs: TTL }));
        }
        const { token } = await settle(store.acquire("a", { owner: "w", ttlMs: TTL }));
        await settle(store.append("a", [userEntry(2, "x")], { expectedSeq: 1, token, ttlMs: TTL }));
        const listed = await settle(store.list());
        expect(listed.map(({ id, seq }) => ({ id, seq }))).toEqual([{ id: "a", seq: 2 }, { id: "b", seq: 1 }]);
        for (const summary of listed) expect(summary.updatedAt).toBeGreaterThan(0);
        await settle(store.delete("a"));
        expect(await settle(store.load("a"))).toBeUndefined();
        expect((await settle(store.list())).map((s) => s.id)).toEqual(["b"]);
        // The writer from before the delete is still fenced: tokens keep growing.
        const after = await settle(store.acquire("a", { owner: "w2", ttlMs: TTL }));
        expect(after.token).toBe(token + 1);
        expect(await failure(() => store.append("a", [created("a")], { expectedSeq: 0, token, ttlMs: TTL }))).toBeInstanceOf(SessionFencedError);
        expect(await settle(store.append("a", [created("a")], { expectedSeq: 0, token: after.token, ttlMs: TTL }))).toBe(1);
      }));

    it("S1: entries come back as plain JSON, equal and not shared", () =>
      withStore(async (store) => {
        const { token } = await settle(store.acquire("s/1 ünï", { owner: "a", ttlMs: TTL }));
        const entry: JournalEntry = {
          v: JOURNAL_VERSION,
          seq: 2,
          at: 2,
          type: "message",
          message: { role: "assistant", content: [{ type: "text", text: "日本語 \u2028 \"quoted\"\n" }, { type: "toolCall", id: "c1", name: "t", arguments: { deep: { list: [1, null, true] } } }], api: "a", provider: "p", model: "m", usage: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 3, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "toolUse", timestamp: 2 },
        };
        await settle(store.append("s/1 ünï", [created("s/1 ünï"), entry], { expectedSeq: 0, token, ttlMs: TTL }));
        // What the app holds after the append is the app's (the in-memory store keeps the entries it is given: see its doc).
        if (options.copiesOnAppend) (entry.message as { content: unknown[] }).content.length = 0;
        const loaded = await settle(store.load("s/1 ünï"));
        expect((loaded!.entries[1] as { message: { content: unknown[] } }).message.content).toHaveLength(2);
        (loaded!.entries as JournalEntry[]).length = 0;
        expect((await settle(store.load("s/1 ünï")))?.entries).toHaveLength(2);
      }));
  });
}
