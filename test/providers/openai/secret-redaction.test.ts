/**
 * An upstream that echoes the credentials it was sent: the key in a 401 body, a `Bearer …`
 * header quoted back, a configured header's value, the key inside a malformed chunk or a
 * mid-stream error. None of it reaches `errorMessage` (which the model and the UI read):
 * each is `[redacted]`. Real HTTP on 127.0.0.1.
 */
import { describe, expect, it } from "vitest";
import { openaiCompatible, type OpenAICompatibleOptions } from "../../../src/providers/openai/index.js";
import { getProviderFailure } from "../../../src/providers/shared/provider-failure.js";
import { collect, finalMessage, weatherContext } from "../support/collect.js";
import { scriptedServers, type ScriptedResponse, type TestServer } from "../support/http-server.js";

const serve = scriptedServers();

/** Not a known key shape: only the configured-secret redaction can find it. */
const KEY = "local-secret-key-1234";
const HEADER_SECRET = "hdr-token-98765";

async function failureOf(response: ScriptedResponse, options: OpenAICompatibleOptions = {}): Promise<string> {
  const s: TestServer = await serve(response);
  const streamFn = openaiCompatible({ baseUrl: `${s.url}/v1`, apiKey: KEY, headers: { "x-api-key": HEADER_SECRET }, ...options });
  const message = finalMessage(await collect(streamFn, weatherContext()));
  expect(message.stopReason).toBe("error");
  return message.errorMessage!;
}

const json = { "content-type": "application/json" };
const sse = { "content-type": "text/event-stream" };

describe("(X5) openaiCompatible: credentials echoed by the server are redacted from errorMessage", () => {
  it("a 401 body that quotes the key", async () => {
    const body = JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY}. You can find your API key at https://platform.openai.com/account/api-keys.`, code: "invalid_api_key" } });
    const text = await failureOf({ status: 401, headers: json, chunks: [body] });
    expect(text).toBe("HTTP 401 Unauthorized: Incorrect API key provided: [redacted]. You can find your API key at https://platform.openai.com/account/api-keys. [invalid_api_key]");
  });

  it("a body that echoes the Authorization header and another header's value", async () => {
    const text = await failureOf({ status: 400, headers: { "content-type": "text/plain" }, chunks: [`bad request; got Authorization: Bearer ${KEY} and x-api-key=${HEADER_SECRET}`] });
    expect(text).toBe("HTTP 400 Bad Request: bad request; got Authorization: Bearer [redacted] and x-api-key=[redacted]");
  });

  it("a key-shaped token the server echoes although it was never sent (sk-…) is redacted too", async () => {
    const text = await failureOf({ status: 401, headers: { "content-type": "text/plain" }, chunks: ["Incorrect API key provided: sk-proj-abcdefghijklmnopqrstuv"] });
    expect(text).toBe("HTTP 401 Unauthorized: Incorrect API key provided: [redacted]");
  });

  it("a malformed chunk that quotes the key", async () => {
    const text = await failureOf({ status: 200, headers: sse, chunks: [`data: {"echo":"${KEY}", broken\n\n`] });
    expect(text).toBe(`Malformed JSON in a stream chunk: {"echo":"[redacted]", broken`);
    expect(text).not.toContain(KEY);
  });

  it("a mid-stream error object that quotes a header value", async () => {
    const text = await failureOf({ status: 200, headers: sse, chunks: [`data: ${JSON.stringify({ error: { message: `token ${HEADER_SECRET} expired` } })}\n\n`] });
    expect(text).toBe("The provider reported an error mid-stream: token [redacted] expired");
  });

  it("a mid-stream error whose code is the key, or not a plain code: the recorded failure keeps no code", async () => {
    for (const code of [KEY, "has spaces and {braces}"]) {
      const s: TestServer = await serve({ status: 200, headers: sse, chunks: [`data: ${JSON.stringify({ error: { message: "expired", code } })}\n\n`] });
      const streamFn = openaiCompatible({ baseUrl: `${s.url}/v1`, apiKey: KEY });
      const message = finalMessage(await collect(streamFn, weatherContext()));
      expect(getProviderFailure(message)?.code).toBeUndefined();
      expect(JSON.stringify(getProviderFailure(message))).not.toContain(KEY);
    }
  });

  it("a non-streaming JSON reply that quotes the key", async () => {
    const text = await failureOf({ status: 200, headers: json, chunks: [JSON.stringify({ id: "chatcmpl-1", echo: KEY })] });
    expect(text).toContain('The reply began: {"id":"chatcmpl-1","echo":"[redacted]"}');
    expect(text).not.toContain(KEY);
  });

  it("the key the loop passes per request (options.apiKey) is the one redacted", async () => {
    const perRequest = "per-request-key-5678";
    const s = await serve({ status: 401, headers: { "content-type": "text/plain" }, chunks: [`key ${perRequest} revoked`] });
    const message = finalMessage(await collect(openaiCompatible({ baseUrl: `${s.url}/v1`, apiKey: KEY }), weatherContext(), { apiKey: perRequest }));
    expect(message.errorMessage).toBe("HTTP 401 Unauthorized: key [redacted] revoked");
    expect(getProviderFailure(message)).toEqual({ kind: "http", status: 401, retryable: false });
  });

  it("content-type and accept values are not treated as secrets", async () => {
    const text = await failureOf({ status: 415, headers: { "content-type": "text/plain" }, chunks: ["expected application/json, got text/event-stream"] });
    expect(text).toBe("HTTP 415 Unsupported Media Type: expected application/json, got text/event-stream");
  });
});
