/**
 * `rxagent/mcp` in headless Chromium (SPEC MCP3, MCP4): the page in test/e2e/fixtures/mcp-browser
 * imports the MCP entry from src, is built with Vite and served by `vite preview` on 127.0.0.1,
 * and talks Streamable HTTP to `@modelcontextprotocol/server-everything`, started by this file
 * on another port. The page's origin is not the server's: the browser lets the requests through
 * because the server answers CORS (it allows any origin and exposes `mcp-session-id`), as a
 * server meant for browser clients has to.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CANCEL_REASON } from "../../src/mcp/mcp-tool.js";
import { ROOT } from "../examples/support.js";
import { serveFixture } from "../helpers/served-fixture.js";
import { startEverythingHttp, type HttpEverything } from "../mcp/servers.js";
import type { McpPage, PageAbort, PageRun, PageStops } from "./fixtures/mcp-browser/main.js";

const served = serveFixture(join(ROOT, "test/e2e/fixtures/mcp-browser"));
let server: HttpEverything;

beforeAll(async () => {
  server = await startEverythingHttp();
}, 30_000);

afterAll(async () => {
  await server?.stop();
});

async function page(): Promise<Page> {
  const [opened] = (await served.pages(1)) as [Page];
  await opened.goto(served.url);
  await opened.waitForFunction(() => document.getElementById("status")?.textContent === "ready");
  return opened;
}

describe("the MCP client in headless Chromium", () => {
  it("the page bundle has the MCP client and no Node-only API", () => {
    const assets = readdirSync(join(served.outDir, "assets")).filter((file) => file.endsWith(".js"));
    const code = assets.map((asset) => readFileSync(join(served.outDir, "assets", asset), "utf8")).join("\n");
    expect(code).toMatch(/notifications\/tools\/list_changed/);
    expect(code).not.toMatch(/["']node:[a-z]/);
    expect(code).not.toMatch(/child_process|cross-spawn/);
  });

  it("MCP3 · an Agent in the page calls the server's tools in parallel over Streamable HTTP, with progress, across origins", async () => {
    const opened = await page();
    const run = await opened.evaluate((url) => (window as unknown as { rxMcp: McpPage }).rxMcp.run(url), server.url) as PageRun;
    expect(new URL(run.origin).port).not.toBe(new URL(server.url).port);
    expect(run.tools).toEqual(expect.arrayContaining(["echo", "get-sum", "trigger-long-running-operation", "get-tiny-image"]));
    expect(run.progress.length).toBeGreaterThanOrEqual(3);
    expect(run.progress).toEqual([0.25, 0.5, 0.75, 1].slice(0, run.progress.length));
    expect(run.ended.at(-1)).toBe("long");
    expect(run.results).toEqual([
      { id: "long", text: "Long running operation completed. Duration: 1 seconds, Steps: 4.", isError: false, blocks: ["text"] },
      { id: "echo", text: "Echo: from the browser", isError: false, blocks: ["text"] },
      { id: "sum", text: "The sum of 19 and 23 is 42.", isError: false, blocks: ["text"] },
      { id: "image", text: "Here's the image you requested:\nThe image above is the MCP logo.", isError: false, blocks: ["text", "image", "text"] },
    ]);
    expect(run.errorMessage).toBeUndefined();
    expect(run.stopReason).toBe("stop");
    expect(server.log()).toContain(`Session initialized with ID: ${run.sessionId}`);
    expect(server.log()).toContain(`Received session termination request for session ${run.sessionId}`);
  });

  it("MCP4 · agent.abort() in the page cancels the call: the cancellation is sent, the call's stream is closed (nothing more of it arrives), and the server answers the next call", async () => {
    const opened = await page();
    const aborted = await opened.evaluate((url) => (window as unknown as { rxMcp: McpPage }).rxMcp.abortMidCall(url), server.url) as PageAbort;
    expect(aborted.result).toEqual({ id: "long", text: "Operation aborted", isError: true, blocks: ["text"] });
    expect(aborted.stopReason).toBe("aborted");
    expect(aborted.cancelled).toEqual({ requestId: expect.any(Number), reason: CANCEL_REASON });
    expect(aborted.progressAfterCancel).toBe(0);
    expect(aborted.answered).toBe(false);
    expect(aborted.echoAfter).toBe("Echo: still here");
  });

  it("MCP4 · Stop pressed seven times mid-call: each cancelled call gives its connection back, so the browser's six per server never run out", async () => {
    const opened = await page();
    const stops = await opened.evaluate((url) => (window as unknown as { rxMcp: McpPage }).rxMcp.stopPresses(url, 7), server.url) as PageStops;
    expect(stops.running).toEqual([true, true, true, true, true, true, true]);
    expect(stops.results.every((result) => result.text === "Operation aborted" && result.isError)).toBe(true);
    expect(stops.echoAfter).toBe("Echo: still here");
  });
});
