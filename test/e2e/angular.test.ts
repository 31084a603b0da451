/**
 * The Angular example end to end: `ng build` (the `@angular/build:application` builder) into a
 * temporary folder, served with `/api/stream` from one server on 127.0.0.1 (the example's
 * server: the node proxy adapter in front of the demo model, streaming slowly), driven in
 * headless Chromium through playwright-core. The app is built on rxagent/angular
 * (`provideAgent`, `injectAgent`). Text streams in through the streaming-text signal, Stop aborts
 * mid-stream (and the server's upstream request with it), a new prompt works, steering sent
 * while a tool runs is shown as queued and lands on the next turn, the tool panel and the turn
 * counter follow, a call that needs approval opens a dialog, and the page reads at 400 px wide
 * with the composer pinned at the bottom. Assertions are on what the page shows.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoModel } from "../../demo/demo-model.js";
import { APP_DIR, buildApp, startAppServer } from "../../examples/angular/server.js";
import type { StreamFn } from "../../src/index.js";
import { ROOT } from "../examples/support.js";
import { findChromium } from "../helpers/chromium.js";

/** How the demo model's answer to "Hello" (its help text, about 230 characters) starts and ends. */
const HELLO_START = "Hello! I'm";
const HELLO_END = "the time anywhere I know.";

let outDir: string;
let browserDir: string;
let buildMs = 0;
let server: Server | undefined;
let base: string;
let browser: Browser | undefined;
/** The abort signal of every upstream request the server made, in order. */
const upstream: (AbortSignal | undefined)[] = [];

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), "rxagent-angular-"));
  const started = Date.now();
  browserDir = await buildApp(outDir, ["--stats-json"]);
  buildMs = Date.now() - started;
  // 60 ms between protocol events of 6 characters: a 230-character reply streams for over 2 s.
  const model = demoModel({ delayMs: 60 });
  const streamFn: StreamFn = (m, context, options) => {
    upstream.push(options.signal);
    return model(m, context, options);
  };
  const app = await startAppServer({ browserDir, port: 0, streamFn });
  server = app.server;
  base = app.url;
  const found = await findChromium();
  browser = await chromium.launch({ executablePath: found.executablePath, args: found.args });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  if (server) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server!.close(() => resolve()));
  }
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

type TestPage = Page & { errors: string[] };

async function open(viewport?: { width: number; height: number }): Promise<TestPage> {
  const page = (await browser!.newPage(viewport ? { viewport } : {})) as TestPage;
  page.errors = [];
  page.on("pageerror", (error) => page.errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") page.errors.push(message.text());
  });
  await page.goto(base);
  await page.getByTestId("input").waitFor();
  return page;
}

async function send(page: Page, text: string): Promise<void> {
  await page.getByTestId("input").fill(text);
  await page.getByTestId("send").click();
}

const waitForStatus = (page: Page, status: string) => page.waitForSelector(`.status[data-status=${status}]`);

/** The transcript as the page shows it: `role: text`. */
const bubbles = (page: Page) =>
  page.locator(".messages li").evaluateAll((items) => items.map((li) => `${(li as HTMLElement).dataset.role}: ${li.textContent!.trim()}`));

describe("examples/angular built with ng build, in headless Chromium", () => {
  it("ng build emitted the app: index.html with <app-chat>, hashed ES modules, rxagent from src/ and no zone.js", () => {
    console.log(`ng build took ${(buildMs / 1000).toFixed(1)} s`);
    const index = readFileSync(join(browserDir, "index.html"), "utf8");
    expect(index).toContain("<app-chat></app-chat>");
    const scripts = [...index.matchAll(/<script src="([^"]+)" type="module">/g)].map((match) => match[1]!);
    expect(scripts).toEqual([expect.stringMatching(/^main-[A-Z0-9]+\.js$/)]);
    const files = readdirSync(browserDir);
    expect(files.some((file) => /^polyfills/.test(file))).toBe(false); // zoneless: no zone.js bundle
    const code = files.filter((file) => file.endsWith(".js")).map((file) => readFileSync(join(browserDir, file), "utf8")).join("\n");
    expect(code).toContain("rxagent AGENT"); // rxagent/angular's token
    expect(code).not.toMatch(/["']node:[a-z]/);
    // The bundle's inputs (esbuild's metafile): "rxagent/proxy" came from src/ through the
    // tsconfig's paths, not from a built dist/; no zone.js anywhere.
    const stats = JSON.parse(readFileSync(join(outDir, "stats.json"), "utf8")) as { inputs: Record<string, unknown> };
    const inputs = Object.keys(stats.inputs).map((input) => relative(ROOT, resolve(APP_DIR, input))); // from the workspace to the repository
    expect(inputs).toContain("examples/angular/src/app/app.config.ts");
    expect(inputs).toContain("src/providers/proxy/stream-proxy.ts");
    expect(inputs).toContain("src/angular/inject-agent.ts"); // "rxagent/angular" too
    expect(inputs.filter((input) => /^dist\/|zone\.js/.test(input))).toEqual([]);
  });

  it("streams text through the streaming-text signal; Stop aborts mid-stream; then a new prompt works", async () => {
    const page = await open();
    expect(await page.locator(".status").textContent()).toBe("idle");
    // The agent runs in the page: the link indicator says connected.
    expect(await page.getByTestId("connection").getAttribute("data-connection")).toBe("connected");
    expect((await page.getByTestId("connection").textContent())!.trim()).toBe("connected");
    // Every length the streaming bubble (the signal's binding) goes through.
    await page.evaluate(() => {
      const lengths: number[] = [];
      (window as unknown as { lengths: number[] }).lengths = lengths;
      new MutationObserver(() => {
        const live = document.querySelector(".messages li.streaming");
        if (live) lengths.push(live.textContent!.trim().length);
      }).observe(document.querySelector(".messages")!, { childList: true, subtree: true, characterData: true });
    });

    const requestsBefore = upstream.length;
    await send(page, "Hello");
    await waitForStatus(page, "running");
    expect(await page.getByTestId("send").textContent()).toBe("Steer");
    // Wait for four deltas or so, then stop long before the end of the reply.
    await page.waitForFunction(() => (document.querySelector(".messages li.streaming")?.textContent!.trim().length ?? 0) >= 24);
    await page.getByTestId("stop").click();

    await waitForStatus(page, "stopped");
    await page.locator(".messages li.streaming").waitFor({ state: "detached" });
    const stopped = page.locator(".messages li.stopped");
    expect(await stopped.count()).toBe(1);
    const partial = (await stopped.textContent())!;
    expect(partial).toContain(HELLO_START);
    expect(partial).toContain("⏹ stopped");
    expect(partial).not.toContain(HELLO_END); // cut short
    expect(await page.getByTestId("stop").isDisabled()).toBe(true);
    expect(await page.getByTestId("send").textContent()).toBe("Send");
    // The text arrived in pieces: the bubble went through several lengths.
    const lengths = await page.evaluate(() => (window as unknown as { lengths: number[] }).lengths);
    expect(new Set(lengths.filter((n) => n > 0)).size).toBeGreaterThan(3);
    // Stop reached the server: the upstream request was aborted (when the connection closed).
    expect(upstream.length).toBe(requestsBefore + 1);
    await expect.poll(() => upstream.at(-1)?.aborted).toBe(true);

    // A new prompt after the stop: a tool call, then the answer.
    await send(page, "What is 6 * 7?");
    await page.waitForFunction(() => Array.from(document.querySelectorAll(".messages li[data-role=assistant]")).some((li) => li.textContent!.includes("6 * 7 = 42")));
    await waitForStatus(page, "idle");
    expect(await page.locator(".tools li[data-tool=calculate][data-status=done]").textContent()).toContain("6 * 7 = 42");
    expect(await page.locator(".turns").textContent()).toBe("2");
    expect(await page.locator(".messages li.stopped").count()).toBe(1); // the stopped answer stays in the transcript
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it("steering sent while a tool runs is shown queued, then lands on the next turn; the tool panel and turn counter follow", async () => {
    const page = await open();
    await send(page, "What's the weather in Tokyo?");
    // The tool panel (injectAgent's toolCalls signal) shows the tool running, with progress.
    const tokyo = page.locator(".tools li[data-tool=get_weather]");
    await tokyo.and(page.locator("[data-status=running]")).waitFor();
    await page.waitForFunction(() => {
      const bar = document.querySelector<HTMLProgressElement>(".tools li[data-tool=get_weather][data-status=running] progress");
      return bar !== null && bar.value > 0 && bar.value < 1;
    });
    expect(await page.locator(".turns").textContent()).toBe("1");
    // The model's message had only the tool call's intro; while the tool runs there is no live (empty) bubble.
    expect(await page.locator(".messages li.streaming").count()).toBe(0);

    // Steer while Tokyo's weather is still being fetched: shown as queued until it lands.
    await send(page, "Also, what is 2 + 3?");
    const queued = page.locator(".queued li[data-kind=steering]");
    await queued.waitFor();
    expect(await queued.textContent()).toContain("Also, what is 2 + 3?");
    expect(await tokyo.getAttribute("data-status")).toBe("running"); // it was sent mid-tool
    await waitForStatus(page, "idle");
    expect(await page.locator(".queued li").count()).toBe(0); // it landed

    const lines = await bubbles(page);
    const result = lines.findIndex((line) => line.startsWith("toolResult: Tokyo: 24°C"));
    const steer = lines.indexOf("user: Also, what is 2 + 3?");
    expect(result).toBeGreaterThan(0);
    expect(steer).toBe(result + 1); // after the tool batch, opening the next turn
    expect(lines.slice(steer + 1).join("\n")).toContain("2 + 3 = 5");
    expect(lines.at(-1)).toMatch(/^assistant: .*2 \+ 3 = 5/s);
    expect(await page.locator(".turns").textContent()).toBe("3"); // the tool turn, the steered turn, the answer
    expect(await page.locator(".tools li").evaluateAll((rows) => rows.map((row) => `${(row as HTMLElement).dataset.tool} ${(row as HTMLElement).dataset.status}`))).toEqual([
      "get_weather done",
      "calculate done",
    ]);
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it("at 400 px wide: nothing overflows, the composer stays at the bottom, and a call that needs approval opens a dialog", async () => {
    const page = await open({ width: 400, height: 700 });
    const fits = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
    const composerBottom = async () => (await page.locator("form.composer").boundingBox())!;
    expect(await fits()).toBe(true);
    let box = await composerBottom();
    expect(box.y + box.height).toBeCloseTo(700, 0);

    // The clock needs approval: the dialog names the tool and its arguments; the panel shows it waiting.
    await send(page, "What time is it in Tokyo?");
    const dialog = page.getByTestId("approval");
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain("get_time");
    expect(await dialog.textContent()).toContain('{"city":"Tokyo"}');
    expect(await page.locator(".tools li[data-tool=get_time]").getAttribute("data-status")).toBe("awaiting-approval");
    expect(await page.getByTestId("send").textContent()).toBe("Steer"); // the run waits, it has not ended
    expect(await fits()).toBe(true);
    await page.getByTestId("approve").click();
    await dialog.waitFor({ state: "detached" });
    await waitForStatus(page, "idle");
    expect((await bubbles(page)).at(-1)).toMatch(/^assistant: The time: Tokyo: /);
    expect(await page.locator(".tools li[data-tool=get_time]").getAttribute("data-status")).toBe("done");

    // Denied: the model is told why.
    await send(page, "What time is it in Oslo?");
    await dialog.waitFor();
    await page.getByTestId("deny").click();
    await waitForStatus(page, "idle");
    expect((await bubbles(page)).at(-1)).toMatch(/^assistant: get_time failed: .*The user said no\./s);

    // A long transcript scrolls inside; the composer stays pinned and the page as wide as the window.
    expect(await fits()).toBe(true);
    box = await composerBottom();
    expect(box.y + box.height).toBeCloseTo(700, 0);
    expect(page.errors).toEqual([]);
    await page.close();
  });
});
