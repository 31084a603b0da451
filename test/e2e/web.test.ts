/**
 * The web example end to end: built with Vite's JS API, served by `vite preview` on 127.0.0.1
 * (port chosen by the OS), driven in headless Chromium through playwright-core (the system's, or
 * the one inside the `@sparticuz/chromium` dev dependency: test/helpers/chromium.ts). A prompt streams text and shows tool progress; Stop aborts; a new prompt
 * works; Steer lands on the next turn; the proxy mode streams through the example proxy server;
 * the layout keeps the composer on screen and the chat at full width on a phone.
 * (Under a strict Content Security Policy: web-csp.test.ts.)
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { build, preview, type PreviewServer } from "vite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProxyServer } from "../../examples/web/proxy-server.js";
import { ROOT } from "../examples/support.js";
import { findChromium } from "../helpers/chromium.js";

const CONFIG = join(ROOT, "examples/web/vite.config.ts");

let outDir: string;
let server: PreviewServer;
let proxy: { server: Server; url: string };
let proxyRequests = 0;
let browser: Browser;
let base: string;

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), "rxagent-web-"));
  await build({ configFile: CONFIG, logLevel: "silent", build: { outDir, emptyOutDir: true } });
  proxy = await startProxyServer({ port: 0, token: "e2e-token", env: {} });
  proxy.server.on("request", () => proxyRequests++);
  process.env.PROXY_TARGET = proxy.url;
  server = await preview({ configFile: CONFIG, logLevel: "silent", build: { outDir }, preview: { host: "127.0.0.1", port: 0, strictPort: false } });
  base = server.resolvedUrls!.local[0]!;
  const found = await findChromium();
  browser = await chromium.launch({ executablePath: found.executablePath, args: found.args });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await new Promise<void>((resolve) => (proxy ? proxy.server.close(() => resolve()) : resolve()));
  delete process.env.PROXY_TARGET;
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

async function open(query = "", viewport?: { width: number; height: number }): Promise<Page> {
  const page = await browser.newPage(viewport ? { viewport } : {});
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  (page as Page & { errors: string[] }).errors = errors;
  await page.goto(`${base}${query}`);
  await page.getByTestId("input").waitFor();
  return page;
}

async function send(page: Page, text: string): Promise<void> {
  await page.getByTestId("input").fill(text);
  await page.getByTestId("send").click();
}

const status = (page: Page) => page.getByTestId("status").getAttribute("data-status");

/** Sends `text` and waits until the run is over and an assistant bubble says `answer`. */
async function exchange(page: Page, text: string, answer: string): Promise<void> {
  const before = await page.locator("#messages li.assistant").count();
  await send(page, text);
  await page.waitForFunction(
    ({ before, answer }) => {
      const bubbles = Array.from(document.querySelectorAll("#messages li.assistant:not(.streaming)"));
      return bubbles.length > before && bubbles.slice(before).some((li) => li.textContent!.includes(answer)) && document.getElementById("status")!.dataset.status === "idle";
    },
    { before, answer },
  );
}

interface Box {
  top: number;
  bottom: number;
  left: number;
  right: number;
  width: number;
}

const box = (page: Page, selector: string): Promise<Box> =>
  page.locator(selector).last().evaluate((element) => {
    const { top, bottom, left, right, width } = element.getBoundingClientRect();
    return { top, bottom, left, right, width };
  });

/** Whether the list is scrolled to (within a pixel of) its end. */
const atBottom = (page: Page) => page.locator("#messages").evaluate((list) => list.scrollHeight - list.scrollTop - list.clientHeight <= 1);

describe("examples/web in headless Chromium", () => {
  it("the production bundle has no Node-only API (the core, the demo model and its tools are browser-safe)", () => {
    const assets = readdirSync(join(outDir, "assets")).filter((file) => file.endsWith(".js"));
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) {
      const code = readFileSync(join(outDir, "assets", asset), "utf8");
      expect(code).not.toMatch(/["']node:[a-z]/);
      expect(code).not.toMatch(/\bprocess\.(env|argv|stdout)\b/);
      expect(code).not.toMatch(/\brequire\(["']fs["']\)/);
    }
  });

  it("streams text, shows tool progress, Stop aborts, then a new prompt works", async () => {
    const page = await open();
    expect(await page.getByTestId("mode").textContent()).toContain("demo model");
    // Record every length the streaming assistant bubble goes through.
    await page.evaluate(() => {
      const lengths: number[] = [];
      (window as unknown as { lengths: number[] }).lengths = lengths;
      new MutationObserver(() => {
        const live = document.querySelector("#messages li.assistant.streaming .text");
        if (live) lengths.push(live.textContent!.length);
      }).observe(document.getElementById("messages")!, { childList: true, subtree: true, characterData: true });
    });

    await send(page, "What's the weather in Paris, Tokyo and Oslo?");
    await page.waitForFunction(() => document.getElementById("status")!.dataset.status === "running");

    // Tool rows appear, and progress moves while they run.
    await page.locator("#tools li[data-tool=get_weather]").nth(2).waitFor();
    await page.waitForSelector("#tools li[data-status=running][data-progress='50']");
    const runningProgress = await page.locator("#tools li[data-status=running] progress").first().evaluate((bar) => (bar as HTMLProgressElement).value);
    expect(runningProgress).toBeGreaterThan(0);
    expect(runningProgress).toBeLessThan(1);
    expect(await page.locator("#pending").textContent()).not.toBe("0");

    // The text was streamed: the live bubble grew through several lengths.
    const lengths = await page.evaluate(() => (window as unknown as { lengths: number[] }).lengths);
    expect(new Set(lengths).size).toBeGreaterThan(3);
    expect(await page.locator("#messages li.assistant").first().textContent()).toContain("I'll check the weather in Paris, Tokyo and Oslo");

    // Stop while Tokyo (the slowest) still runs.
    expect(await page.locator("#tools li[data-status=running]").count()).toBeGreaterThan(0);
    await page.getByTestId("stop").click();
    await page.waitForFunction(() => document.getElementById("status")!.dataset.status === "aborted");
    expect(await page.locator("#tools li[data-status=aborted]").count()).toBeGreaterThan(0);
    expect(await page.locator("#tools li[data-status=running]").count()).toBe(0);
    expect(await page.locator("#messages li.assistant.aborted").count()).toBe(1);
    expect(await page.locator("#isStreaming").textContent()).toBe("false");
    expect(await page.getByTestId("stop").isDisabled()).toBe(true);
    expect(await page.getByTestId("send").isDisabled()).toBe(false);

    // Another prompt after the abort.
    await send(page, "What is 6 * 7?");
    await page.waitForFunction(() => Array.from(document.querySelectorAll("#messages li.assistant")).some((li) => li.textContent!.includes("6 * 7 = 42")));
    await page.waitForFunction(() => document.getElementById("status")!.dataset.status === "idle");
    expect(await page.locator("#tools li[data-tool=calculate][data-status=done]").count()).toBe(1);
    expect((page as Page & { errors: string[] }).errors).toEqual([]);
    await page.close();
  });

  it("Steer: a message sent while tools run is answered on the next turn", async () => {
    const page = await open();
    await send(page, "What's the weather in Paris and Oslo?");
    await page.waitForSelector("#tools li[data-tool=get_weather][data-status=running]");
    await page.getByTestId("input").fill("Also, what is 2 + 3?");
    await page.getByTestId("steer").click();
    await page.waitForFunction(() => document.getElementById("status")!.dataset.status === "idle");
    const bubbles = await page.locator("#messages li").evaluateAll((items) => items.map((li) => `${(li as HTMLElement).dataset.role}: ${li.textContent}`));
    const steer = bubbles.findIndex((b) => b === "user: Also, what is 2 + 3?");
    const firstResult = bubbles.findIndex((b) => b.startsWith("toolResult: Paris"));
    expect(steer).toBeGreaterThan(firstResult); // after the batch's results
    expect(bubbles.slice(steer).join("\n")).toContain("2 + 3 = 5");
    expect(bubbles.slice(steer).join("\n")).toContain("Oslo: 6°C");
    await page.close();
  });

  it("proxy mode: streams through the example proxy server; a wrong token is a readable error", async () => {
    const page = await open("?proxy=/api/stream&token=e2e-token");
    expect(await page.getByTestId("mode").textContent()).toContain("through the proxy at /api/stream");
    const before = proxyRequests;
    await send(page, "What is 2 ^ 8?");
    await page.waitForFunction(() => Array.from(document.querySelectorAll("#messages li.assistant")).some((li) => li.textContent!.includes("2 ^ 8 = 256")));
    await page.waitForFunction(() => document.getElementById("status")!.dataset.status === "idle");
    expect(proxyRequests - before).toBe(2); // the tool call, then the answer
    await page.close();

    const denied = await open("?proxy=/api/stream&token=wrong");
    await send(denied, "hello");
    await denied.waitForFunction(() => document.getElementById("status")!.dataset.status === "error");
    expect(await denied.locator("#messages li.assistant.error").textContent()).toMatch(/Proxy error: HTTP 401.*Invalid access token/);
    await denied.close();
  });

  it("layout at 1280×900: after 5 exchanges the input is on screen and the message list scrolls, following new messages", async () => {
    const page = await open("?delay=1&speed=0.1", { width: 1280, height: 900 });
    await exchange(page, "What's the weather in Paris, Tokyo and Oslo?", "Here's what I found");
    await exchange(page, "What is (17 + 4) * 23?", "(17 + 4) * 23 = 483");
    await exchange(page, "What's the weather in London, Berlin and Cairo?", "Cairo: 33°C");
    await exchange(page, "What is 6 * 7 and what is 2 ^ 10?", "2 ^ 10 = 1024");
    await exchange(page, "What's the weather in Sydney and Mumbai?", "Mumbai: 31°C");

    const input = await box(page, "#input");
    expect(input.top).toBeGreaterThanOrEqual(0);
    expect(input.bottom).toBeLessThanOrEqual(900);
    expect(input.right).toBeLessThanOrEqual(1280);
    expect(await page.getByTestId("send").isVisible()).toBe(true);
    const sizes = await page.locator("#messages").evaluate((list) => ({ scrollHeight: list.scrollHeight, clientHeight: list.clientHeight }));
    expect(sizes.scrollHeight).toBeGreaterThan(sizes.clientHeight);
    // The page itself does not scroll: only the list does.
    expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThanOrEqual(900);
    // The last message is inside the list's visible area.
    const list = await box(page, "#messages");
    const last = await box(page, "#messages li");
    expect(last.bottom).toBeLessThanOrEqual(list.bottom + 1);
    expect(last.top).toBeGreaterThanOrEqual(list.top - 1);
    expect(await page.locator("#messages li").last().textContent()).toContain("Mumbai: 31°C");
    expect(await atBottom(page)).toBe(true);

    // Scrolled up to read: a new message does not pull the list down...
    await send(page, "What's the weather in Tokyo?");
    await page.waitForSelector("#tools li[data-tool=get_weather][data-status=running]");
    await page.locator("#messages").evaluate((element) => (element.scrollTop = 0));
    await page.waitForFunction(() => Array.from(document.querySelectorAll("#messages li.assistant")).some((li) => li.textContent!.startsWith("Tokyo: 24°C")));
    await page.waitForFunction(() => document.getElementById("status")!.dataset.status === "idle");
    expect(await page.locator("#messages").evaluate((element) => element.scrollTop)).toBe(0);
    // ...and sending again brings it back to the newest message.
    await exchange(page, "What is 1 + 1?", "1 + 1 = 2");
    expect(await atBottom(page)).toBe(true);
    expect((page as Page & { errors: string[] }).errors).toEqual([]);
    await page.close();
  });

  it("layout at 400×800: the chat column takes the full width, the tools stack below, the input stays visible", async () => {
    const page = await open("?delay=1&speed=0.1", { width: 400, height: 800 });
    await exchange(page, "What's the weather in Paris, Tokyo and Oslo?", "Here's what I found");
    await exchange(page, "What's the weather in London, Berlin and Cairo?", "Cairo: 33°C");
    await exchange(page, "What is (17 + 4) * 23?", "(17 + 4) * 23 = 483");

    const chat = await box(page, ".chat");
    expect(chat.width).toBeGreaterThanOrEqual(360);
    expect(chat.right).toBeLessThanOrEqual(400);
    const input = await box(page, "#input");
    expect(input.top).toBeGreaterThanOrEqual(0);
    expect(input.bottom).toBeLessThanOrEqual(800);
    expect(input.width).toBeGreaterThanOrEqual(340);
    expect(await page.getByTestId("send").isVisible()).toBe(true);
    // The tool panel is below the chat, not beside it, and still on the page.
    const tools = await box(page, "aside");
    expect(tools.top).toBeGreaterThanOrEqual(chat.bottom);
    expect(tools.bottom).toBeLessThanOrEqual(800);
    // Nothing wider than the screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(400);
    expect((page as Page & { errors: string[] }).errors).toEqual([]);
    await page.close();
  });
});
