/**
 * The OpenAI-compatible provider against a real HTTP server on 127.0.0.1 serving recorded
 * Chat Completions streams (SPEC M3, M4). No mocked fetch.
 */
import { describe, expect, it } from "vitest";
import { from, lastValueFrom, Subject, takeUntil, tap, toArray } from "rxjs";
import { openaiCompatible } from "../../../src/providers/openai/index.js";
import { getProviderFailure } from "../../../src/providers/shared/provider-failure.js";
import type { AssistantMessageEvent, ToolCall } from "../../../src/model/messages.js";
import { collect, events$, finalMessage, model, shape, weatherContext } from "../support/collect.js";
import { errorResponse, fixture, splitAt, sseResponse, scriptedServers, type ScriptedResponse, type TestServer } from "../support/http-server.js";

const serve = scriptedServers();

function provider(s: TestServer, apiKey = "sk-test") {
  return openaiCompatible({ baseUrl: `${s.url}/v1`, apiKey });
}

describe("openaiCompatible: streaming responses (SPEC M4)", () => {
  it("text streaming: deltas, usage-only final chunk and [DONE] give start → text → done", async () => {
    const s = await serve(sseResponse("text.sse"));
    const events = await collect(provider(s), weatherContext(), { temperature: 0.2, maxTokens: 100 });

    expect(shape(events)).toEqual(["start", "text_start", "text_delta×6", "text_end", "done"]);
    const message = finalMessage(events);
    expect(message.stopReason).toBe("stop");
    expect(message.content).toEqual([{ type: "text", text: "Hello, wörld — café 🌍!" }]);
    expect(message.responseId).toBe("chatcmpl-AYtext01");
    expect(message.usage).toMatchObject({ input: 19, output: 9, cacheRead: 0, totalTokens: 28 });
    expect(message).toMatchObject({ role: "assistant", api: "openai-completions", provider: "openai", model: "gpt-4o-mini" });
    const textEnd = events.find((e) => e.type === "text_end");
    expect(textEnd).toMatchObject({ contentIndex: 0, content: "Hello, wörld — café 🌍!" });

    // The request: POST /v1/chat/completions, bearer key, streaming with usage, tools declared.
    const [request] = s.requests;
    expect(request!.method).toBe("POST");
    expect(request!.url).toBe("/v1/chat/completions");
    expect(request!.headers.authorization).toBe("Bearer sk-test");
    expect(request!.json()).toEqual({
      model: "gpt-4o-mini",
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: "system", content: "You are a weather assistant." },
        { role: "user", content: "Weather in Paris?" },
      ],
      tools: [
        {
          type: "function",
          function: {
            name: "get_weather",
            description: "Current weather for a location",
            parameters: { type: "object", properties: { location: { type: "string" } }, required: ["location"] },
          },
        },
      ],
      max_tokens: 100,
      temperature: 0.2,
    });
  });

  it("partials are fresh snapshots: each text_delta carries the text so far, earlier snapshots unchanged", async () => {
    const s = await serve(sseResponse("text.sse"));
    const events = await collect(provider(s), weatherContext());
    const texts = events.filter((e) => e.type === "text_delta").map((e) => (e as { partial: { content: { text: string }[] } }).partial.content[0]!.text);
    expect(texts).toEqual(["Hel", "Hello", "Hello, wörld", "Hello, wörld — ", "Hello, wörld — café 🌍", "Hello, wörld — café 🌍!"]);
  });

  it("chunks split inside UTF-8 characters and between \\r and \\n over real HTTP", async () => {
    const bytes = fixture("text-crlf.sse");
    const offsets: number[] = [];
    for (const char of ["ö", "—", "é", "🌍"]) {
      const at = bytes.indexOf(Buffer.from(char, "utf8"));
      const width = Buffer.byteLength(char, "utf8");
      for (let k = 1; k < width; k++) offsets.push(at + k);
    }
    for (let i = bytes.indexOf("\r\n"); i >= 0; i = bytes.indexOf("\r\n", i + 1)) offsets.push(i + 1);
    const s = await serve({ ...sseResponse("text-crlf.sse", (b) => splitAt(b, offsets)), delayMs: 3 });
    const events = await collect(provider(s), weatherContext());
    expect(shape(events)).toEqual(["start", "text_start", "text_delta×6", "text_end", "done"]);
    expect(finalMessage(events).content).toEqual([{ type: "text", text: "Hello, wörld — café 🌍!" }]);
  });

  it("one tool call with arguments split across many chunks: partial arguments grow, end parses them", async () => {
    const s = await serve(sseResponse("tool-call.sse", (b) => splitAt(b, [100, 777, 1500, 3001, 4444])));
    const events = await collect(provider(s), weatherContext());
    expect(shape(events)).toEqual(["start", "toolcall_start", "toolcall_delta×15", "toolcall_end", "done"]);

    const partialArgs = events
      .filter((e) => e.type === "toolcall_delta")
      .map((e) => ((e as { partial: { content: ToolCall[] } }).partial.content[0] as ToolCall).arguments);
    expect(partialArgs[0]).toEqual({});
    expect(partialArgs).toContainEqual({ location: "Paris, Fran" });
    expect(partialArgs).toContainEqual({ location: "Paris, France", unit: "cels" });
    expect(partialArgs).toContainEqual({ location: "Paris, France", unit: "celsius", days: [1] });

    const end = events.find((e) => e.type === "toolcall_end") as Extract<AssistantMessageEvent, { type: "toolcall_end" }>;
    const expected: ToolCall = {
      type: "toolCall",
      id: "call_Kq2vV0dA7xJm",
      name: "get_weather",
      arguments: { location: "Paris, France", unit: "celsius", days: [1, 2, 3] },
    };
    expect(end.toolCall).toEqual(expected);
    const message = finalMessage(events);
    expect(message.stopReason).toBe("toolUse");
    expect(message.content).toEqual([expected]);
    // 82 prompt tokens of which 64 cached.
    expect(message.usage).toMatchObject({ input: 18, cacheRead: 64, output: 25, totalTokens: 107 });
  });

  it("three parallel tool calls interleaved by index are assembled per index", async () => {
    const s = await serve(sseResponse("parallel-tool-calls.sse"));
    const events = await collect(provider(s), weatherContext());
    const message = finalMessage(events);
    expect(message.stopReason).toBe("toolUse");
    expect(message.content).toEqual([
      { type: "toolCall", id: "call_A1", name: "read_file", arguments: { path: "src/a.ts" } },
      { type: "toolCall", id: "call_B2", name: "read_file", arguments: { path: "src/b.ts" } },
      { type: "toolCall", id: "call_C3", name: "list_dir", arguments: { path: "src", recursive: true } },
    ]);
    // Deltas really were interleaved: content index 2 streamed before 0 finished.
    const deltaIndexes = events.filter((e) => e.type === "toolcall_delta").map((e) => (e as { contentIndex: number }).contentIndex);
    expect(deltaIndexes.slice(0, 3)).toEqual([2, 1, 0]);
    const ends = events.filter((e) => e.type === "toolcall_end").map((e) => (e as { contentIndex: number }).contentIndex);
    expect(ends).toEqual([0, 1, 2]);
  });

  it("reasoning deltas (reasoning_content) become a thinking block before the text", async () => {
    const s = await serve(sseResponse("reasoning.sse"));
    const events = await collect(provider(s), weatherContext(), { reasoning: "high" }, { ...model, id: "deepseek-reasoner", reasoning: true });
    expect(shape(events)).toEqual([
      "start",
      "thinking_start",
      "thinking_delta×3",
      "text_start",
      "text_delta×2",
      "thinking_end",
      "text_end",
      "done",
    ]);
    const message = finalMessage(events);
    expect(message.content).toEqual([
      { type: "thinking", thinking: "The user asks 2+2. That is 4.", thinkingSignature: "reasoning_content" },
      { type: "text", text: "2 + 2 = 4" },
    ]);
    // Usage on the finishing chunk itself (no separate usage chunk).
    expect(message.usage).toMatchObject({ input: 14, output: 30 });
    expect(s.requests[0]!.json().reasoning_effort).toBe("high");
  });

  it("headers: model.headers, configured headers, then the request's; names compared without case", async () => {
    const s = await serve(sseResponse("text.sse"));
    const streamFn = openaiCompatible({ baseUrl: `${s.url}/v1`, apiKey: "sk-config", headers: { "X-Title": "rxagent", "HTTP-Referer": "https://example.test" } });
    await collect(streamFn, weatherContext(), { apiKey: "sk-loop", headers: { "x-title": "override" } }, { ...model, headers: { "x-model": "m" } });
    const headers = s.requests[0]!.headers;
    expect(headers.authorization).toBe("Bearer sk-loop");
    expect(headers["x-title"]).toBe("override");
    expect(headers["http-referer"]).toBe("https://example.test");
    expect(headers["x-model"]).toBe("m");
    expect(headers.accept).toBe("text/event-stream");

    await collect(streamFn, weatherContext(), { headers: { Authorization: "Bearer from-request" } });
    expect(s.requests[1]!.headers.authorization).toBe("Bearer from-request");
  });

  it("a custom fetch is used for the request (here one that logs and delegates to the real fetch)", async () => {
    const s = await serve(sseResponse("text.sse"));
    const log: string[] = [];
    const loggingFetch: typeof fetch = (input, init) => {
      log.push(`${init?.method} ${String(input)}`);
      return fetch(input, init);
    };
    const events = await collect(openaiCompatible({ baseUrl: `${s.url}/v1/`, fetch: loggingFetch, modelId: "my-deployment" }), weatherContext());
    expect(finalMessage(events).stopReason).toBe("stop");
    expect(log).toEqual([`POST ${s.url}/v1/chat/completions`]);
    expect(s.requests[0]!.json().model).toBe("my-deployment");
    expect(s.requests[0]!.headers.authorization).toBeUndefined();
  });

  it("the Observable is cold: nothing is sent before subscribe, each subscription is one request", async () => {
    const s = await serve(sseResponse("text.sse"));
    const observable = from(provider(s)(model, weatherContext(), {}) as never);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(s.requests).toHaveLength(0);
    await lastValueFrom(observable.pipe(toArray()));
    await lastValueFrom(observable.pipe(toArray()));
    expect(s.requests).toHaveLength(2);
  });
});

describe("openaiCompatible: servers that bend the format", () => {
  const sse = (...chunks: object[]) => ({
    status: 200,
    headers: { "content-type": "text/event-stream" },
    chunks: [chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n"],
  });
  const choice = (delta: object, finish_reason: string | null = null) => ({ id: "chatcmpl-x", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason }] });

  it("tool calls sent whole without `index` (one id each), and finish_reason stop with tool calls, give toolUse", async () => {
    const s = await serve(
      sse(
        choice({ role: "assistant", tool_calls: [{ id: "call_1", type: "function", function: { name: "a", arguments: '{"x":1}' } }] }),
        choice({ tool_calls: [{ id: "call_2", type: "function", function: { name: "b", arguments: "{}" } }] }),
        choice({}, "stop"),
      ),
    );
    const message = finalMessage(await collect(provider(s), weatherContext()));
    expect(message.stopReason).toBe("toolUse");
    expect(message.content).toEqual([
      { type: "toolCall", id: "call_1", name: "a", arguments: { x: 1 } },
      { type: "toolCall", id: "call_2", name: "b", arguments: {} },
    ]);
  });

  it("invalid tool-call JSON keeps the best partial reading and says why in argumentsError", async () => {
    const s = await serve(
      sse(
        choice({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "write", arguments: '{"path":"a.txt","text":"hel' } }] }),
        choice({}, "tool_calls"),
      ),
    );
    const message = finalMessage(await collect(provider(s), weatherContext()));
    expect(message.stopReason).toBe("toolUse");
    const call = message.content[0] as ToolCall;
    expect(call.arguments).toEqual({ path: "a.txt", text: "hel" });
    expect(call.argumentsError).toMatch(/^Tool call arguments are not valid JSON \(.*\): \{"path":"a\.txt","text":"hel$/);
  });

  it("finish_reason length ends with `length`, keeping the text", async () => {
    const s = await serve(sse(choice({ content: "Once upon a" }), choice({}, "length")));
    const events = await collect(provider(s), weatherContext());
    expect(events[events.length - 1]).toMatchObject({ type: "done", reason: "length" });
    expect(finalMessage(events).content).toEqual([{ type: "text", text: "Once upon a" }]);
  });
});

describe("openaiCompatible: failures become the final error message (SPEC M4)", () => {
  it("HTTP 401 with an OpenAI error body: status and the provider's message (the echoed key redacted), no start", async () => {
    const s = await serve(errorResponse(401, "error-401.json"));
    const events = await collect(provider(s, "sk-bad"), weatherContext());
    expect(shape(events)).toEqual(["error"]);
    const message = finalMessage(events);
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toBe(
      "HTTP 401 Unauthorized: Incorrect API key provided: [redacted]. You can find your API key at https://platform.openai.com/account/api-keys. [invalid_api_key]",
    );
    expect(getProviderFailure(message)).toEqual({ kind: "http", status: 401, code: "invalid_api_key", retryable: false });
  });

  it("HTTP 429 with Retry-After: the failure records the wait and is retryable", async () => {
    const s = await serve(errorResponse(429, "error-429.json", { "retry-after": "2" }));
    const message = finalMessage(await collect(provider(s), weatherContext()));
    expect(message.errorMessage).toMatch(/^HTTP 429 Too Many Requests: Rate limit reached for gpt-4o-mini .* \[rate_limit_exceeded\]$/);
    expect(getProviderFailure(message)).toMatchObject({ kind: "http", status: 429, retryAfterMs: 2000, retryable: true });
  });

  it("HTTP 500: status and the provider's message", async () => {
    const s = await serve(errorResponse(500, "error-500.json"));
    const message = finalMessage(await collect(provider(s), weatherContext()));
    expect(message.errorMessage).toBe(
      "HTTP 500 Internal Server Error: The server had an error while processing your request. Sorry about that! [server_error]",
    );
    expect(getProviderFailure(message)).toMatchObject({ status: 500, retryable: true });
  });

  it("HTTP 404 and 403 with non-JSON bodies keep the status and the text", async () => {
    const s = await serve(
      { status: 404, headers: { "content-type": "text/plain" }, chunks: ["404 page not found"] },
      { status: 403, headers: { "content-type": "application/json" }, chunks: ['{"error":"Project does not have access to model gpt-4o-mini"}'] },
    );
    const notFound = finalMessage(await collect(provider(s), weatherContext()));
    expect(notFound.errorMessage).toBe("HTTP 404 Not Found: 404 page not found");
    const forbidden = finalMessage(await collect(provider(s), weatherContext()));
    expect(forbidden.errorMessage).toBe("HTTP 403 Forbidden: Project does not have access to model gpt-4o-mini");
  });

  it("an error object in the middle of the stream: error after the streamed text, which is kept", async () => {
    const s = await serve(sseResponse("mid-stream-error.sse"));
    const events = await collect(provider(s), weatherContext());
    expect(shape(events)).toEqual(["start", "text_start", "text_delta", "error"]);
    const message = finalMessage(events);
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toBe(
      "The provider reported an error mid-stream: The server had an error while processing your request. Sorry about that! [server_error]",
    );
    expect(message.content).toEqual([{ type: "text", text: "Partial" }]);
  });

  it("malformed JSON in a chunk", async () => {
    const s = await serve(sseResponse("malformed-json.sse"));
    const message = finalMessage(await collect(provider(s), weatherContext()));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/^Malformed JSON in a stream chunk: \{"id":"chatcmpl-AYbad01"/);
    expect(message.content).toEqual([{ type: "text", text: "Hi" }]);
  });

  it("a stream that ends without a finish_reason (connection closed early)", async () => {
    const s = await serve(sseResponse("closed-early.sse"));
    const message = finalMessage(await collect(provider(s), weatherContext()));
    expect(message.errorMessage).toBe("The stream ended before the response was finished (no finish_reason): the connection was closed early");
    expect(message.content).toEqual([{ type: "text", text: "The answer is" }]);
    expect(getProviderFailure(message)).toMatchObject({ kind: "network", retryable: true });
  });

  it("M4: a plain JSON 200 reply (a server that ignores stream: true) is named as such, not as a closed connection", async () => {
    const completion = JSON.stringify({ id: "chatcmpl-1", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: "Hi" }, finish_reason: "stop" }] });
    const s = await serve({ status: 200, headers: { "content-type": "application/json; charset=utf-8" }, chunks: [completion] });
    const message = finalMessage(await collect(provider(s), weatherContext()));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/^HTTP 200: the server sent a non-streaming JSON reply \(content-type application\/json; charset=utf-8\) where a text\/event-stream was requested/);
    expect(message.errorMessage).toContain('The reply began: {"id":"chatcmpl-1"');
    expect(message.errorMessage).not.toMatch(/closed early/);
    expect(getProviderFailure(message)).toMatchObject({ kind: "protocol", retryable: false });
  });

  it("M4: an event stream mislabelled application/json is still read as one", async () => {
    const s = await serve({ ...sseResponse("text.sse"), headers: { "content-type": "application/json" } });
    const message = finalMessage(await collect(provider(s), weatherContext()));
    expect(message.stopReason).toBe("stop");
    expect(message.errorMessage).toBeUndefined();
    expect(message.content.length).toBeGreaterThan(0);
  });

  it("the socket destroyed mid-stream is a network error", async () => {
    const s = await serve({ ...sseResponse("closed-early.sse"), destroy: true });
    const message = finalMessage(await collect(provider(s), weatherContext()));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/^(Network error while streaming the response: |The stream ended before)/);
  });

  it("finish_reason content_filter is an error with a clear message", async () => {
    const s = await serve(sseResponse("content-filter.sse"));
    const message = finalMessage(await collect(provider(s), weatherContext()));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toBe("The provider stopped the response: finish_reason content_filter (the output was blocked by its content filter)");
  });

  it("network failure (connection refused)", async () => {
    const s = await serve(sseResponse("text.sse"));
    const url = s.url;
    await s.close();
    const events = await collect(openaiCompatible({ baseUrl: `${url}/v1` }), weatherContext());
    expect(shape(events)).toEqual(["error"]);
    const message = finalMessage(events);
    expect(message.errorMessage).toMatch(new RegExp(`^Network error: could not reach ${url}/v1: fetch failed \\(.*ECONNREFUSED`));
    expect(getProviderFailure(message)).toEqual({ kind: "network", retryable: true });
  });
});

describe("openaiCompatible: cancellation (SPEC L10)", () => {
  const slow = (): ScriptedResponse => {
    const bytes = fixture("text.sse");
    const head = bytes.subarray(0, bytes.indexOf("data:", bytes.indexOf("data:") + 1));
    const drip = `data: ${JSON.stringify({ id: "chatcmpl-slow", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: "." }, finish_reason: null }] })}\n\n`;
    return { status: 200, headers: { "content-type": "text/event-stream" }, chunks: [head], drip, delayMs: 20 };
  };

  it("a slow stream aborted mid-way through the signal ends `aborted` and the server sees the connection close", async () => {
    const s = await serve(slow());
    const controller = new AbortController();
    let deltas = 0;
    const events = await lastValueFrom(
      events$(provider(s), weatherContext(), { signal: controller.signal }).pipe(
        tap((event) => {
          if (event.type === "text_delta" && ++deltas === 3) controller.abort();
        }),
        toArray(),
      ),
    );
    const last = events[events.length - 1]!;
    expect(last).toMatchObject({ type: "error", reason: "aborted" });
    const message = finalMessage(events);
    expect(message.stopReason).toBe("aborted");
    expect(message.errorMessage).toBe("Request was aborted");
    expect(message.content).toEqual([{ type: "text", text: "..." }]);
    await s.waitForClientClose(0);
    expect(s.clientClosed).toEqual([0]);
  });

  it("events already read when the signal fires are not delivered (one write holds the whole stream)", async () => {
    const s = await serve(sseResponse("text.sse"));
    const controller = new AbortController();
    const events = await lastValueFrom(
      events$(provider(s), weatherContext(), { signal: controller.signal }).pipe(
        tap((event) => {
          if (event.type === "text_delta") controller.abort();
        }),
        toArray(),
      ),
    );
    expect(shape(events)).toEqual(["start", "text_start", "text_delta", "error"]);
    expect(finalMessage(events)).toMatchObject({ stopReason: "aborted", content: [{ type: "text", text: "Hel" }] });
  });

  it("an abort while the blocks close (on text_end) still ends `aborted`, never `done`; an abort on done changes nothing", async () => {
    const s = await serve(sseResponse("text.sse"));
    const run = async (abortOn: AssistantMessageEvent["type"]) => {
      const controller = new AbortController();
      return lastValueFrom(
        events$(provider(s), weatherContext(), { signal: controller.signal }).pipe(
          tap((event) => {
            if (event.type === abortOn) controller.abort();
          }),
          toArray(),
        ),
      );
    };
    const onEnd = await run("text_end");
    expect(shape(onEnd)).toEqual(["start", "text_start", "text_delta×6", "text_end", "error"]);
    expect(onEnd.at(-1)).toMatchObject({ type: "error", reason: "aborted" });
    const onDone = await run("done");
    expect(shape(onDone)).toEqual(["start", "text_start", "text_delta×6", "text_end", "done"]);
  });

  it("unsubscribing mid-stream cancels the HTTP request and emits nothing more", async () => {
    const s = await serve(slow());
    const stop = new Subject<void>();
    const seen: string[] = [];
    const done = lastValueFrom(
      events$(provider(s), weatherContext()).pipe(
        takeUntil(stop),
        tap((event) => seen.push(event.type)),
        toArray(),
      ),
    );
    while (seen.filter((type) => type === "text_delta").length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    stop.next();
    await done;
    await s.waitForClientClose(0);
    const count = seen.length;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(seen.length).toBe(count);
    expect(seen).not.toContain("error");
  });

  it("a signal aborted before subscribe yields one aborted message and sends nothing", async () => {
    const s = await serve(sseResponse("text.sse"));
    const controller = new AbortController();
    controller.abort();
    const events = await collect(provider(s), weatherContext(), { signal: controller.signal });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "error", reason: "aborted" });
    expect(s.requests).toHaveLength(0);
  });
});
