/**
 * The stream proxy: browser-side client → proxy handler on a real Node
 * server (through the node adapter) → the OpenAI-compatible provider → a scripted upstream
 * server. Also the handler on its own, fetch-style.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { lastValueFrom, NEVER, Observable, of, takeWhile, tap, toArray } from "rxjs";
import { emptyAssistantMessage } from "../../../src/model/assistant-message.js";
import type { AssistantMessageEvent, StreamFn } from "../../../src/model/messages.js";
import { toNodeListener } from "../../../src/providers/proxy/node.js";
import { openaiCompatible } from "../../../src/providers/openai/index.js";
import { getProviderFailure } from "../../../src/providers/shared/provider-failure.js";
import { createProxyHandler, streamProxy, type ProxyHandlerOptions } from "../../../src/providers/proxy/index.js";
import { withRetry } from "../../../src/providers/retry/index.js";
import { collect, events$, finalMessage, model, shape, weatherContext } from "../support/collect.js";
import { errorResponse, fixture, sseResponse, startTestServer, type ScriptedResponse, type TestServer } from "../support/http-server.js";

let upstream: TestServer | undefined;
let proxy: Server | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
  if (proxy) {
    proxy.closeAllConnections();
    await new Promise<void>((resolve) => proxy!.close(() => resolve()));
    proxy = undefined;
  }
});

const TOKEN = "proxy-token-123";

async function startProxy(options: Partial<ProxyHandlerOptions> = {}): Promise<string> {
  const handler = createProxyHandler({
    streamFn: openaiCompatible({ baseUrl: `${upstream!.url}/v1` }),
    token: TOKEN,
    getApiKey: (provider) => (provider === "openai" ? "sk-server-side" : undefined),
    models: [{ ...model, maxTokens: 4096 }],
    onError: () => undefined,
    ...options,
  });
  proxy = createServer(toNodeListener(handler));
  await new Promise<void>((resolve) => proxy!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/api/stream`;
}

async function serveUpstream(...responses: ScriptedResponse[]): Promise<TestServer> {
  upstream = await startTestServer((_r, index) => responses[Math.min(index, responses.length - 1)]!);
  return upstream;
}

/** Events with timestamps zeroed, to compare a proxied run with a direct one. */
function untimed(events: AssistantMessageEvent[]): unknown {
  return JSON.parse(JSON.stringify(events, (key, value) => (key === "timestamp" ? 0 : value)));
}

describe("streamProxy + createProxyHandler over real HTTP", () => {
  for (const name of ["tool-call.sse", "reasoning.sse", "parallel-tool-calls.sse"]) {
    it(`the client rebuilds exactly the events and partials of a direct call (${name})`, async () => {
      const up = await serveUpstream(sseResponse(name));
      const direct = await collect(openaiCompatible({ baseUrl: `${up.url}/v1` }), weatherContext());
      const url = await startProxy();
      const proxied = await collect(streamProxy({ url, authToken: TOKEN }), weatherContext(), { apiKey: "sk-browser-must-not-leak", maxTokens: 50 });

      expect(untimed(proxied)).toEqual(untimed(direct));
      // The upstream saw the server's key, never the browser's, and the client's maxTokens.
      expect(up.requests).toHaveLength(2);
      expect(up.requests[1]!.headers.authorization).toBe("Bearer sk-server-side");
      expect(up.requests[1]!.body).not.toContain("sk-browser");
      expect(up.requests[1]!.json().max_tokens).toBe(50);
    });
  }

  it("the wire carries no partial messages (the bulky field is stripped)", async () => {
    await serveUpstream(sseResponse("tool-call.sse"));
    const url = await startProxy();
    const response = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ model, context: weatherContext() }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const wire = await response.text();
    expect(wire).not.toContain('"partial"');
    const lines = wire.split("\n\n").filter(Boolean);
    expect(JSON.parse(lines[0]!.slice("data: ".length))).toMatchObject({ type: "start", message: { role: "assistant", model: "gpt-4o-mini" } });
    expect(JSON.parse(lines[3]!.slice("data: ".length))).toEqual({ type: "toolcall_delta", contentIndex: 0, delta: 'cati' });
    expect(JSON.parse(lines[lines.length - 1]!.slice("data: ".length))).toMatchObject({ type: "done", reason: "toolUse" });
  });

  it("a bad token is rejected with 401 and a clear error; the upstream is never called", async () => {
    const up = await serveUpstream(sseResponse("text.sse"));
    const url = await startProxy();
    const events = await collect(streamProxy({ url, authToken: "wrong" }), weatherContext());
    expect(shape(events)).toEqual(["error"]);
    const message = finalMessage(events);
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toBe("Proxy error: HTTP 401 Unauthorized: Invalid access token");
    expect(getProviderFailure(message)).toMatchObject({ status: 401, retryable: false });

    const missing = finalMessage(await collect(streamProxy({ url }), weatherContext()));
    expect(missing.errorMessage).toBe("Proxy error: HTTP 401 Unauthorized: Missing access token");
    const raw = await fetch(url, { method: "POST", body: "{}", headers: { authorization: "Bearer nope" } });
    expect(raw.status).toBe(401);
    expect(raw.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(up.requests).toHaveLength(0);
  });

  it("cancellation from the client (abort signal) reaches the upstream server", async () => {
    const bytes = fixture("text.sse");
    const head = bytes.subarray(0, bytes.indexOf("data:", bytes.indexOf("data:") + 1));
    const drip = `data: ${JSON.stringify({ id: "chatcmpl-slow", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: "." }, finish_reason: null }] })}\n\n`;
    const up = await serveUpstream({ status: 200, headers: { "content-type": "text/event-stream" }, chunks: [head], drip, delayMs: 20 });
    const url = await startProxy();
    const controller = new AbortController();
    let deltas = 0;
    const events = await lastValueFrom(
      events$(streamProxy({ url, authToken: TOKEN }), weatherContext(), { signal: controller.signal }).pipe(
        tap((event) => {
          if (event.type === "text_delta" && ++deltas === 2) controller.abort();
        }),
        toArray(),
      ),
    );
    expect(events[events.length - 1]).toMatchObject({ type: "error", reason: "aborted" });
    expect(finalMessage(events).content).toEqual([{ type: "text", text: ".." }]);
    await up.waitForClientClose(0);
    expect(up.clientClosed).toEqual([0]);
  });

  it("unsubscribing the client also cancels the upstream request", async () => {
    const up = await serveUpstream({ status: 200, headers: { "content-type": "text/event-stream" }, chunks: [], drip: ": keep-alive\n\n", delayMs: 20 });
    const url = await startProxy();
    // Unsubscribe as soon as the response started (the upstream request is then open).
    const events = await lastValueFrom(
      events$(streamProxy({ url, authToken: TOKEN }), weatherContext()).pipe(
        takeWhile((event) => event.type !== "start", true),
        toArray(),
      ),
    );
    expect(events.map((e) => e.type)).toEqual(["start"]);
    expect(up.requests).toHaveLength(1);
    await up.waitForClientClose(0);
  });

  it("an upstream failure reaches the client with its details, so withRetry on the client can retry it", async () => {
    const up = await serveUpstream(errorResponse(500, "error-500.json"), sseResponse("text.sse"));
    const url = await startProxy();
    const single = finalMessage(await collect(streamProxy({ url, authToken: TOKEN }), weatherContext()));
    // The browser gets the failure's kind and status, not the upstream's words (they go to onError).
    expect(single.errorMessage).toBe("The upstream provider failed (HTTP 500)");
    expect(getProviderFailure(single)).toMatchObject({ kind: "http", status: 500, retryable: true });

    const retried = await collect(withRetry(streamProxy({ url, authToken: TOKEN }), { initialDelayMs: 10 }), weatherContext());
    expect(finalMessage(retried).stopReason).toBe("stop");
    expect(up.requests).toHaveLength(2);
  });

  it("the proxy connection dropping mid-stream is a clear client-side error", async () => {
    await serveUpstream(sseResponse("text.sse"));
    const handler = createProxyHandler({
      token: TOKEN,
      models: [model],
      streamFn: () =>
        new Observable<AssistantMessageEvent>((subscriber) => {
          subscriber.next({ type: "start", partial: emptyAssistantMessage(model, 0) });
          setTimeout(() => proxy?.closeAllConnections(), 30);
        }),
    });
    proxy = createServer(toNodeListener(handler));
    await new Promise<void>((resolve) => proxy!.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/`;
    const events = await collect(streamProxy({ url, authToken: TOKEN }), weatherContext());
    expect(shape(events)).toEqual(["start", "error"]);
    expect(finalMessage(events).errorMessage).toMatch(/^Proxy error: (the connection failed while streaming|the proxy closed the stream)/);
  });
});

describe("createProxyHandler as a fetch-style handler", () => {
  const post = (body: unknown, token = TOKEN) =>
    new Request("http://proxy.test/api/stream", { method: "POST", headers: { authorization: `Bearer ${token}` }, body: JSON.stringify(body) });

  it("cancelling the response body aborts the upstream StreamFn (signal and unsubscribe)", async () => {
    let signal: AbortSignal | undefined;
    let unsubscribed = false;
    const streamFn: StreamFn = (m, _context, options) => {
      signal = options.signal;
      return new Observable<AssistantMessageEvent>((subscriber) => {
        subscriber.next({ type: "start", partial: emptyAssistantMessage(m, 0) });
        return () => (unsubscribed = true);
      });
    };
    const response = await createProxyHandler({ streamFn, token: TOKEN, models: [model] })(post({ model, context: weatherContext() }));
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toMatch(/^data: \{"type":"start"/);
    expect(signal?.aborted).toBe(false);
    await reader.cancel();
    expect(signal?.aborted).toBe(true);
    expect(unsubscribed).toBe(true);
  });

  it("an upstream that completes without done, or errors, still ends with a final error event", async () => {
    for (const [streamFn, expected] of [
      [() => of({ type: "start", partial: emptyAssistantMessage(model, 0) } as AssistantMessageEvent), "The upstream provider ended without a final done or error event"],
      [() => Promise.reject(new Error("boom")), "The upstream provider failed"],
    ] as [StreamFn, string][]) {
      const handler = createProxyHandler({ streamFn, token: TOKEN, models: [model], onError: () => undefined });
      const events = await collect(streamProxy({ url: "http://proxy.test/api/stream", authToken: TOKEN, fetch: (input, init) => handler(new Request(input, init)) }), weatherContext());
      expect(finalMessage(events).errorMessage).toBe(expected);
    }
  });

  it("only safe options cross the proxy; the server's streamOptions win; the server's key is used", async () => {
    let seen: Record<string, unknown> = {};
    const streamFn: StreamFn = (m, _context, options) => {
      seen = { ...options };
      return of({ type: "done", reason: "stop", message: emptyAssistantMessage(m, 0) } as AssistantMessageEvent);
    };
    const handler = createProxyHandler({ streamFn, token: TOKEN, models: [model], streamOptions: { maxTokens: 100 }, getApiKey: () => "sk-server" });
    const options = { maxTokens: 1_000_000, temperature: 0.3, reasoning: "turbo", sessionId: "s1", apiKey: "sk-client", headers: { "x-evil": "1" } };
    const response = await handler(post({ model, context: weatherContext(), options }));
    await response.text();
    expect(seen).toMatchObject({ maxTokens: 100, temperature: 0.3, sessionId: "s1", apiKey: "sk-server" });
    expect(seen.reasoning).toBeUndefined();
    expect(seen.headers).toBeUndefined();
    expect(seen.signal).toBeInstanceOf(AbortSignal);
  });

  it("refuses other methods (405), bad bodies (400) and models resolveModel rejects (403)", async () => {
    const handler = createProxyHandler({ streamFn: () => NEVER, token: TOKEN, resolveModel: (m) => (m.id === "gpt-4o-mini" ? model : undefined) });
    expect((await handler(new Request("http://proxy.test/", { method: "GET" }))).status).toBe(405);
    expect((await handler(post("not json at all"))).status).toBe(400);
    const notJson = new Request("http://proxy.test/", { method: "POST", headers: { authorization: `Bearer ${TOKEN}` }, body: "{" });
    expect((await handler(notJson)).status).toBe(400);
    const refused = await handler(post({ model: { ...model, id: "o3-pro" }, context: weatherContext() }));
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ error: 'Model not allowed: "o3-pro"' });
  });
});
