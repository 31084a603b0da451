/**
 * The Angular example on a `RemoteAgent`, end to end: the app is built once with `ng build` into
 * a temporary folder and served by the example's server in session-server mode
 * (`examples/angular/server.ts --sessions`, a child process on 127.0.0.1: the agent runs there on
 * the slowed-down demo model, journaled in a temporary `FileSessionStore` folder). The same build
 * that runs a local agent reads `/config.json` and follows session `?session=<id>`; headless
 * Chromium drives it through playwright-core, through a TCP relay the test can cut. Each case has
 * its own session and browser context. Assertions are on what the page shows, and on what the server process prints about
 * its runs.
 *
 * - A connection cut mid-stream (the relay drops it) shows in the link indicator; the page
 *   reconnects and shows the streamed answer once, as a new tab shows it (SRV2, SRV5).
 * - The server SIGKILLed while a tool runs and restarted on the same port and folder: the page
 *   reconnects to the new process and shows the continuation, every message once (SRV3, S5).
 * - Two tabs on one session: a call that needs approval opens the dialog in both; Allow in one
 *   runs it, closes both dialogs, and both show the answer (SRV1).
 * - Stop on a reconnected stream stops the run on the server (SRV1, SRV5).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../examples/angular/server.js";
import { findChromium } from "../helpers/chromium.js";
import { freePort, startSessionProcess, type SessionProcess } from "./fixtures/angular-session-process.js";
import { startCuttableProxy, type CuttableProxy } from "./fixtures/cuttable-proxy.js";

/** How the demo model's answer to "Hello" (its help text, about 230 characters) starts and ends. */
const HELLO_START = "Hello! I'm";
const HELLO_END = "the time anywhere I know.";

let outDir: string;
let store: string;
let port: number;
let base: string;
let browser: Browser | undefined;
/** Between the browser and the server: the test cuts the page's connections here. */
let relay: CuttableProxy | undefined;
/** The server now running; every process started, for afterAll. */
let server: SessionProcess;
const started: SessionProcess[] = [];
const contexts: BrowserContext[] = [];

/** The server on the same port and journal folder as ever: 150 ms between protocol events (a 230-character answer streams for about 6 s), tools at half speed. */
async function startServer(browserDir: string): Promise<SessionProcess> {
  const process = await startSessionProcess({ port, store, browserDir, delayMs: 150, toolSpeed: 2 });
  started.push(process);
  return process;
}

let browserDir: string;

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), "rxagent-angular-remote-"));
  store = mkdtempSync(join(tmpdir(), "rxagent-angular-sessions-"));
  browserDir = await buildApp(outDir);
  port = await freePort();
  server = await startServer(browserDir);
  relay = await startCuttableProxy(port);
  base = `http://127.0.0.1:${relay.port}`;
  const found = await findChromium();
  browser = await chromium.launch({ executablePath: found.executablePath, args: found.args });
}, 300_000);

afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => undefined);
  await browser?.close();
  await relay?.close();
  for (const process of started) await process.kill();
  for (const dir of [outDir, store]) if (dir) rmSync(dir, { recursive: true, force: true });
});

type TestPage = Page & { errors: string[] };

/** A fresh browser context: its own storage and connections. */
async function newContext(): Promise<BrowserContext> {
  const context = await browser!.newContext();
  contexts.push(context);
  return context;
}

/** A tab on session `session`, once its remote agent is connected. */
async function open(context: BrowserContext, session: string): Promise<TestPage> {
  const page = (await context.newPage()) as TestPage;
  page.errors = [];
  page.on("pageerror", (error) => page.errors.push(error.message));
  page.on("console", (message) => {
    // A cut connection is logged by the browser itself; anything else is the app's.
    if (message.type() === "error" && !/^Failed to load resource/.test(message.text())) page.errors.push(message.text());
  });
  await page.goto(`${base}/?session=${session}`);
  await expect.poll(() => link(page)).toBe("connected");
  return page;
}

async function send(page: Page, text: string): Promise<void> {
  await page.getByTestId("input").fill(text);
  await page.getByTestId("send").click();
}

/** The link indicator's state: connected, reconnecting, offline or refused. */
const link = (page: Page) => page.getByTestId("connection").getAttribute("data-connection");

const waitForStatus = (page: Page, status: string) => page.waitForSelector(`.status[data-status=${status}]`);

/** Waits until the answer streaming in is at least `length` characters long. */
const streamedAtLeast = (page: Page, length: number) =>
  page.waitForFunction((length) => (document.querySelector(".messages li.streaming")?.textContent!.trim().length ?? 0) >= length, length);

/** The transcript as the page shows it: `role: text`. */
const bubbles = (page: Page) =>
  page.locator(".messages li").evaluateAll((items) => items.map((li) => `${(li as HTMLElement).dataset.role}: ${li.textContent!.trim()}`));

const occurrences = (text: string, part: string) => text.split(part).length - 1;

describe("examples/angular on a RemoteAgent against the session server, in headless Chromium", () => {
  it("the connection cut mid-stream: the indicator shows it, the page reconnects and shows the answer complete and once (SRV2, SRV5)", async () => {
    const context = await newContext();
    const page = await open(context, "cut");
    expect((await page.getByTestId("connection").textContent())!.trim()).toBe("connected");
    await send(page, "Hello");
    await waitForStatus(page, "running");
    await streamedAtLeast(page, 24);

    // Cut, and kept cut until the page has shown it: its tries fail meanwhile.
    relay!.cut();
    await expect.poll(() => link(page)).toBe("reconnecting");
    expect((await page.getByTestId("connection").textContent())!.trim()).toMatch(/^reconnecting \(attempt \d+\)…$/);
    const before = (await page.locator(".messages li.streaming").textContent())!.trim();
    expect(before).not.toContain(HELLO_END); // cut mid-stream
    relay!.restore();
    await expect.poll(() => link(page)).toBe("connected");

    await waitForStatus(page, "idle");
    await page.locator(".messages li.streaming").waitFor({ state: "detached" });
    const shown = await bubbles(page);
    expect(shown).toHaveLength(2);
    expect(shown[0]).toBe("user: Hello");
    const answer = shown[1]!;
    expect(answer.startsWith(`assistant: ${HELLO_START}`)).toBe(true);
    expect(answer.endsWith(HELLO_END)).toBe(true);
    expect(occurrences(answer, HELLO_START)).toBe(1);
    expect(answer).toContain(before); // the part shown before the cut, then the rest: no gap, no repeat
    // A tab that never lost its connection shows the same transcript.
    const fresh = await open(context, "cut");
    expect(await bubbles(fresh)).toEqual(shown);
    expect([...page.errors, ...fresh.errors]).toEqual([]);
    expect(server.lines).toContain("session cut: run ended (completed)");
  }, 60_000);

  it("the server SIGKILLed while a tool runs and restarted on the same store: the page shows the continuation, every message once (SRV3, S5)", async () => {
    const context = await newContext();
    const page = await open(context, "crash");
    await send(page, "What's the weather in Tokyo?");
    const tokyo = page.locator(".tools li[data-tool=get_weather]");
    await tokyo.and(page.locator("[data-status=running]")).waitFor();

    await server.kill();
    await expect.poll(() => link(page)).toBe("reconnecting");
    expect((await page.getByTestId("connection").textContent())!.trim()).toMatch(/^reconnecting \(attempt \d+\)…$/);
    server = await startServer(browserDir);

    // The new process resumes the journal (the weather only reads: it runs again) and the page follows it.
    await page.locator(".messages li[data-role=assistant]", { hasText: "Tokyo: 24°C" }).waitFor({ timeout: 30_000 });
    await waitForStatus(page, "idle");
    await expect.poll(() => link(page)).toBe("connected");
    const shown = await bubbles(page);
    expect(shown.map((line) => line.split(":")[0])).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(shown[0]).toBe("user: What's the weather in Tokyo?");
    expect(shown[2]).toMatch(/^toolResult: Tokyo: 24°C/);
    expect(shown[3]).toBe("assistant: Tokyo: 24°C, clear skies, wind 8 km/h");
    // The new process ran the rest of the run (the old one never got to its end).
    expect(server.lines).toContain("session crash: run started");
    await server.waitForLine(/^session crash: run ended \(completed\)$/);
    expect(started[0]!.lines.filter((line) => line.startsWith("session crash:"))).toEqual(["session crash: run started"]);
    const fresh = await open(context, "crash");
    expect(await bubbles(fresh)).toEqual(shown);
    expect([...page.errors, ...fresh.errors]).toEqual([]);
  }, 90_000);

  it("two tabs on one session: the approval dialog opens in both; Allow in one closes both and both show the answer (SRV1)", async () => {
    const context = await newContext();
    const one = await open(context, "approve");
    const two = await open(context, "approve");
    await send(one, "What time is it in Tokyo?");
    for (const page of [one, two]) {
      const dialog = page.getByTestId("approval");
      await dialog.waitFor();
      expect(await dialog.textContent()).toContain("get_time");
      expect(await dialog.textContent()).toContain('{"city":"Tokyo"}');
      await waitForStatus(page, "running");
    }
    await two.getByTestId("approve").click();
    for (const page of [one, two]) {
      await page.getByTestId("approval").waitFor({ state: "detached" });
      await waitForStatus(page, "idle");
      expect((await bubbles(page)).at(-1)).toMatch(/^assistant: The time: Tokyo: /);
      expect(await page.locator(".tools li[data-tool=get_time]").getAttribute("data-status")).toBe("done");
    }
    const shown = await bubbles(one);
    expect(shown.map((line) => line.split(":")[0])).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(await bubbles(two)).toEqual(shown);
    expect([...one.errors, ...two.errors]).toEqual([]);
  }, 60_000);

  it("Stop on a reconnected stream stops the run on the server (SRV1, SRV5)", async () => {
    const context = await newContext();
    const page = await open(context, "stop");
    await send(page, "Hello");
    await streamedAtLeast(page, 12);
    relay!.cut();
    await expect.poll(() => link(page)).toBe("reconnecting");
    relay!.restore();
    await expect.poll(() => link(page)).toBe("connected");
    // Still streaming, on the new connection: the answer grows again before Stop.
    const length = (await page.locator(".messages li.streaming").textContent())!.trim().length;
    await streamedAtLeast(page, length + 6);
    await page.getByTestId("stop").click();

    await waitForStatus(page, "stopped");
    await page.locator(".messages li.streaming").waitFor({ state: "detached" });
    const stopped = page.locator(".messages li.stopped");
    expect(await stopped.count()).toBe(1);
    expect(await stopped.textContent()).toContain(HELLO_START);
    expect(await stopped.textContent()).toContain("⏹ stopped");
    expect(await stopped.textContent()).not.toContain(HELLO_END); // cut short
    expect(await page.getByTestId("stop").isDisabled()).toBe(true);
    // The server's Agent ended the run as aborted.
    await server.waitForLine(/^session stop: run ended \(aborted\)$/);
    expect(page.errors).toEqual([]);
  }, 60_000);
});
