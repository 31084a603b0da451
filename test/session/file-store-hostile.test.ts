/**
 * The file store against hostile or odd input (SPEC S2–S4): who may read the journals, ids that
 * are not file names, stray files, huge lines, planted symbolic links, lines spliced in from
 * another journal, and journals written by earlier releases.
 */
import { appendFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SessionCorruptError, SessionIdError } from "../../src/session/session-errors.js";
import { FileSessionStore } from "../../src/session/stores/file-store.js";
import { LockFiles } from "../../src/session/stores/file/lock-file.js";
import { created, failure, userEntry } from "./store-contract.js";

const root = mkdtempSync(join(tmpdir(), "rxagent-file-hostile-"));
let count = 0;
const freshDirectory = (): string => join(root, `d${++count}`);
afterAll(() => rmSync(root, { recursive: true, force: true }));
const TTL = 60_000;

async function journalOf(store: FileSessionStore, id: string, lines: number): Promise<number> {
  const { token } = await store.acquire(id, { owner: "t", ttlMs: TTL });
  const entries = [created(id), ...Array.from({ length: lines - 1 }, (_, i) => userEntry(i + 2, `m${i + 2}`))];
  await store.append(id, entries, { expectedSeq: 0, token, ttlMs: TTL });
  return token;
}

const journals = (directory: string): string[] => readdirSync(directory).filter((f) => f.endsWith(".jsonl"));

/** Bytes this process passed through read() so far (Linux's per-process I/O counter, page cache included). */
function bytesRead(): number {
  const match = /^rchar: (\d+)$/m.exec(readFileSync("/proc/self/io", "utf8"));
  if (!match) throw new Error("/proc/self/io has no rchar line: this test needs Linux.");
  return Number(match[1]);
}

describe("(X6) file store: who may read the journals", () => {
  it("the directory is created 0700 and journals, leases and locks 0600, whatever the umask", async () => {
    const previous = process.umask(0o022);
    try {
      const store = new FileSessionStore({ directory: join(freshDirectory(), "nested") });
      await journalOf(store, "s", 2);
      expect(statSync(store.directory).mode & 0o777).toBe(0o700);
      expect(statSync(join(store.directory, "s.jsonl")).mode & 0o777).toBe(0o600);
      expect(statSync(join(store.directory, "s.lease")).mode & 0o777).toBe(0o600);
      // A torn line set aside keeps the journal's privacy.
      appendFileSync(join(store.directory, "s.jsonl"), '{"v":1,"seq":3');
      const reader = new FileSessionStore({ directory: store.directory });
      await reader.append("s", [userEntry(3, "x")], { expectedSeq: 2, token: 1, ttlMs: TTL });
      const torn = readdirSync(store.directory).filter((f) => f.includes(".torn-"));
      expect(torn.map((f) => statSync(join(store.directory, f)).mode & 0o777)).toEqual([0o600]);
      // The lock lives only while an append holds it: its mode is read from inside.
      const lock = join(store.directory, "s.lock");
      expect(await new LockFiles(1_000).locked(lock, async () => statSync(lock).mode & 0o777)).toBe(0o600);
    } finally {
      process.umask(previous);
    }
  });
});

describe("(X6) file store: ids that are not file names", () => {
  it("a 300-character id, ASCII or not, works: its file name is shortened with a hash, and list() names it", async () => {
    const store = new FileSessionStore({ directory: freshDirectory() });
    const ascii = "x".repeat(300);
    const wide = "é".repeat(299) + "😀";
    await journalOf(store, ascii, 2);
    await journalOf(store, wide, 3);
    expect((await store.load(ascii))?.entries).toHaveLength(2);
    expect((await store.load(wide))?.entries).toHaveLength(3);
    expect((await store.list()).map((s) => [s.id, s.seq])).toEqual([
      [ascii, 2],
      [wide, 3],
    ]);
    for (const file of readdirSync(store.directory)) expect(Buffer.byteLength(file)).toBeLessThan(200);
  });

  it("an id with a lone surrogate, a NUL, no character or over 512 characters is a SessionIdError naming the rule", async () => {
    const store = new FileSessionStore({ directory: freshDirectory() });
    await store.list();
    for (const [id, rule] of [
      ["a\ud800b", /well-formed UTF-16/],
      ["\udc00", /well-formed UTF-16/],
      ["a\u0000b", /NUL/],
      ["", /empty/],
      ["x".repeat(513), /at most 512 characters/],
    ] as const) {
      for (const call of [() => store.load(id), () => store.acquire(id, { owner: "o", ttlMs: TTL }), () => store.append(id, [created(id)], { expectedSeq: 0, token: 0, ttlMs: TTL }), () => store.delete(id)]) {
        const error = await failure(call);
        expect(error).toBeInstanceOf(SessionIdError);
        expect((error as Error).message).toMatch(rule);
      }
    }
    expect(readdirSync(store.directory)).toEqual([]);
  });

  it("two ids differing only in case get file names that differ case-insensitively too", async () => {
    const store = new FileSessionStore({ directory: freshDirectory() });
    await journalOf(store, "Chat", 1);
    await journalOf(store, "chat", 2);
    await journalOf(store, "CHAT", 3);
    const names = readdirSync(store.directory);
    for (const suffix of [".jsonl", ".lease"]) {
      const files = names.filter((f) => f.endsWith(suffix)).map((f) => f.toLowerCase());
      expect(new Set(files).size).toBe(3);
    }
    expect((await store.list()).map((s) => [s.id, s.seq])).toEqual([
      ["CHAT", 3],
      ["Chat", 1],
      ["chat", 2],
    ]);
  });
});

describe("(X6) file store: list() with stray files", () => {
  it("a file whose name is not an id and a journal copied under another id are skipped and reported; the rest is listed", async () => {
    const skipped: string[] = [];
    const store = new FileSessionStore({ directory: freshDirectory(), onSkipped: (file, error) => skipped.push(`${file}: ${error.message}`) });
    await journalOf(store, "a", 2);
    await journalOf(store, "other", 1);
    writeFileSync(join(store.directory, "%zz.jsonl"), readFileSync(join(store.directory, "a.jsonl")));
    writeFileSync(join(store.directory, "copied.jsonl"), readFileSync(join(store.directory, "other.jsonl")));
    expect((await store.list()).map((s) => s.id)).toEqual(["a", "other"]);
    expect(skipped.sort()).toEqual([expect.stringMatching(/^%zz\.jsonl: .*not a session id/), expect.stringMatching(/^copied\.jsonl: .*belongs to session "other"/)].sort());
  });
});

describe("(X6) file store: huge journals", () => {
  it("a line over maxEntryBytes is a SessionCorruptError naming the line and the limit, found without reading the line whole", async () => {
    const store = new FileSessionStore({ directory: freshDirectory(), maxEntryBytes: 1024 * 1024 });
    await journalOf(store, "s", 1);
    // A valid entry of 40 MB, written in pieces so the test itself holds no 40 MB string.
    const path = join(store.directory, "s.jsonl");
    appendFileSync(path, '{"v":1,"seq":2,"at":2,"type":"message","message":{"role":"user","timestamp":2,"content":"');
    const piece = "y".repeat(1024 * 1024);
    for (let i = 0; i < 40; i++) appendFileSync(path, piece);
    appendFileSync(path, '"}}\n');
    global.gc?.();
    const before = process.memoryUsage().rss;
    const error = await failure(() => store.load("s"));
    const growth = process.memoryUsage().rss - before;
    expect(error).toBeInstanceOf(SessionCorruptError);
    expect((error as Error).message).toMatch(/line 2 is longer than maxEntryBytes \(1048576 bytes\)/);
    expect(growth).toBeLessThan(100 * 1024 * 1024);
  });

  it("an entry over maxEntryBytes is refused by append(): nothing is written that could not be read back", async () => {
    const store = new FileSessionStore({ directory: freshDirectory(), maxEntryBytes: 1000 });
    const token = await journalOf(store, "s", 1);
    const before = readFileSync(join(store.directory, "s.jsonl"), "utf8");
    const error = await failure(() => store.append("s", [userEntry(2, "z".repeat(2000))], { expectedSeq: 1, token, ttlMs: TTL }));
    expect(error).toBeInstanceOf(RangeError);
    expect((error as Error).message).toMatch(/entry 2 is \d+ bytes, over maxEntryBytes \(1000 bytes\)/);
    expect(readFileSync(join(store.directory, "s.jsonl"), "utf8")).toBe(before);
  });

  it("appends after a load do not read the journal again: 1 000 appends behind a 20 MB entry read well under 20 MB", async () => {
    const directory = freshDirectory();
    const writer = new FileSessionStore({ directory, durability: "none" });
    const { token: first } = await writer.acquire("s", { owner: "w", ttlMs: TTL });
    await writer.append("s", [created("s"), userEntry(2, "b".repeat(20 * 1024 * 1024))], { expectedSeq: 0, token: first, ttlMs: TTL });
    // Another process resumes the session: it loads the journal once, then appends.
    const resumed = new FileSessionStore({ directory, durability: "none" });
    expect((await resumed.load("s"))?.entries).toHaveLength(2);
    const { token } = await resumed.acquire("s", { owner: "r", ttlMs: TTL, takeover: true });
    const start = bytesRead();
    for (let seq = 3; seq < 1003; seq++) await resumed.append("s", [userEntry(seq, "m")], { expectedSeq: seq - 1, token, ttlMs: TTL });
    expect(bytesRead() - start).toBeLessThan(2 * 1024 * 1024);
    expect((await new FileSessionStore({ directory }).load("s"))?.entries).toHaveLength(1002);
  });
});

describe("(X6) file store: planted symbolic links", () => {
  it("a link at the journal's path is refused with a clear error; its target is not written", async () => {
    const store = new FileSessionStore({ directory: freshDirectory() });
    await journalOf(store, "other", 1);
    const target = join(root, `target-${count}`);
    writeFileSync(target, "precious\n");
    symlinkSync(target, join(store.directory, "s.jsonl"));
    const { token } = await store.acquire("s", { owner: "o", ttlMs: TTL });
    const error = await failure(() => store.append("s", [created("s")], { expectedSeq: 0, token, ttlMs: TTL }));
    expect((error as Error).message).toMatch(/s\.jsonl is a symbolic link/);
    expect(((await failure(() => store.load("s"))) as Error).message).toMatch(/s\.jsonl is a symbolic link/);
    expect(readFileSync(target, "utf8")).toBe("precious\n");
  });

  it("a link at the lease's old temporary path (name.lease.<pid>.tmp) is not followed: the lease is written, the target is not", async () => {
    const store = new FileSessionStore({ directory: freshDirectory() });
    await journalOf(store, "other", 1);
    const target = join(root, `target-${count}`);
    writeFileSync(target, "precious\n");
    symlinkSync(target, join(store.directory, `s.lease.${process.pid}.tmp`));
    expect((await store.acquire("s", { owner: "o", ttlMs: TTL })).token).toBe(1);
    expect(readFileSync(target, "utf8")).toBe("precious\n");
    expect(lstatSync(join(store.directory, "s.lease")).isFile()).toBe(true);
  });
  it("a link at the lease's path is refused with a clear error; its target is neither read as a lease nor written", async () => {
    const store = new FileSessionStore({ directory: freshDirectory() });
    await journalOf(store, "other", 1);
    const target = join(root, `target-${count}`);
    writeFileSync(target, JSON.stringify({ owner: "planted", token: 99, expiresAt: 0 }));
    symlinkSync(target, join(store.directory, "s.lease"));
    expect(((await failure(() => store.acquire("s", { owner: "o", ttlMs: TTL }))) as Error).message).toMatch(/s\.lease is a symbolic link/);
    expect(JSON.parse(readFileSync(target, "utf8")).owner).toBe("planted");
  });
});

describe("(X6) file store: every line belongs to its session", () => {
  it("a line spliced in from another session's journal is a SessionCorruptError naming the line", async () => {
    const store = new FileSessionStore({ directory: freshDirectory() });
    await journalOf(store, "a", 1);
    await journalOf(store, "b", 2);
    const line2 = readFileSync(join(store.directory, "b.jsonl"), "utf8").split("\n")[1]!;
    appendFileSync(join(store.directory, "a.jsonl"), line2 + "\n");
    const error = await failure(() => new FileSessionStore({ directory: store.directory }).load("a"));
    expect(error).toBeInstanceOf(SessionCorruptError);
    expect((error as Error).message).toMatch(/at 2: line 2 belongs to session "b"/);
  });

  it("a journal of an earlier release (no session on its lines, old file name) loads, lists, keeps its lease and goes on", async () => {
    const directory = freshDirectory();
    mkdirSync(directory);
    // Written as releases before this one did: "Chat" named as is, lines without a session.
    writeFileSync(join(directory, "Chat.jsonl"), [created("Chat"), userEntry(2, "old")].map((e) => JSON.stringify(e) + "\n").join(""));
    writeFileSync(join(directory, "Chat.lease"), JSON.stringify({ owner: "old", token: 7, expiresAt: 0 }));
    writeFileSync(join(directory, "plain.jsonl"), JSON.stringify(created("plain")) + "\n");
    const store = new FileSessionStore({ directory });
    expect((await store.load("Chat"))?.entries.map((e) => e.seq)).toEqual([1, 2]);
    expect((await store.list()).map((s) => [s.id, s.seq])).toEqual([
      ["Chat", 2],
      ["plain", 1],
    ]);
    const lease = await store.acquire("Chat", { owner: "new", ttlMs: TTL });
    expect(lease.token).toBe(8);
    await store.append("Chat", [userEntry(3, "new")], { expectedSeq: 2, token: lease.token, ttlMs: TTL });
    expect(existsSync(join(directory, "Chat.jsonl"))).toBe(false);
    const reloaded = await new FileSessionStore({ directory }).load("Chat");
    expect(reloaded?.entries.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(reloaded?.entries[2]).toEqual(userEntry(3, "new"));
    expect(await new FileSessionStore({ directory }).append("plain", [userEntry(2, "x")], { expectedSeq: 1, token: 0, ttlMs: TTL })).toBe(2);
  });
});
