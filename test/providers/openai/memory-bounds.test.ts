/**
 * The OpenAI-compatible provider against hostile servers on 127.0.0.1 that never stop: a line
 * without an end, valid deltas forever, one event of endless `data:` lines, huge error and
 * JSON bodies. Each ends with a non-retryable protocol error (or the HTTP status), the request
 * is cancelled (the server sees the connection close), the memory of this process stays
 * bounded, and an agent run over it still ends.
 */
import { afterEach, describe, expect, it } from "vitest";
import { lastValueFrom, reduce, toArray } from "rxjs";
import { openaiCompatible, type OpenAICompatibleOptions } from "../../../src/providers/openai/index.js";
import { getProviderFailure } from "../../../src/providers/shared/provider-failure.js";
import { agentLoop } from "../../../src/loop/agent-loop.js";
import type { AssistantMessage, AssistantMessageEvent } from "../../../src/model/messages.js";
import type { AgentEvent } from "../../../src/index.js";
import { events$, finalMessage, model, weatherContext } from "../support/collect.js";
import { startEndlessServer, type EndlessBody, type EndlessServer } from "./endless-server.js";

const MiB = 1 << 20;
/** The ceiling on this process's RSS growth while a hostile server streams at it. */
const RSS_CEILING = 100 * MiB;

let server: EndlessServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serveEndless(body: EndlessBody): Promise<EndlessServer> {
  server = await startEndlessServer(body);
  return server;
}

/** Runs one request, keeping only the event count and the last event (an endless stream must not be collected). */
async function runOnce(s: EndlessServer, options: OpenAICompatibleOptions = {}): Promise<{ count: number; last: AssistantMessageEvent; message: AssistantMessage }> {
  const streamFn = openaiCompatible({ baseUrl: `${s.url}/v1`, apiKey: "sk-test", ...options });
  const { count, last } = await lastValueFrom(
    events$(streamFn, weatherContext()).pipe(reduce((acc, event) => ({ count: acc.count + 1, last: event }), { count: 0, last: undefined as AssistantMessageEvent | undefined })),
  );
  await s.settled;
  return { count, last: last!, message: finalMessage([last!]) };
}

const X64K = "x".repeat(64 * 1024);
const deltaChunk = (text: string) => `data: ${JSON.stringify({ id: "chatcmpl-endless", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\n`;
const finishChunk = `data: ${JSON.stringify({ id: "chatcmpl-endless", object: "chat.completion.chunk", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`;

function expectCapFailure(message: AssistantMessage, option: string, bytes: number): void {
  expect(message.stopReason).toBe("error");
  expect(message.errorMessage).toContain(`${option} (${bytes} bytes)`);
  expect(message.errorMessage).toContain(`openaiCompatible({ ${option} })`);
  expect(getProviderFailure(message)).toEqual({ kind: "protocol", retryable: false });
}

describe("(X3) openaiCompatible: memory bounds against endless responses", () => {
  it("a line that never ends (50 MB with no newline) stops at maxLineBytes; the server sees the cancel; RSS stays bounded", async () => {
    const s = await serveEndless({ head: "data: ", piece: X64K, ceilingBytes: 50 * MiB, tail: "\n\n" });
    const before = process.memoryUsage().rss;
    const { message } = await runOnce(s, { maxLineBytes: MiB });
    expectCapFailure(message, "maxLineBytes", MiB);
    expect(message.errorMessage).toBe(
      "A line of the event stream exceeded maxLineBytes (1048576 bytes) without ending; raise the limit with openaiCompatible({ maxLineBytes })",
    );
    expect(s.clientClosed()).toBe(true);
    expect(s.bytesWritten()).toBeLessThan(50 * MiB);
    expect(s.peakRss() - before).toBeLessThan(RSS_CEILING);
  });

  it("with the default caps, a 200 MB line with no newline streamed as fast as the client reads: the process survives, RSS stays bounded", async () => {
    const s = await serveEndless({ head: "data: ", piece: X64K, ceilingBytes: 200 * MiB });
    const before = process.memoryUsage().rss;
    const { message } = await runOnce(s);
    expectCapFailure(message, "maxLineBytes", 4 * MiB);
    expect(s.clientClosed()).toBe(true);
    expect(s.bytesWritten()).toBeLessThan(200 * MiB);
    expect(s.peakRss() - before).toBeLessThan(RSS_CEILING);
  });

  it("valid text deltas forever end at maxResponseBytes, keeping the streamed text; the server sees the cancel", async () => {
    const piece = deltaChunk("y".repeat(1000)).repeat(64);
    const s = await serveEndless({ head: deltaChunk("start"), piece, ceilingBytes: 32 * MiB, tail: finishChunk });
    const before = process.memoryUsage().rss;
    const { message, count } = await runOnce(s, { maxResponseBytes: MiB });
    expectCapFailure(message, "maxResponseBytes", MiB);
    expect(message.errorMessage).toBe("The response exceeded maxResponseBytes (1048576 bytes); raise the limit with openaiCompatible({ maxResponseBytes })");
    expect(count).toBeGreaterThan(100);
    const text = (message.content[0] as { text: string }).text;
    expect(text.startsWith("start")).toBe(true);
    expect(text.length).toBeGreaterThan(500_000);
    expect(text.length).toBeLessThan(MiB);
    expect(s.clientClosed()).toBe(true);
    expect(s.peakRss() - before).toBeLessThan(RSS_CEILING);
  });

  it("one event made of endless short data: lines (no blank line) stops at maxEventBytes", async () => {
    const s = await serveEndless({ piece: "data: x\n".repeat(8192), ceilingBytes: 16 * MiB, tail: "\n\n" });
    const { message } = await runOnce(s, { maxEventBytes: 256 * 1024 });
    expectCapFailure(message, "maxEventBytes", 256 * 1024);
    expect(message.errorMessage).toBe(
      "One event of the event stream exceeded maxEventBytes (262144 bytes) without ending; raise the limit with openaiCompatible({ maxEventBytes })",
    );
    expect(s.clientClosed()).toBe(true);
  });

  it("an event stream labelled application/json is capped the same way", async () => {
    const s = await serveEndless({ headers: { "content-type": "application/json" }, head: "data: ", piece: X64K, ceilingBytes: 32 * MiB, tail: "\n\n" });
    const { message } = await runOnce(s, { maxLineBytes: MiB });
    expectCapFailure(message, "maxLineBytes", MiB);
    expect(s.clientClosed()).toBe(true);
  });
});

describe("(X3) openaiCompatible: bodies that are read whole are read bounded", () => {
  it("a 500 with a 200 MB body: the error still says HTTP 500, only the start is read, the server sees the cancel", async () => {
    const s = await serveEndless({ status: 500, headers: { "content-type": "application/json" }, head: '{"error":{"message":"', piece: X64K, ceilingBytes: 200 * MiB });
    const before = process.memoryUsage().rss;
    const { message } = await runOnce(s);
    expect(message.stopReason).toBe("error");
    // The endless run of "x" is one word: the cut never splits a word, so the text stops before it.
    expect(message.errorMessage).toBe('HTTP 500 Internal Server Error: {"error":{"message":"…');
    expect(message.errorMessage!.length).toBeLessThan(1000);
    expect(getProviderFailure(message)).toEqual({ kind: "http", status: 500, retryable: true });
    expect(s.clientClosed()).toBe(true);
    expect(s.bytesWritten()).toBeLessThan(200 * MiB);
    expect(s.peakRss() - before).toBeLessThan(RSS_CEILING);
  });

  it("a 100 MB non-streaming JSON reply: named as such from its start, the rest is not read", async () => {
    const s = await serveEndless({ headers: { "content-type": "application/json" }, head: '{"id":"chatcmpl-1","choices":[{"message":{"content":"', piece: X64K, ceilingBytes: 100 * MiB });
    const before = process.memoryUsage().rss;
    const { message } = await runOnce(s);
    expect(message.errorMessage).toMatch(/^HTTP 200: the server sent a non-streaming JSON reply \(content-type application\/json\)/);
    expect(message.errorMessage).toContain('The reply began: {"id":"chatcmpl-1"');
    expect(getProviderFailure(message)).toEqual({ kind: "protocol", retryable: false });
    expect(s.clientClosed()).toBe(true);
    expect(s.peakRss() - before).toBeLessThan(RSS_CEILING);
  });
});

describe("(X3) openaiCompatible: cap options are checked", () => {
  it("a cap that is not a positive number is refused when the provider is created", () => {
    expect(() => openaiCompatible({ maxLineBytes: 0 })).toThrow(new TypeError("openaiCompatible: maxLineBytes must be a positive number of bytes (or Infinity), got 0"));
    expect(() => openaiCompatible({ maxEventBytes: Number.NaN })).toThrow(/maxEventBytes must be a positive number of bytes \(or Infinity\), got NaN/);
    expect(() => openaiCompatible({ maxResponseBytes: "64MB" as unknown as number })).toThrow(/maxResponseBytes must be a positive number of bytes \(or Infinity\), got "64MB"/);
    expect(() => openaiCompatible({ maxResponseBytes: Infinity })).not.toThrow();
  });
});

describe("(X3) openaiCompatible: an agent run over a capped provider", () => {
  it("agentLoop over an endless line still ends: the capped response is the turn's error message, then turn_end and agent_end", async () => {
    const s = await serveEndless({ head: "data: ", piece: X64K, ceilingBytes: 50 * MiB, tail: "\n\n" });
    const streamFn = openaiCompatible({ baseUrl: `${s.url}/v1`, apiKey: "sk-test", maxLineBytes: 256 * 1024 });
    const events = await lastValueFrom(
      agentLoop([{ role: "user", content: "Weather in Paris?", timestamp: 1 }], { messages: [], tools: [] }, { model }, undefined, streamFn).pipe(toArray()),
    );
    const types = events.map((e: AgentEvent) => e.type);
    expect(types.slice(-2)).toEqual(["turn_end", "agent_end"]);
    const end = events[events.length - 1] as Extract<AgentEvent, { type: "agent_end" }>;
    const assistant = end.messages.find((m) => (m as { role: string }).role === "assistant") as AssistantMessage;
    expect(assistant.stopReason).toBe("error");
    expect(assistant.errorMessage).toContain("maxLineBytes (262144 bytes)");
    await s.settled;
    expect(s.clientClosed()).toBe(true);
  });
});
