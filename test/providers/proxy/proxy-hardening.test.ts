/**
 * The proxy against what a hostile or broken upstream (or client) can put in the places the
 * first checks left open: an error `code` that is the server's key, thinking budgets past the
 * server's cap, a tool call that cannot be encoded, and a tool call as large as the loop allows
 * going through a real Node proxy with the client's default caps.
 */
import { Observable } from "rxjs";
import { describe, expect, it } from "vitest";
import { emptyAssistantMessage, failedAssistantMessage } from "../../../src/model/assistant-message.js";
import type { AssistantMessage, AssistantMessageEvent, Model, StreamFn, StreamOptions, ToolCall } from "../../../src/model/messages.js";
import { openaiCompatible } from "../../../src/providers/openai/index.js";
import { createProxyHandler, streamProxy, type ProxyHandlerOptions } from "../../../src/providers/proxy/index.js";
import { getProviderFailure, recordProviderFailure } from "../../../src/providers/shared/provider-failure.js";
import { collect, finalMessage, model, weatherContext } from "../support/collect.js";
import { liveProxies } from "./live-proxy.js";
import { startTestServer } from "../support/http-server.js";

const TOKEN = "proxy-token-hardening-1";
/** A key that has none of the usual key shapes (an Azure or gateway key): only the call's secrets find it. */
const HEX_KEY = "a1b2c3d4e5f6a7b8c9d0";

const { keep, listen } = liveProxies();

const post = (handler: (request: Request) => Promise<Response>, options?: unknown) =>
  handler(new Request("http://proxy.test/", { method: "POST", headers: { authorization: `Bearer ${TOKEN}` }, body: JSON.stringify({ model, context: weatherContext(), options }) }));


/** A StreamFn that answers with one tool call whose arguments are `args`, streamed in 64 KiB pieces, then whole in `toolcall_end`. */
function toolCallStreamFn(args: () => Record<string, unknown>, json: (args: Record<string, unknown>) => string = JSON.stringify): StreamFn {
  return (m) =>
    new Observable<AssistantMessageEvent>((subscriber) => {
      const base = emptyAssistantMessage(m, 0);
      const call: ToolCall = { type: "toolCall", id: "call_1", name: "write_file", arguments: {} };
      const open: AssistantMessage = { ...base, content: [call] };
      subscriber.next({ type: "start", partial: base });
      subscriber.next({ type: "toolcall_start", contentIndex: 0, partial: open });
      const value = args();
      const text = json(value);
      for (let i = 0; i < text.length; i += 64 * 1024) subscriber.next({ type: "toolcall_delta", contentIndex: 0, delta: text.slice(i, i + 64 * 1024), partial: open });
      const ended: ToolCall = { ...call, arguments: value };
      const message: AssistantMessage = { ...base, content: [ended], stopReason: "toolUse" };
      subscriber.next({ type: "toolcall_end", contentIndex: 0, toolCall: ended, partial: message });
      subscriber.next({ type: "done", reason: "toolUse", message });
      subscriber.complete();
    });
}

describe("(X1 X5) the error code the browser gets", () => {
  it("an upstream 429 whose error.code is the server's (non-sk) key: the browser's error event has no key, the failure keeps kind, status and retryable", async () => {
    const upstream = await startTestServer(() => ({ status: 429, headers: { "content-type": "application/json" }, chunks: [JSON.stringify({ error: { message: "slow down", code: HEX_KEY } })] }));
    keep(upstream);
    const logged: string[] = [];
    const serverModel: Model = { ...model, baseUrl: `${upstream.url}/v1`, maxTokens: 1000 };
    const handler = createProxyHandler({ streamFn: openaiCompatible(), token: TOKEN, getApiKey: () => HEX_KEY, models: [serverModel], onError: (error) => logged.push(error.message) });
    const wire = await (await post(handler)).text();
    expect(upstream.requests[0]!.headers.authorization).toBe(`Bearer ${HEX_KEY}`);
    expect(wire).toContain("The upstream provider failed (HTTP 429)");
    expect(wire).not.toContain(HEX_KEY);
    expect(wire).not.toContain(HEX_KEY.slice(0, 12));
    expect(logged.join("\n")).not.toContain(HEX_KEY);

    // The same through the client: what withRetry reads is still there.
    const url = await listen(handler);
    const events = await collect(streamProxy({ url, authToken: TOKEN }), weatherContext());
    expect(JSON.stringify(events)).not.toContain(HEX_KEY);
    expect(getProviderFailure(finalMessage(events))).toEqual({ kind: "http", status: 429, retryable: true });
  });

  it("a mid-stream SSE error whose code is the key configured on the server's provider (openaiCompatible({ apiKey })): the browser's error event carries no code holding the key", async () => {
    const upstream = keep(await startTestServer(() => ({ status: 200, headers: { "content-type": "text/event-stream" }, chunks: [`data: ${JSON.stringify({ error: { message: "x", code: HEX_KEY } })}\n\n`] })));
    const serverModel: Model = { ...model, baseUrl: `${upstream.url}/v1`, maxTokens: 1000 };
    const handler = createProxyHandler({ streamFn: openaiCompatible({ apiKey: HEX_KEY }), token: TOKEN, getApiKey: () => HEX_KEY, models: [serverModel], onError: () => undefined });
    const url = await listen(handler);
    const events = await collect(streamProxy({ url, authToken: TOKEN }), weatherContext());
    expect(upstream.requests).toHaveLength(1);
    const error = events.find((event) => event.type === "error");
    expect(error).toBeDefined();
    expect(JSON.stringify(events)).not.toContain(HEX_KEY.slice(0, 12));
    expect(getProviderFailure(finalMessage(events))?.code ?? "").not.toContain(HEX_KEY.slice(0, 8));
  });

  it("a proxy answering 401 with a body that echoes the client's token and headers: the client's errorMessage holds neither", async () => {
    const secretHeader = "x-session-value-77";
    const url = await listen(async (request) => new Response(`rejected ${request.headers.get("authorization")} and ${request.headers.get("x-session")}`, { status: 401, statusText: "Unauthorized" }));
    const events = await collect(streamProxy({ url, authToken: TOKEN, headers: { "x-session": secretHeader } }), weatherContext());
    const message = finalMessage(events).errorMessage ?? "";
    expect(message).toMatch(/^Proxy error: HTTP 401/);
    expect(message).toContain("[redacted]");
    expect(message).not.toContain(TOKEN);
    expect(message).not.toContain(secretHeader);
  });

  it("whatever the StreamFn: a code that holds the key or the client's bearer token, or is a long piece of the key, is dropped; a plain provider code is kept", async () => {
    const codes = [HEX_KEY, TOKEN, `x_${HEX_KEY}`, HEX_KEY.slice(2, 14), "rate_limit_exceeded"];
    let index = 0;
    // A StreamFn that records the upstream's code as it came (as one that does not redact would).
    const streamFn: StreamFn = (m) => {
      const error = failedAssistantMessage(m, "HTTP 429", "error", 0);
      recordProviderFailure(error, { kind: "http", status: 429, code: codes[index++]!, retryable: true });
      return [{ type: "error", reason: "error", error }];
    };
    const handler = createProxyHandler({ streamFn, token: TOKEN, getApiKey: () => HEX_KEY, models: [model], onError: () => undefined });
    const wires: string[] = [];
    for (let i = 0; i < codes.length; i++) wires.push(await (await post(handler)).text());
    expect(wires.map((wire) => /"code":"([^"]*)"/.exec(wire)?.[1])).toEqual([undefined, undefined, undefined, undefined, "rate_limit_exceeded"]);
    for (const wire of wires) {
      expect(wire).not.toContain(HEX_KEY.slice(2, 14));
      expect(wire).not.toContain(TOKEN);
      expect(wire).toContain('"failure":{"kind":"http","retryable":true,"status":429');
    }
  });
});

describe("(X1 X5) thinking budgets", () => {
  it("each budget is clamped to the server's cap, like maxTokens, and dropped when there is no cap", async () => {
    const received: (StreamOptions["thinkingBudgets"] | "absent")[] = [];
    const recording: StreamFn = (m, _context, options) => {
      received.push("thinkingBudgets" in options ? options.thinkingBudgets : "absent");
      return [{ type: "done", reason: "stop", message: emptyAssistantMessage(m, 0) }];
    };
    const budgets = { high: 1e9, medium: 2000, low: 50 };
    const run = async (options: Partial<ProxyHandlerOptions>, models: Model[]) => {
      const handler = createProxyHandler({ streamFn: recording, token: TOKEN, models, ...options });
      await (await post(handler, { thinkingBudgets: budgets })).text();
    };
    await run({}, [{ ...model, maxTokens: 1000 }]);
    await run({ maxOutputTokens: 500 }, [{ ...model, maxTokens: 1000 }]);
    await run({}, [{ ...model, maxTokens: undefined }]);
    expect(received).toEqual([{ high: 1000, medium: 1000, low: 50 }, { high: 500, medium: 500, low: 50 }, "absent"]);
  });
});

describe("(X1 X5) events the proxy cannot encode", () => {
  it("a tool call nested 100 000 deep ends the stream with a generic error; onError gets the cause; the server serves the next request", async () => {
    const deep = () => {
      let value: Record<string, unknown> = {};
      for (let i = 0; i < 100_000; i++) value = { a: value };
      return value;
    };
    let calls = 0;
    const streamFn: StreamFn = (m, context, options) => (calls++ === 0 ? toolCallStreamFn(deep, () => "{")(m, context, options) : [{ type: "done", reason: "stop", message: emptyAssistantMessage(m, 0) }]);
    const logged: string[] = [];
    const handler = createProxyHandler({ streamFn, token: TOKEN, models: [model], maxConcurrentPerToken: 1, onError: (error) => logged.push(error.message) });
    const url = await listen(handler);
    const client = streamProxy({ url, authToken: TOKEN });

    const events = await collect(client, weatherContext());
    const message = finalMessage(events);
    expect(events.map((e) => e.type)).toEqual(["start", "toolcall_start", "toolcall_delta", "error"]);
    expect(message.errorMessage).toBe("The upstream provider sent an event that could not be encoded");
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/^The upstream provider sent an event that could not be encoded \(toolcall_end\): .*call stack/);

    // The slot was freed and the server still answers.
    expect(finalMessage(await collect(client, weatherContext())).stopReason).toBe("stop");
  });

  it("a BigInt in a tool call from a synchronous StreamFn: the same generic error, and the slot is free", async () => {
    const handler = createProxyHandler({ streamFn: toolCallStreamFn(() => ({ n: 1n }), () => '{"n":1}'), token: TOKEN, models: [model], maxConcurrentPerToken: 1, onError: () => undefined });
    for (let i = 0; i < 2; i++) {
      const wire = await (await post(handler)).text();
      expect(wire).toContain("The upstream provider sent an event that could not be encoded");
      expect(wire).not.toContain('"done"');
    }
  });
});

describe("(X1 X5) large tool calls through a real proxy", () => {
  it("a tool call whose arguments are a 4 MiB string round-trips with the client's default caps", { timeout: 30_000 }, async () => {
    // About 10 MiB on the wire in one toolcall_end line: "€" is 3 bytes of UTF-8, '"' is escaped to 2.
    const content = '€"'.repeat(2 * 1024 * 1024 - 512);
    const handler = createProxyHandler({ streamFn: toolCallStreamFn(() => ({ content })), token: TOKEN, models: [model], onError: () => undefined });
    const url = await listen(handler);
    const message = finalMessage(await collect(streamProxy({ url, authToken: TOKEN }), weatherContext()));
    expect(message.errorMessage).toBeUndefined();
    expect(message.stopReason).toBe("toolUse");
    const call = message.content[0] as ToolCall;
    expect((call.arguments.content as string).length).toBe(content.length);
    expect(call.arguments.content === content).toBe(true);
  });
});
