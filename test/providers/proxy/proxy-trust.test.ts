/**
 * What the proxy trusts from the browser: a logged-in client against a real Node proxy
 * (through `toNodeListener`) in front of `openaiCompatible()`, with hostile upstreams (local
 * servers that pretend to be OpenAI-compatible endpoints and record what they were sent).
 */
import { describe, expect, it, vi } from "vitest";
import { NEVER } from "rxjs";
import type { Model } from "../../../src/model/messages.js";
import { openaiCompatible } from "../../../src/providers/openai/index.js";
import { createProxyHandler, streamProxy, type ProxyHandlerOptions } from "../../../src/providers/proxy/index.js";
import { getProviderFailure } from "../../../src/providers/shared/provider-failure.js";
import { collect, finalMessage, model, weatherContext } from "../support/collect.js";
import { liveProxies } from "./live-proxy.js";
import { sseResponse, startTestServer, type ScriptedResponse, type TestServer } from "../support/http-server.js";

const TOKEN = "proxy-token-trust-1";
const KEYS: Record<string, string> = { openai: "sk-openai-server-key-0123456789", anthropic: "sk-ant-server-key-0123456789" };

const { keep, listen } = liveProxies();

async function serve(script: (index: number) => ScriptedResponse): Promise<TestServer> {
  const server = await startTestServer((_request, index) => script(index));
  keep(server);
  return server;
}

/** The server's own model: its upstream, its cap. */
function serverModel(upstream: TestServer, extra: Partial<Model> = {}): Model {
  return { id: "gpt-4o-mini", api: "openai-completions", provider: "openai", baseUrl: `${upstream.url}/v1`, maxTokens: 1000, ...extra };
}

/** The recipe: `openaiCompatible()` without a baseUrl, the key chosen by the model's provider. */
async function startProxy(options: Partial<ProxyHandlerOptions>): Promise<{ url: string; providers: string[] }> {
  const providers: string[] = [];
  const handler = createProxyHandler({
    streamFn: openaiCompatible(),
    token: TOKEN,
    getApiKey: (provider) => (providers.push(provider), KEYS[provider]),
    onError: () => undefined,
    ...options,
  } as ProxyHandlerOptions);
  return { url: await listen(handler), providers };
}

const client = (url: string) => streamProxy({ url, authToken: TOKEN });

describe("(X1) the proxy calls only the server's models, with the server's key", () => {
  it("a client baseUrl never receives the server's key: the call goes to the server's own upstream", async () => {
    const own = await serve(() => sseResponse("text.sse"));
    const attacker = await serve(() => sseResponse("text.sse"));
    const { url } = await startProxy({ models: [serverModel(own)] });
    const events = await collect(client(url), weatherContext(), {}, { ...model, baseUrl: `${attacker.url}/v1` });
    expect(finalMessage(events).stopReason).toBe("stop");
    expect(attacker.requests).toHaveLength(0);
    expect(own.requests).toHaveLength(1);
    expect(own.requests[0]!.headers.authorization).toBe(`Bearer ${KEYS.openai}`);
  });

  it("the client's provider name does not pick another key: getApiKey gets the server model's provider", async () => {
    const own = await serve(() => sseResponse("text.sse"));
    const { url, providers } = await startProxy({ models: [serverModel(own)] });
    await collect(client(url), weatherContext(), {}, { ...model, provider: "anthropic" });
    expect(providers).toEqual(["openai"]);
    expect(own.requests[0]!.headers.authorization).toBe(`Bearer ${KEYS.openai}`);
  });

  it("the client model's headers, cost, compat and other fields are not forwarded", async () => {
    const own = await serve(() => sseResponse("text.sse"));
    const { url } = await startProxy({ streamFn: openaiCompatible({ baseUrl: `${own.url}/v1` }), models: { "gpt-4o-mini": serverModel(own) } });
    const hostile = { ...model, headers: { authorization: "Bearer sk-attacker-000000000000", "openai-organization": "org-evil", "x-evil": "1" }, compat: { evil: true } } as Model;
    await collect(client(url), weatherContext(), {}, hostile);
    const seen = own.requests[0]!.headers;
    expect(seen.authorization).toBe(`Bearer ${KEYS.openai}`);
    expect(seen["openai-organization"]).toBeUndefined();
    expect(seen["x-evil"]).toBeUndefined();
  });

  it("a model pointing inside the network is never called and its page never reaches the client", async () => {
    const own = await serve(() => sseResponse("text.sse"));
    const internal = await serve(() => ({ status: 404, headers: { "content-type": "text/plain" }, chunks: ["INTERNAL-ADMIN-PAGE secret=42"] }));
    const { url } = await startProxy({ models: [serverModel(own)] });
    const asked = await collect(client(url), weatherContext(), {}, { ...model, id: "internal-probe", baseUrl: `${internal.url}/v1` });
    const message = finalMessage(asked);
    expect(message.errorMessage).toBe('Proxy error: HTTP 403 Forbidden: Model not allowed: "internal-probe"');
    expect(JSON.stringify(asked)).not.toContain("INTERNAL-ADMIN-PAGE");
    expect(internal.requests).toHaveLength(0);
    expect(own.requests).toHaveLength(0);
  });

  it("maxTokens is clamped to the server model's cap; malformed options are a 400", async () => {
    const own = await serve(() => sseResponse("text.sse"));
    const { url } = await startProxy({ streamFn: openaiCompatible({ baseUrl: `${own.url}/v1`, maxTokensField: "max_tokens" }), models: [serverModel(own)] });
    await collect(client(url), weatherContext(), { maxTokens: 1e9 });
    await collect(client(url), weatherContext(), { maxTokens: 50 });
    expect(own.requests.map((r) => r.json().max_tokens)).toEqual([1000, 50]);

    const post = (options: unknown) =>
      fetch(url, { method: "POST", headers: { authorization: `Bearer ${TOKEN}` }, body: JSON.stringify({ model, context: weatherContext(), options }) });
    for (const options of [{ maxTokens: -5 }, { maxTokens: 1.5 }, { maxTokens: "1e9" }, { maxTokens: null }, { temperature: 3 }, { temperature: -0.1 }, { sessionId: "s".repeat(300) }, { thinkingBudgets: { low: -1 } }, { thinkingBudgets: { high: "9" } }]) {
      const response = await post(options);
      expect(response.status, JSON.stringify(options).slice(0, 60)).toBe(400);
      expect((await response.text()).length).toBeLessThan(300);
    }
    expect(own.requests).toHaveLength(2);
  });

  it("an upstream error that echoes the key: the browser gets a generic text with the failure details; the log gets a redacted text", async () => {
    const echo = `Incorrect API key provided: ${KEYS.openai}. Sent: Bearer ${KEYS.openai}`;
    const own = await serve(() => ({ status: 401, headers: { "content-type": "application/json" }, chunks: [JSON.stringify({ error: { message: echo, code: "invalid_api_key" } })] }));
    const logged: { error: Error; request: Request }[] = [];
    const { url } = await startProxy({ models: [serverModel(own)], onError: (error, request) => logged.push({ error, request }) });
    const events = await collect(client(url), weatherContext());
    const message = finalMessage(events);
    expect(message.errorMessage).toBe("The upstream provider failed (HTTP 401)");
    expect(getProviderFailure(message)).toMatchObject({ kind: "http", status: 401, retryable: false });
    expect(JSON.stringify(events)).not.toContain("server-key");
    expect(JSON.stringify(events)).not.toContain("Incorrect API key");

    expect(logged).toHaveLength(1);
    expect(logged[0]!.error.message).toContain("Incorrect API key provided: [redacted]");
    expect(logged[0]!.error.message).not.toContain("server-key");
    expect(logged[0]!.request.method).toBe("POST");
  });

  it("by default the failure is logged with console.error, redacted (the key and the client's bearer token)", async () => {
    const own = await serve(() => ({ status: 500, headers: { "content-type": "application/json" }, chunks: [JSON.stringify({ error: { message: `boom ${KEYS.openai} token=${TOKEN}` } })] }));
    const spy = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const handler = createProxyHandler({ streamFn: openaiCompatible(), token: TOKEN, getApiKey: () => KEYS.openai, models: [serverModel(own)] });
      const request = new Request("http://proxy.test/", { method: "POST", headers: { authorization: `Bearer ${TOKEN}` }, body: JSON.stringify({ model, context: weatherContext() }) });
      const wire = await (await handler(request)).text();
      expect(wire).toContain("The upstream provider failed (HTTP 500)");
      expect(wire).not.toContain("boom");
      const text = spy.mock.calls.map((call) => call.map(String).join(" ")).join("\n");
      expect(text).toContain("boom [redacted] token=[redacted]");
      expect(text).not.toContain(KEYS.openai);
    } finally {
      spy.mockRestore();
    }
  });
});

describe("(X1) configuring which models the proxy serves", () => {
  const base = { streamFn: () => NEVER, token: TOKEN };

  it("a handler without models or resolveModel cannot be built", () => {
    expect(() => createProxyHandler(base as unknown as ProxyHandlerOptions)).toThrow(/models/);
  });

  it("a hook that throws is a 500 with a generic text; its words go to onError, redacted", async () => {
    const logged: string[] = [];
    const handler = createProxyHandler({
      ...base,
      models: [model],
      getApiKey: () => {
        throw new Error(`vault said: Bearer ${TOKEN} is not allowed to read sk-vault-key-0123456789`);
      },
      onError: (error) => logged.push(error.message),
    });
    const response = await handler(new Request("http://proxy.test/", { method: "POST", headers: { authorization: `Bearer ${TOKEN}` }, body: JSON.stringify({ model, context: weatherContext() }) }));
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: "The proxy failed to handle the request" });
    expect(logged).toEqual(["The proxy failed to handle a request: vault said: Bearer [redacted] is not allowed to read [redacted]"]);
  });

  it("resolveModel sees only the requested id and api, and its model is what gets called", async () => {
    const own = await serve(() => sseResponse("text.sse"));
    const asked: unknown[] = [];
    const { url } = await startProxy({ resolveModel: (requested) => (asked.push(requested), serverModel(own)) });
    await collect(client(url), weatherContext(), {}, { ...model, baseUrl: "http://10.0.0.1/v1", headers: { a: "b" } });
    expect(asked).toEqual([{ id: "gpt-4o-mini", api: "openai-completions" }]);
    expect(own.requests).toHaveLength(1);
  });

  it("an api that does not match the server's model is refused; a long id is not echoed whole", async () => {
    const own = await serve(() => sseResponse("text.sse"));
    const { url } = await startProxy({ models: [serverModel(own)] });
    const wrongApi = finalMessage(await collect(client(url), weatherContext(), {}, { ...model, api: "anthropic-messages" }));
    expect(wrongApi.errorMessage).toBe('Proxy error: HTTP 403 Forbidden: Model not allowed: "gpt-4o-mini"');
    const long = await fetch(url, { method: "POST", headers: { authorization: `Bearer ${TOKEN}` }, body: JSON.stringify({ model: { ...model, id: "x".repeat(10_000) }, context: weatherContext() }) });
    expect(long.status).toBe(400);
    expect((await long.text()).length).toBeLessThan(300);
    expect(own.requests).toHaveLength(0);
  });
});
