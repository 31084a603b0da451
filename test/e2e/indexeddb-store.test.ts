/**
 * The IndexedDB session store in real Chromium: the page in test/e2e/fixtures/indexeddb imports
 * the store from src, is built with Vite's JS API into a temp dir and served by `vite preview`
 * on 127.0.0.1 (port chosen by the OS), and is driven through playwright-core (one browser for
 * the file). Pages of one browser context are tabs of one origin: they share the database.
 * Each test has a context of its own, so its storage starts empty.
 *
 * Entries written before a reload load back after it; two tabs racing an append at the same
 * seq get one winner and one SessionConflictError; a takeover from the second tab fences the
 * first; a newer version opened in one tab is not blocked by the other, whose store then says
 * why it stops. (The same store on fake-indexeddb: test/session/indexeddb-store.test.ts.)
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { JournalEntry } from "../../src/session/journal-entry.js";
import type { SessionLease } from "../../src/session/session-store.js";
import { ROOT } from "../examples/support.js";
import { serveFixture } from "../helpers/served-fixture.js";
import { created, userEntry } from "../session/store-contract.js";
import type { Outcome, SessionsPage } from "./fixtures/indexeddb/main.js";

const FIXTURE = join(ROOT, "test/e2e/fixtures/indexeddb");
const DB = "rxagent-e2e-sessions";
const TTL = 60_000;

const served = serveFixture(FIXTURE);

/** Opens `count` tabs of the page in one fresh context (one origin, one shared IndexedDB). */
async function tabs(count: number): Promise<Page[]> {
  const pages = await served.pages(count);
  for (const page of pages) await ready(page, page.goto(served.url));
  return pages;
}

async function ready(page: Page, navigation: Promise<unknown>): Promise<void> {
  await navigation;
  await page.waitForFunction(() => document.getElementById("status")?.textContent === "ready");
}

const rx = (page: Page, method: string, ...args: unknown[]): Promise<Outcome> =>
  page.evaluate(([db, method, args]) => (window as unknown as { rxSessions: SessionsPage }).rxSessions.call(db, method as never, ...args), [DB, method, args] as const);

/** The call's value; fails the test with the page's error when it was refused. */
async function ok<T>(page: Page, method: string, ...args: unknown[]): Promise<T> {
  const outcome = await rx(page, method, ...args);
  if (!outcome.ok) throw new Error(`${method} failed in the page: ${outcome.name}: ${outcome.message}`);
  return outcome.value as T;
}

const refused = async (page: Page, method: string, ...args: unknown[]) => {
  const outcome = await rx(page, method, ...args);
  expect(outcome.ok).toBe(false);
  return outcome as Extract<Outcome, { ok: false }>;
};

const loadEntries = async (page: Page) => (await ok<{ entries: JournalEntry[] } | null>(page, "load", "s1"))?.entries;

describe("IndexedDbSessionStore in headless Chromium", () => {
  it("the page bundle has the store and no Node-only API", () => {
    const assets = readdirSync(join(served.outDir, "assets")).filter((file) => file.endsWith(".js"));
    expect(assets.length).toBeGreaterThan(0);
    const code = assets.map((asset) => readFileSync(join(served.outDir, "assets", asset), "utf8")).join("\n");
    expect(code).toMatch(/IndexedDbSessionStore/);
    expect(code).not.toMatch(/["']node:[a-z]/);
    expect(code).not.toMatch(/\bprocess\.(env|argv)\b/);
  });

  it("entries appended before a reload load back after it, and the lease is still held", async () => {
    const [page] = (await tabs(1)) as [Page];
    expect(await ok(page, "load", "s1")).toBeNull();
    const lease = await ok<SessionLease>(page, "acquire", "s1", { owner: "tab-1", ttlMs: TTL });
    const written = [created("s1"), userEntry(2, "before the reload"), userEntry(3, "日本語 \u2028 \"quoted\"")];
    expect(await ok(page, "append", "s1", written, { expectedSeq: 0, token: lease.token, ttlMs: TTL })).toBe(3);

    await ready(page, page.reload());
    expect(await loadEntries(page)).toEqual(written);
    expect((await ok<{ id: string; seq: number }[]>(page, "list")).map(({ id, seq }) => ({ id, seq }))).toEqual([{ id: "s1", seq: 3 }]);
    expect(await refused(page, "acquire", "s1", { owner: "tab-2", ttlMs: TTL })).toMatchObject({ name: "SessionLeaseHeldError", fields: { owner: "tab-1" } });
    // The token from before the reload is still the newest: the writer carries on.
    expect(await ok(page, "append", "s1", [userEntry(4, "after the reload")], { expectedSeq: 3, token: lease.token, ttlMs: TTL })).toBe(4);

    await ready(page, page.reload());
    expect((await loadEntries(page))!.map((entry) => entry.seq)).toEqual([1, 2, 3, 4]);
  });

  it("two tabs racing an append at the same seq: one winner, one SessionConflictError, every round", async () => {
    const [first, second] = (await tabs(2)) as [Page, Page];
    const lease = await ok<SessionLease>(first, "acquire", "s1", { owner: "writer", ttlMs: TTL });
    await ok(first, "append", "s1", [created("s1")], { expectedSeq: 0, token: lease.token, ttlMs: TTL });
    const winners: string[] = [];
    for (let seq = 2; seq <= 6; seq++) {
      const outcomes = await Promise.all([first, second].map((page, n) => rx(page, "append", "s1", [userEntry(seq, `round ${seq} tab ${n + 1}`)], { expectedSeq: seq - 1, token: lease.token, ttlMs: TTL })));
      const won = outcomes.flatMap((outcome, n) => (outcome.ok ? [n + 1] : []));
      expect(won).toHaveLength(1);
      expect(outcomes[won[0]! - 1]).toEqual({ ok: true, value: seq });
      expect(outcomes[2 - won[0]!]).toMatchObject({ ok: false, name: "SessionConflictError", fields: { expectedSeq: seq - 1, actualSeq: seq } });
      winners.push(`round ${seq} tab ${won[0]!}`);
    }
    for (const page of [first, second]) {
      const entries = (await loadEntries(page))!;
      expect(entries.map((entry) => entry.seq)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(entries.slice(1).map((entry) => (entry.type === "message" ? (entry.message as { content?: unknown }).content : undefined))).toEqual(winners);
    }
  });

  it("a takeover from the second tab fences the first: nothing it sends afterwards is written", async () => {
    const [first, second] = (await tabs(2)) as [Page, Page];
    const old = await ok<SessionLease>(first, "acquire", "s1", { owner: "tab-1", ttlMs: TTL });
    await ok(first, "append", "s1", [created("s1")], { expectedSeq: 0, token: old.token, ttlMs: TTL });
    expect(await refused(second, "acquire", "s1", { owner: "tab-2", ttlMs: TTL })).toMatchObject({ name: "SessionLeaseHeldError", fields: { owner: "tab-1", sessionId: "s1" } });
    const taken = await ok<SessionLease>(second, "acquire", "s1", { owner: "tab-2", ttlMs: TTL, takeover: true });
    expect(taken).toMatchObject({ owner: "tab-2", token: old.token + 1 });
    const fenced = await refused(first, "append", "s1", [userEntry(2, "from the fenced tab")], { expectedSeq: 1, token: old.token, ttlMs: TTL });
    expect(fenced).toMatchObject({ name: "SessionFencedError", fields: { token: old.token, currentToken: taken.token } });
    expect(fenced.message).toMatch(/was taken over by token 2/);
    expect(await ok(second, "append", "s1", [userEntry(2, "from the new owner")], { expectedSeq: 1, token: taken.token, ttlMs: TTL })).toBe(2);
    expect((await loadEntries(first))!.map((entry) => (entry.type === "message" ? (entry.message as { content?: unknown }).content : entry.type))).toEqual(["created", "from the new owner"]);
  });

  it("a newer version opened in one tab is not blocked by the other, whose store then says why it stops", async () => {
    const [first, second] = (await tabs(2)) as [Page, Page];
    const lease = await ok<SessionLease>(first, "acquire", "s1", { owner: "tab-1", ttlMs: TTL });
    await ok(first, "append", "s1", [created("s1")], { expectedSeq: 0, token: lease.token, ttlMs: TTL });
    const upgraded = await second.evaluate((db) => (window as unknown as { rxSessions: SessionsPage }).rxSessions.upgrade(db, 2), DB);
    expect(upgraded).toEqual({ blocked: false, version: 2 });
    const stopped = await refused(first, "load", "s1");
    expect(stopped.message).toMatch(/upgraded past version 1, the one this release reads/);
  });
});
