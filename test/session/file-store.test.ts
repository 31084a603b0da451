/**
 * The JSONL file store (SPEC S2–S4): the store contract, then what only a file can get wrong —
 * a torn last line, a corrupted line, a journal of another session, a lock left by a killed
 * process, and the durability policies.
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SessionCorruptError } from "../../src/session/session-errors.js";
import { FileSessionStore } from "../../src/session/stores/file-store.js";
import { created, describeStoreContract, failure, userEntry } from "./store-contract.js";

const root = mkdtempSync(join(tmpdir(), "rxagent-file-store-"));
let count = 0;
const freshDirectory = (): string => join(root, `d${++count}`);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describeStoreContract("file (fsync)", async () => ({ store: new FileSessionStore({ directory: freshDirectory() }) }));
describeStoreContract("file (fsync every 5 ms)", async () => ({ store: new FileSessionStore({ directory: freshDirectory(), durability: { fsyncEveryMs: 5 } }) }));

async function journalOf(store: FileSessionStore, id: string, lines: number): Promise<{ token: number; path: string }> {
  const { token } = await store.acquire(id, { owner: "t", ttlMs: 60_000 });
  const entries = [created(id), ...Array.from({ length: lines - 1 }, (_, i) => userEntry(i + 2, `m${i + 2}`))];
  await store.append(id, entries, { expectedSeq: 0, token, ttlMs: 60_000 });
  return { token, path: join(store.directory, `${encodeURIComponent(id)}.jsonl`) };
}

/** A journal line as the store writes it: the entry with its session's id. */
const line = (sid: string, entry: object): string => JSON.stringify({ sid, ...entry }) + "\n";

describe("file store: what a crash or a bad file leaves (SPEC S4)", () => {
  it("S4: a torn last line is dropped on load and reported, then set aside before the next append: never merged", async () => {
    const store = new FileSessionStore({ directory: freshDirectory() });
    const { token, path } = await journalOf(store, "s", 3);
    appendFileSync(path, '{"v":1,"seq":4,"at":4,"type":"mess');
    const reader = new FileSessionStore({ directory: store.directory });
    const loaded = await reader.load("s");
    expect(loaded?.entries).toHaveLength(3);
    expect(loaded?.droppedTail).toEqual({ bytes: 34 });
    expect(await reader.append("s", [userEntry(4, "after the crash")], { expectedSeq: 3, token, ttlMs: 60_000 })).toBe(4);
    const again = await reader.load("s");
    expect(again?.droppedTail).toBeUndefined();
    expect(again?.entries.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    const aside = readdirSync(store.directory).filter((f) => f.includes(".torn-"));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(store.directory, aside[0]!), "utf8")).toBe('{"v":1,"seq":4,"at":4,"type":"mess');
  });

  it("S4: a corrupted line in the middle is an error naming the line; the file is left as it is", async () => {
    const store = new FileSessionStore({ directory: freshDirectory() });
    const { path } = await journalOf(store, "s", 4);
    const lines = readFileSync(path, "utf8").split("\n");
    lines[1] = lines[1]!.slice(0, 20);
    writeFileSync(path, lines.join("\n"));
    const before = readFileSync(path, "utf8");
    const error = await failure(() => store.load("s"));
    expect(error).toBeInstanceOf(SessionCorruptError);
    expect((error as Error).message).toMatch(/Session "s".*at 2: line 2 is not JSON/);
    expect(await failure(() => new FileSessionStore({ directory: store.directory }).append("s", [userEntry(5, "x")], { expectedSeq: 4, token: 1, ttlMs: 1000 }))).toBeInstanceOf(SessionCorruptError);
    expect(readFileSync(path, "utf8")).toBe(before);
  });

  it("S4: an entry of an unknown version, a gap in the sequence and another session's journal are each a clear error", async () => {
    const store = new FileSessionStore({ directory: freshDirectory() });
    const { path } = await journalOf(store, "s", 2);
    appendFileSync(path, line("s", { ...userEntry(3, "future"), v: 2 }));
    expect(((await failure(() => store.load("s"))) as Error).message).toContain("format version 2; this release reads version 1");

    const gap = await journalOf(store, "gap", 2);
    appendFileSync(gap.path, line("gap", userEntry(4, "skipped 3")));
    expect(((await failure(() => store.load("gap"))) as Error).message).toContain("seq 4 where 3 was expected");

    const other = await journalOf(store, "other", 2);
    writeFileSync(join(store.directory, "copied.jsonl"), readFileSync(other.path));
    const error = await failure(() => store.load("copied"));
    expect(error).toBeInstanceOf(SessionCorruptError);
    expect((error as Error).message).toContain('the journal belongs to session "other"');
  });

  it("S3: a lock left by a process killed while holding it is broken; a live process's lock is waited for", async () => {
    const store = new FileSessionStore({ directory: freshDirectory(), lockTimeoutMs: 300 });
    await journalOf(store, "s", 1);
    const lock = join(store.directory, "s.lock");
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
    writeFileSync(lock, dead.stdout);
    expect((await store.acquire("s", { owner: "next", ttlMs: 1000, takeover: true })).token).toBe(2);
    expect(existsSync(lock)).toBe(false);
    // Our own pid with another mark: left by an earlier process that had this pid (PID 1 in a restarted container).
    writeFileSync(lock, `${process.pid} earlier-incarnation`);
    expect((await store.acquire("s", { owner: "again", ttlMs: 1000, takeover: true })).token).toBe(3);
    expect(existsSync(lock)).toBe(false);
    writeFileSync(lock, String(process.ppid));
    expect(((await failure(() => store.acquire("s", { owner: "x", ttlMs: 1000, takeover: true }))) as Error).message).toContain("has been held for over 300 ms");
    rmSync(lock);
  });

  it("S2: ids that are not file names are kept apart and listed by their own name", async () => {
    const store = new FileSessionStore({ directory: freshDirectory() });
    for (const id of ["a/b", "a%2Fb", "..", ".hidden", "*"]) await journalOf(store, id, 1);
    expect((await store.list()).map((s) => s.id).sort()).toEqual(["*", "..", ".hidden", "a%2Fb", "a/b"].sort());
    expect(readdirSync(store.directory).every((f) => !f.startsWith("."))).toBe(true);
  });
});
