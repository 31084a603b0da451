/**
 * A reload mid-run, in real Chromium (SPEC S5): the page in test/e2e/fixtures/session-reload
 * keeps its Agent's session in IndexedDB and calls `resume()` on load. It is built with Vite's
 * JS API into a temp dir, served by `vite preview` on 127.0.0.1 and driven through
 * playwright-core; each case has a browser context of its own, so IndexedDB and localStorage
 * start empty.
 *
 * Reloaded while its tools run, the page shows the transcript from before at once, finishes the
 * run with one result per call — the `replay: "safe"` tool run again, the `replay: "never"` one
 * answered as interrupted and never run twice — and does not prompt again; reloaded once idle,
 * it shows the same transcript and starts nothing. Reloaded while an answer streams, the
 * partial answer is gone after the reload, and the answer is asked for again and completes.
 */
import { join } from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { INTERRUPTED_TOOL_TEXT } from "../../src/session/resume-plan.js";
import { ROOT } from "../examples/support.js";
import { serveFixture } from "../helpers/served-fixture.js";
import type { ReloadPage } from "./fixtures/session-reload/main.js";
import type { Screen, ScreenItem } from "./fixtures/session-reload/render.js";
import { answerFrom, INTRO, PROMPT } from "./fixtures/session-reload/reply-script.js";

const FIXTURE = join(ROOT, "test/e2e/fixtures/session-reload");

const served = serveFixture(FIXTURE);

/** The page in a fresh context: a new origin storage, so a new IndexedDB and localStorage. */
async function openPage(): Promise<Page> {
  const [page] = await served.pages(1);
  await page!.goto(served.url);
  return page!;
}

type Hooks = { __reload?: ReloadPage };

const screen = (page: Page): Promise<Screen> => page.evaluate(() => (window as Hooks).__reload!.screen());

/** The page's hooks, as plain data: what this load saw. */
const loadStats = (page: Page) =>
  page.evaluate(() => {
    const hooks = (window as Hooks).__reload!;
    return { events: hooks.events, requests: hooks.requests, idle: hooks.idle, renders: hooks.renders, runs: hooks.runs() };
  });

const whenIdle = (page: Page): Promise<void> => page.evaluate(() => (window as Hooks).__reload!.whenIdle);

/** Reloads, then waits until this load's page shows at least `count` committed messages. */
async function reloadUntilShown(page: Page, count: number): Promise<void> {
  await page.reload();
  await page.waitForFunction((count) => ((window as Hooks).__reload?.screen().committed.length ?? 0) >= count, count, { polling: 5 });
}

const roles = (items: readonly ScreenItem[]) => items.map((item) => item.role);

/** What the final answer says about the tool results on screen, in their order. */
const expectedAnswer = (items: readonly ScreenItem[]) =>
  answerFrom(items.filter((item) => item.role === "toolResult").map((item) => ({ toolName: item.toolName!, text: item.text, isError: item.isError! })));

/** The run's transcript on screen once it is over: one prompt, every call answered exactly once, the answer complete. */
function expectFinished(shown: Screen): void {
  const { committed } = shown;
  expect(shown.streaming).toBeNull();
  expect(shown.pending).toEqual([]);
  expect(committed.filter((item) => item.role === "user")).toEqual([{ role: "user", text: PROMPT }]);
  const calls = committed.flatMap((item) => item.calls ?? []).map((call) => call.split(":")[1]!);
  expect(calls).toEqual(["call-lookup", "call-send"]);
  expect(committed.filter((item) => item.role === "toolResult").map((item) => item.callId).sort()).toEqual([...calls].sort());
  expect(roles(committed)).toEqual(["user", "assistant", "toolResult", "toolResult", "assistant"]);
  expect(committed[4]!.text).toBe(expectedAnswer(committed));
}

/** Reloads an idle page: the same transcript is back, and nothing runs, asks the model or writes to the journal. */
async function expectIdleReload(page: Page, finished: Screen): Promise<void> {
  const journal = await page.evaluate(() => (window as Hooks).__reload!.journal());
  const runs = (await loadStats(page)).runs;
  await reloadUntilShown(page, finished.committed.length);
  await whenIdle(page);
  expect(await screen(page)).toEqual(finished);
  const stats = await loadStats(page);
  expect(stats).toMatchObject({ events: 0, requests: [], idle: true, runs });
  expect(stats.renders.every((render) => render.streaming === null && render.pending.length === 0)).toBe(true);
  expect(await page.evaluate(() => (window as Hooks).__reload!.journal())).toEqual(journal);
}

describe("a durable session in headless Chromium, across page reloads", () => {
  it("reloaded while its tools run: the transcript is back at once, the run finishes, every call answered once, nothing prompted or sent twice", async () => {
    const page = await openPage();
    // Inside `execute`: each call's tool_started entry is on record (SPEC S6).
    await page.waitForFunction(() => (window as Hooks).__reload?.executing.length === 2, undefined, { polling: 5 });
    const before = await screen(page);
    expect(before.committed).toEqual([
      { role: "user", text: PROMPT },
      { role: "assistant", text: INTRO, calls: ["lookup_order:call-lookup", "send_receipt:call-send"] },
    ]);
    expect(before.pending.sort()).toEqual(["call-lookup", "call-send"]);

    await reloadUntilShown(page, before.committed.length);
    // Read at once: the resumed lookup takes 300 ms and the answer streams for a second after it.
    const early = await screen(page);
    const resuming = await loadStats(page);
    expect(early.committed.slice(0, before.committed.length)).toEqual(before.committed);
    expect(early.committed.filter((item) => item.role === "assistant")).toHaveLength(1);
    expect(resuming.idle).toBe(false);
    // The first render that shows anything shows exactly what was committed before the reload.
    expect(resuming.renders.find((render) => render.committed.length > 0)).toEqual({ committed: before.committed, streaming: null, pending: [] });

    await whenIdle(page);
    const finished = await screen(page);
    expectFinished(finished);
    const results = Object.fromEntries(finished.committed.filter((item) => item.role === "toolResult").map((item) => [item.callId!, item]));
    // "safe": run again, with its real result; "never": answered without running it again.
    expect(results["call-lookup"]).toMatchObject({ isError: false, text: "order A-1042: shipped on Monday, 2 items" });
    expect(results["call-send"]).toMatchObject({ isError: true, text: INTERRUPTED_TOOL_TEXT });
    const stats = await loadStats(page);
    expect(stats.runs).toEqual({ lookup_order: { "call-lookup": 2 }, send_receipt: { "call-send": 1 } });
    // The first reply was committed, so the resumed run only asks for the answer.
    expect(stats.requests).toEqual([["system", "user", "assistant", "toolResult", "toolResult"]]);
    expect(stats.events).toBeGreaterThan(0);

    await expectIdleReload(page, finished);
  });

  it("reloaded while the answer streams: the partial answer is gone, the answer is asked for again and completes", async () => {
    const page = await openPage();
    // Both results committed and a good part of the answer on screen, but not all of it.
    await page.waitForFunction(
      () => {
        const shown = (window as Hooks).__reload?.screen();
        return !!shown && shown.committed.filter((item) => item.role === "toolResult").length === 2 && (shown.streaming?.length ?? 0) >= 40;
      },
      undefined,
      { polling: 5 },
    );
    const before = await screen(page);
    const partial = before.streaming!;
    expect(roles(before.committed)).toEqual(["user", "assistant", "toolResult", "toolResult"]);
    const answer = expectedAnswer(before.committed);
    expect(answer.startsWith(partial) && partial.length < answer.length).toBe(true);

    await reloadUntilShown(page, before.committed.length);
    const early = await screen(page);
    const resuming = await loadStats(page);
    expect(early.committed).toEqual(before.committed);
    expect(resuming.idle).toBe(false);
    // Nothing of the partial survived the reload: the first render shows the committed messages alone.
    expect(resuming.renders.find((render) => render.committed.length > 0)).toEqual({ committed: before.committed, streaming: null, pending: [] });
    const journal = await page.evaluate(() => (window as Hooks).__reload!.journal());
    const journaled = journal.flatMap((entry) => (entry.type === "message" && (entry.message as { role?: string }).role === "assistant" ? [entry.message] : []));
    expect(journaled).toHaveLength(1);

    await whenIdle(page);
    const finished = await screen(page);
    expectFinished(finished);
    expect(finished.committed.slice(0, 4)).toEqual(before.committed);
    expect(finished.committed[4]!.text).toBe(answer);
    const stats = await loadStats(page);
    // The message is requested again, from the same transcript; no tool ran again.
    expect(stats.requests).toEqual([["system", "user", "assistant", "toolResult", "toolResult"]]);
    expect(stats.runs).toEqual({ lookup_order: { "call-lookup": 1 }, send_receipt: { "call-send": 1 } });
    expect(finished.committed.filter((item) => item.role === "toolResult").map((item) => item.isError)).toEqual([false, false]);

    await expectIdleReload(page, finished);
  });
});
