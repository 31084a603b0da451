/**
 * The IndexedDB store in Node, on fake-indexeddb (a fresh IDBFactory per test, so no test sees
 * another's data): the store contract, then what is particular to IndexedDB. Two store
 * instances on one factory and database name stand for two tabs of one origin. Records are
 * tampered with through the raw IndexedDB API, as a bug or another program could.
 * (In real Chromium, across page reloads and tabs: test/e2e/indexeddb-store.test.ts.)
 */
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";
import { describe, expect, it } from "vitest";
import type { JournalEntry } from "../../src/session/journal-entry.js";
import { SessionConflictError, SessionCorruptError, SessionFencedError, SessionLeaseHeldError } from "../../src/session/session-errors.js";
import { IndexedDbSessionStore } from "../../src/session/stores/indexeddb-store.js";
import { created, describeStoreContract, failure, userEntry } from "./store-contract.js";

const TTL = 60_000;
const NAME = "rxagent-sessions";

describeStoreContract("indexeddb", async () => {
  const store = new IndexedDbSessionStore({ indexedDB: new IDBFactory(), IDBKeyRange });
  return { store, cleanup: () => store.close() };
});

/** `count` stores on one database of one factory: tabs of one origin. */
function tabs(count: number, now?: () => number): { factory: IDBFactory; stores: IndexedDbSessionStore[] } {
  const factory = new IDBFactory();
  return { factory, stores: Array.from({ length: count }, () => new IndexedDbSessionStore({ indexedDB: factory, IDBKeyRange, ...(now ? { now } : {}) })) };
}

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

/** Opens the database with the raw API; `blocked` says whether the open had to wait for others. */
function rawOpen(factory: IDBFactory, version?: number, upgrade?: (db: IDBDatabase) => void, name = NAME): Promise<{ db: IDBDatabase; blocked: boolean }> {
  return new Promise((resolve, reject) => {
    const req = factory.open(name, version);
    let blocked = false;
    req.onblocked = () => (blocked = true);
    req.onupgradeneeded = () => upgrade?.(req.result);
    req.onsuccess = () => resolve({ db: req.result, blocked });
    req.onerror = () => reject(req.error);
  });
}

/** Runs `act` on one object store of the database, raw, and closes the connection again. */
async function raw<T>(factory: IDBFactory, storeName: string, act: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const { db } = await rawOpen(factory);
  try {
    const tx = db.transaction(storeName, "readwrite");
    const result = await request(act(tx.objectStore(storeName)));
    await new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onabort = () => reject(tx.error);
    });
    return result;
  } finally {
    db.close();
  }
}

async function startSession(store: IndexedDbSessionStore, id: string, count: number, owner = "a", ttlMs = TTL): Promise<number> {
  const { token } = await store.acquire(id, { owner, ttlMs });
  const entries: JournalEntry[] = [created(id)];
  for (let seq = 2; seq <= count; seq++) entries.push(userEntry(seq, `entry ${seq}`));
  await store.append(id, entries, { expectedSeq: 0, token, ttlMs });
  return token;
}

const text = (entry: JournalEntry | undefined) => (entry && entry.type === "message" ? (entry.message as { content?: unknown }).content : undefined);

describe("IndexedDbSessionStore: two tabs on one database", () => {
  it("appends racing from two tabs at the same seq: exactly one lands each round, the other is a conflict", async () => {
    const { stores } = tabs(2);
    const [a, b] = stores as [IndexedDbSessionStore, IndexedDbSessionStore];
    const token = await startSession(a, "s1", 1);
    const winners: string[] = [];
    for (let seq = 2; seq <= 6; seq++) {
      const outcomes = await Promise.allSettled([a, b].map((tab, n) => tab.append("s1", [userEntry(seq, `round ${seq} tab ${n}`)], { expectedSeq: seq - 1, token, ttlMs: TTL })));
      const won = outcomes.flatMap((o, n) => (o.status === "fulfilled" ? [{ n, seq: o.value }] : []));
      expect(won).toHaveLength(1);
      expect(won[0]!.seq).toBe(seq);
      winners.push(`round ${seq} tab ${won[0]!.n}`);
      const lost = outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult;
      expect(lost.reason).toBeInstanceOf(SessionConflictError);
      expect(lost.reason).toMatchObject({ expectedSeq: seq - 1, actualSeq: seq });
    }
    for (const tab of [a, b]) {
      const loaded = await tab.load("s1");
      expect(loaded!.entries.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(loaded!.entries.slice(1).map(text)).toEqual(winners);
    }
    a.close();
    b.close();
  });

  it("keeps no state of its own: each tab sees the other's appends at once", async () => {
    const { stores } = tabs(2);
    const [a, b] = stores as [IndexedDbSessionStore, IndexedDbSessionStore];
    const token = await startSession(a, "s1", 1);
    expect(await b.append("s1", [userEntry(2, "from b")], { expectedSeq: 1, token, ttlMs: TTL })).toBe(2);
    expect(await failure(() => a.append("s1", [userEntry(2, "from a")], { expectedSeq: 1, token, ttlMs: TTL }))).toMatchObject({ name: "SessionConflictError", actualSeq: 2 });
    expect(await a.append("s1", [userEntry(3, "from a")], { expectedSeq: 2, token, ttlMs: TTL })).toBe(3);
    expect((await b.list()).map(({ id, seq }) => ({ id, seq }))).toEqual([{ id: "s1", seq: 3 }]);
    expect((await b.load("s1"))!.entries.map(text)).toEqual([undefined, "from b", "from a"]);
    a.close();
    b.close();
  });

  it("a lease is held across tabs: renewed by an append, taken over, released", async () => {
    let clock = 1_000;
    const { stores } = tabs(2, () => clock);
    const [a, b] = stores as [IndexedDbSessionStore, IndexedDbSessionStore];
    const first = await a.acquire("s1", { owner: "tab-a", ttlMs: 100 });
    expect(first).toEqual({ sessionId: "s1", owner: "tab-a", token: 1, expiresAt: 1_100 });
    clock = 1_050;
    await a.append("s1", [created("s1")], { expectedSeq: 0, token: first.token, ttlMs: 100 });
    clock = 1_120; // past the first expiry, before the renewed one
    expect(await failure(() => b.acquire("s1", { owner: "tab-b", ttlMs: 100 }))).toMatchObject({ name: "SessionLeaseHeldError", owner: "tab-a", expiresAt: 1_150 });
    clock = 1_151;
    const second = await b.acquire("s1", { owner: "tab-b", ttlMs: 100 });
    expect(second.token).toBe(2);
    const fenced = await failure(() => a.append("s1", [userEntry(2, "late")], { expectedSeq: 1, token: first.token, ttlMs: 100 }));
    expect(fenced).toBeInstanceOf(SessionFencedError);
    expect(fenced).toMatchObject({ token: 1, currentToken: 2 });
    expect(await failure(() => a.acquire("s1", { owner: "tab-a", ttlMs: 100 }))).toBeInstanceOf(SessionLeaseHeldError);
    const taken = await a.acquire("s1", { owner: "tab-a", ttlMs: 100, takeover: true });
    expect(taken.token).toBe(3);
    expect(await failure(() => b.append("s1", [userEntry(2, "b, fenced")], { expectedSeq: 1, token: second.token, ttlMs: 100 }))).toBeInstanceOf(SessionFencedError);
    await a.release("s1", taken.token);
    expect((await b.acquire("s1", { owner: "tab-b", ttlMs: 100 })).token).toBe(4);
    expect((await a.load("s1"))!.entries).toEqual([created("s1")]); // nothing a fenced tab sent was written
    a.close();
    b.close();
  });
});

describe("IndexedDbSessionStore: records it cannot read are reported and left as they are", () => {
  it("an entry that is not an entry: SessionCorruptError at its seq, the record kept", async () => {
    const { factory, stores } = tabs(1);
    const store = stores[0]!;
    await startSession(store, "s1", 3);
    const bogus = { v: 1, seq: 2, at: 2, type: "mystery" };
    await raw(factory, "entries", (entries) => entries.put(bogus, ["s1", 2]));
    for (let attempt = 0; attempt < 2; attempt++) {
      const error = await failure(() => store.load("s1"));
      expect(error).toBeInstanceOf(SessionCorruptError);
      expect(error).toMatchObject({ sessionId: "s1", position: 2 });
      expect((error as Error).message).toMatch(/unknown entry type "mystery"/);
    }
    expect(await raw(factory, "entries", (entries) => entries.get(["s1", 2]))).toEqual(bogus);
    expect(await raw(factory, "entries", (entries) => entries.count())).toBe(3);
    store.close();
  });

  it("a session record that is not one: SessionCorruptError from every call that reads it, the record kept", async () => {
    const { factory, stores } = tabs(1);
    const store = stores[0]!;
    const token = await startSession(store, "s1", 1);
    await raw(factory, "leases", (leases) => leases.put({ owner: "a", token: "1", expiresAt: 0, updatedAt: 0, lastSeq: 1 }, "s1"));
    for (const call of [() => store.load("s1"), () => store.acquire("s1", { owner: "b", ttlMs: TTL }), () => store.append("s1", [userEntry(2, "x")], { expectedSeq: 1, token, ttlMs: TTL }), () => store.list()]) {
      const error = await failure(call);
      expect(error).toBeInstanceOf(SessionCorruptError);
      expect((error as Error).message).toMatch(/not a session record/);
    }
    expect(await raw(factory, "leases", (leases) => leases.get("s1"))).toEqual({ owner: "a", token: "1", expiresAt: 0, updatedAt: 0, lastSeq: 1 });
    store.close();
  });

  it("a journal whose last entries were removed does not load as a shorter one", async () => {
    const { factory, stores } = tabs(1);
    const store = stores[0]!;
    await startSession(store, "s1", 3);
    await raw(factory, "entries", (entries) => entries.delete(["s1", 3]));
    const error = await failure(() => store.load("s1"));
    expect(error).toBeInstanceOf(SessionCorruptError);
    expect(error).toMatchObject({ position: 3 });
    expect((error as Error).message).toMatch(/ends at entry 3, but 2 entries are stored/);
    store.close();
  });
});

describe("IndexedDbSessionStore: an append is one transaction over both object stores", () => {
  it("an entry already stored at a seq aborts the append: no entry written, the lease not renewed", async () => {
    let clock = 1_000;
    const { factory, stores } = tabs(1, () => clock);
    const store = stores[0]!;
    const token = await startSession(store, "s1", 2, "a", 100);
    // The record forgets entry 2, as a bug could leave it: the journal now seems to end at 1.
    const record = (await raw(factory, "leases", (leases) => leases.get("s1"))) as Record<string, unknown>;
    expect(record).toEqual({ owner: "a", token: 1, expiresAt: 1_100, updatedAt: 1_000, lastSeq: 2 });
    await raw(factory, "leases", (leases) => leases.put({ ...record, lastSeq: 1 }, "s1"));
    clock = 1_050;
    const error = await failure(() => store.append("s1", [userEntry(2, "clash"), userEntry(3, "after")], { expectedSeq: 1, token, ttlMs: 100 }));
    expect(error).toBeInstanceOf(SessionCorruptError);
    expect(error).toMatchObject({ position: 2 });
    expect((error as Error).message).toMatch(/already stored at seq 2/);
    expect(await raw(factory, "leases", (leases) => leases.get("s1"))).toEqual({ ...record, lastSeq: 1 });
    expect(text((await raw(factory, "entries", (entries) => entries.get(["s1", 2]))) as JournalEntry)).toBe("entry 2");
    expect(await raw(factory, "entries", (entries) => entries.get(["s1", 3]))).toBeUndefined();
    store.close();
  });

  it("an entry that cannot be cloned fails the append after earlier entries were sent: none is written", async () => {
    const { stores } = tabs(1);
    const store = stores[0]!;
    const token = await startSession(store, "s1", 1);
    const unclonable = { ...userEntry(3, "fn"), extra: () => 1 } as unknown as JournalEntry;
    const error = await failure(() => store.append("s1", [userEntry(2, "fine"), unclonable], { expectedSeq: 1, token, ttlMs: TTL }));
    expect(error).toMatchObject({ name: "DataCloneError" });
    expect((await store.load("s1"))!.entries).toEqual([created("s1")]);
    expect(await store.append("s1", [userEntry(2, "fine")], { expectedSeq: 1, token, ttlMs: TTL })).toBe(2);
    store.close();
  });
});

describe("IndexedDbSessionStore: the database connection", () => {
  it("closes at once when another tab opens the database at a newer version, then says why it cannot go on", async () => {
    const { factory, stores } = tabs(1);
    const store = stores[0]!;
    await startSession(store, "s1", 1);
    const newer = await rawOpen(factory, 2, (db) => db.createObjectStore("v2-only"));
    expect(newer.blocked).toBe(false);
    expect(newer.db.version).toBe(2);
    const error = await failure(() => store.load("s1"));
    expect((error as Error).message).toMatch(/upgraded past version 1, the one this release reads/);
    expect((error as Error).cause).toMatchObject({ name: "VersionError" });
    newer.db.close();
  });

  it("negative control: a raw connection that ignores versionchange does block the same upgrade", async () => {
    const { factory, stores } = tabs(1);
    await startSession(stores[0]!, "s1", 1);
    stores[0]!.close();
    const old = await rawOpen(factory);
    const pending = rawOpen(factory, 2);
    await new Promise((resolve) => setTimeout(resolve, 20));
    old.db.close(); // let it through
    const newer = await pending;
    expect(newer.blocked).toBe(true);
    newer.db.close();
  });

  it("lets another tab delete the database, then starts afresh on the next call", async () => {
    const { factory, stores } = tabs(1);
    const store = stores[0]!;
    await startSession(store, "s1", 2);
    let blocked = false;
    await new Promise<void>((resolve, reject) => {
      const req = factory.deleteDatabase(NAME);
      req.onblocked = () => (blocked = true);
      req.onsuccess = () => resolve();
      req.onerror = () => reject(req.error);
    });
    expect(blocked).toBe(false);
    expect(await store.load("s1")).toBeUndefined();
    expect(await startSession(store, "s1", 1)).toBe(1);
    expect((await store.list()).map((s) => s.seq)).toEqual([1]);
    store.close();
  });

  it("without an IndexedDB (Node, no option) every call rejects, naming the option; constructing does not throw", async () => {
    const store = new IndexedDbSessionStore();
    expect(await failure(() => store.load("s1"))).toMatchObject({ message: expect.stringMatching(/no IndexedDB here.*options\.indexedDB/) });
    expect(await failure(() => store.acquire("s1", { owner: "a", ttlMs: TTL }))).toMatchObject({ message: expect.stringMatching(/no IndexedDB here/) });
  });

  it("refuses a database of the same name that is not a session database", async () => {
    const factory = new IDBFactory();
    (await rawOpen(factory, 1, (db) => db.createObjectStore("something-else"), "shared-name")).db.close();
    const store = new IndexedDbSessionStore({ indexedDB: factory, IDBKeyRange, name: "shared-name" });
    expect(await failure(() => store.list())).toMatchObject({ message: expect.stringMatching(/"shared-name" exists but is not a session database/) });
  });
});
