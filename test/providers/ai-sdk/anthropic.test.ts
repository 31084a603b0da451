/**
 * `fromAiSdk` over the real `@ai-sdk/anthropic` provider, pointed at a server on 127.0.0.1 that
 * replays recorded Messages API streams (SPEC M3, M4; rules V1–V5 proposed for `rxagent/ai-sdk`).
 */
import { describe, expect, it } from "vitest";
import { Subscription } from "rxjs";
import { aiSdkModel, fromAiSdk } from "../../../src/providers/ai-sdk/index.js";
import { withRetry } from "../../../src/providers/retry/index.js";
import { getProviderFailure } from "../../../src/providers/shared/provider-failure.js";
import type { AssistantMessage, AssistantMessageEvent, Model, ThinkingContent, ToolCall } from "../../../src/model/messages.js";
import { collect, events$, finalMessage, shape, weatherContext } from "../support/collect.js";
import { splitAt, scriptedServers, type TestServer } from "../support/http-server.js";
import { anthropicAt, firstEvents, httpError, perEvent, recorded, recording, sse, weatherAndTimeContext } from "./support.js";

const serve = scriptedServers();

function bridge(s: TestServer, fields: Partial<Model> = {}) {
  const claude = recording(anthropicAt(s.url));
  return { claude, streamFn: fromAiSdk(claude), model: aiSdkModel(claude, fields) };
}

describe("fromAiSdk + @ai-sdk/anthropic: streaming (V3, SPEC M4)", () => {
  it("V3 · plain text: start → text_start → deltas → text_end → done, with usage, responseId and the Messages request", async () => {
    const s = await serve(sse("anthropic-text.sse", perEvent));
    const { streamFn, model } = bridge(s);
    const events = await collect(streamFn, weatherContext(), { maxTokens: 100, temperature: 0.2 }, model);

    expect(shape(events)).toEqual(["start", "text_start", "text_delta×3", "text_end", "done"]);
    const message = finalMessage(events);
    expect(message).toMatchObject({ role: "assistant", api: "ai-sdk", provider: "anthropic.messages", model: "claude-sonnet-4-5", stopReason: "stop", responseId: "msg_01TextQ7b3JtWq1" });
    expect(message.content).toEqual([{ type: "text", text: "Hello, wörld — café 🌍!" }]);
    expect(message.usage).toMatchObject({ input: 21, output: 12, cacheRead: 0, cacheWrite: 0, totalTokens: 33 });
    const texts = events.filter((e) => e.type === "text_delta").map((e) => ((e as { partial: AssistantMessage }).partial.content[0] as { text: string }).text);
    expect(texts).toEqual(["Hello", "Hello, wörld — ", "Hello, wörld — café 🌍!"]);

    const [request] = s.requests;
    expect(request!.method).toBe("POST");
    expect(request!.url).toBe("/v1/messages");
    expect(request!.headers["x-api-key"]).toBe("sk-ant-test");
    const body = request!.json();
    expect(body).toMatchObject({
      model: "claude-sonnet-4-5",
      stream: true,
      max_tokens: 100,
      temperature: 0.2,
      system: [{ type: "text", text: "You are a weather assistant." }],
      messages: [{ role: "user", content: [{ type: "text", text: "Weather in Paris?" }] }],
    });
    expect(body.tools).toHaveLength(1);
    expect(body.tools[0]).toMatchObject({
      name: "get_weather",
      description: "Current weather for a location",
      input_schema: { type: "object", properties: { location: { type: "string" } }, required: ["location"] },
    });
  });

  it("V3 · thinking: a thinking block with its signature kept for replay, then the answer; the signature goes back on the next request (V2)", async () => {
    const s = await serve(sse("anthropic-thinking.sse", perEvent), sse("anthropic-text.sse"));
    const { streamFn, model } = bridge(s);
    const context = { messages: [{ role: "user" as const, content: "17 * 23?", timestamp: 1 }] };
    const events = await collect(streamFn, context, { reasoning: "high" }, model);

    expect(shape(events)).toEqual(["start", "thinking_start", "thinking_delta×2", "thinking_end", "text_start", "text_delta×2", "text_end", "done"]);
    const message = finalMessage(events);
    const thinking = message.content[0] as ThinkingContent;
    expect(thinking.thinking).toBe("17 × 23: 17 × 20 = 340, 17 × 3 = 51, so 391.");
    expect(JSON.parse(thinking.thinkingSignature!)).toEqual({ anthropic: { signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxDYTm2f8qP3Y5WzB8iMHvN6kXo8hG0rYpQn2L7sDkR" } });
    const thinkingEnd = events.find((e) => e.type === "thinking_end") as Extract<AssistantMessageEvent, { type: "thinking_end" }>;
    expect((thinkingEnd.partial.content[0] as ThinkingContent).thinkingSignature).toBe(thinking.thinkingSignature);
    expect(message.content[1]).toEqual({ type: "text", text: "17 × 23 = 391" });
    // The reasoning level reached the provider, which asked for thinking.
    expect(s.requests[0]!.json().thinking).toMatchObject({ type: expect.stringMatching(/enabled|adaptive/) });

    await collect(streamFn, { messages: [...context.messages, message, { role: "user", content: "And 17 * 24?", timestamp: 3 }] }, {}, model);
    const replayed = s.requests[1]!.json().messages[1];
    expect(replayed).toEqual({
      role: "assistant",
      content: [
        { type: "thinking", thinking: thinking.thinking, signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxDYTm2f8qP3Y5WzB8iMHvN6kXo8hG0rYpQn2L7sDkR" },
        { type: "text", text: "17 × 23 = 391" },
      ],
    });
  });

  it("V3 · a tool call whose input arrives split across chunks: partial arguments grow, the end parses them, usage counts the cache and the cost", async () => {
    // Cut inside every input_json_delta event (and inside its JSON string), so no event arrives whole.
    const bytes = recorded("anthropic-tool-call.sse");
    const offsets: number[] = [];
    for (let at = bytes.indexOf("partial_json"); at >= 0; at = bytes.indexOf("partial_json", at + 1)) offsets.push(at + 5, at + 17);
    expect(offsets.length).toBe(14);
    const s = await serve({ ...sse("anthropic-tool-call.sse", (b) => splitAt(b, offsets)), delayMs: 3 });
    const cost = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
    const { streamFn, model } = bridge(s, { cost });
    const events = await collect(streamFn, weatherContext(), {}, model);

    expect(shape(events)).toEqual(["start", "text_start", "text_delta", "text_end", "toolcall_start", "toolcall_delta×6", "toolcall_end", "done"]);
    const partialArgs = events.filter((e) => e.type === "toolcall_delta").map((e) => ((e as { partial: AssistantMessage }).partial.content[1] as ToolCall).arguments);
    expect(partialArgs).toContainEqual({ location: "Par" });
    expect(partialArgs).toContainEqual({ location: "Paris, France", unit: "cels" });
    expect(partialArgs).toContainEqual({ location: "Paris, France", unit: "celsius", days: [1] }); // half a number is not shown
    const expected: ToolCall = { type: "toolCall", id: "toolu_01A09q90qw90lq917835lq9", name: "get_weather", arguments: { location: "Paris, France", unit: "celsius", days: [1, 2, 3] } };
    const end = events.find((e) => e.type === "toolcall_end") as Extract<AssistantMessageEvent, { type: "toolcall_end" }>;
    expect(end.toolCall).toEqual(expected);

    const message = finalMessage(events);
    expect(message.stopReason).toBe("toolUse");
    expect(message.content).toEqual([{ type: "text", text: "Let me check the weather." }, expected]);
    expect(message.usage).toMatchObject({ input: 12, output: 89, cacheRead: 2048, cacheWrite: 300, totalTokens: 12 + 89 + 2048 + 300 });
    const price = (rate: number, tokens: number) => (rate * tokens) / 1e6;
    expect(message.usage.cost.input).toBeCloseTo(price(cost.input, 12), 12);
    expect(message.usage.cost.output).toBeCloseTo(price(cost.output, 89), 12);
    expect(message.usage.cost.cacheRead).toBeCloseTo(price(cost.cacheRead, 2048), 12);
    expect(message.usage.cost.cacheWrite).toBeCloseTo(price(cost.cacheWrite, 300), 12);
    expect(message.usage.cost.total).toBeCloseTo(price(3, 12) + price(15, 89) + price(0.3, 2048) + price(3.75, 300), 12);
  });

  it("V3 · two tool calls: two blocks in order, each with its own arguments", async () => {
    const s = await serve(sse("anthropic-two-tool-calls.sse", perEvent));
    const { streamFn, model } = bridge(s);
    const events = await collect(streamFn, weatherAndTimeContext(), {}, model);

    expect(shape(events)).toEqual(["start", "toolcall_start", "toolcall_delta×2", "toolcall_end", "toolcall_start", "toolcall_delta×2", "toolcall_end", "done"]);
    const message = finalMessage(events);
    expect(message.stopReason).toBe("toolUse");
    expect(message.content).toEqual([
      { type: "toolCall", id: "toolu_01Paris7Hq2", name: "get_weather", arguments: { location: "Paris" } },
      { type: "toolCall", id: "toolu_01Tokyo3Lm9", name: "get_time", arguments: { timezone: "Asia/Tokyo" } },
    ]);
    expect(s.requests[0]!.json().tools.map((t: { name: string }) => t.name)).toEqual(["get_weather", "get_time"]);
  });
});

describe("fromAiSdk + @ai-sdk/anthropic: failures (V4, SPEC M4)", () => {
  it("V4 · an error event mid-stream: one final error keeping the text so far, with retryable stream details", async () => {
    const s = await serve(sse("anthropic-mid-stream-error.sse", perEvent));
    const { streamFn, model } = bridge(s);
    const events = await collect(streamFn, weatherContext(), {}, model);

    expect(shape(events)).toEqual(["start", "text_start", "text_delta", "error"]);
    const message = finalMessage(events);
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toBe("The provider reported an error mid-stream: Overloaded [overloaded_error]");
    expect(message.content).toEqual([{ type: "text", text: "The weather in Paris is" }]);
    expect(getProviderFailure(message)).toEqual({ kind: "stream", code: "overloaded_error", status: 529, retryable: true });
  });

  it("V4 · HTTP 429: the only event is error, with the provider's message, the code and Retry-After for withRetry", async () => {
    const s = await serve(httpError(429, "anthropic-error-429.json", { "retry-after": "2" }));
    const { streamFn, model } = bridge(s);
    const events = await collect(streamFn, weatherContext(), {}, model);

    expect(shape(events)).toEqual(["error"]);
    const message = finalMessage(events);
    expect(message).toMatchObject({ stopReason: "error", api: "ai-sdk", provider: "anthropic.messages", content: [] });
    expect(message.errorMessage).toBe("HTTP 429: This request would exceed the rate limit for your organization of 50 requests per minute. [rate_limit_error]");
    expect(getProviderFailure(message)).toEqual({ kind: "http", status: 429, code: "rate_limit_error", retryAfterMs: 2000, retryable: true });
    expect(s.requests).toHaveLength(1);
  });

  it("V4 · HTTP 401: not retryable", async () => {
    const s = await serve(httpError(401, "anthropic-error-401.json"));
    const { streamFn, model } = bridge(s);
    const message = finalMessage(await collect(streamFn, weatherContext(), {}, model));
    expect(message.errorMessage).toBe("HTTP 401: invalid x-api-key [authentication_error]");
    expect(getProviderFailure(message)).toMatchObject({ kind: "http", status: 401, retryable: false });
  });

  it("V4 · the recorded details let withRetry retry an HTTP 429 from the bridge, waiting what retry-after-ms asked", async () => {
    const s = await serve(httpError(429, "anthropic-error-429.json", { "retry-after-ms": "20" }), sse("anthropic-text.sse"));
    const { streamFn, model } = bridge(s);
    const retried = withRetry(streamFn, { maxRetries: 2, jitter: 0 });
    const delays: number[] = [];
    retried.retries$.subscribe((retry) => delays.push(retry.delayMs));
    const message = finalMessage(await collect(retried, weatherContext(), {}, model));
    expect(message.stopReason).toBe("stop");
    expect(message.content).toEqual([{ type: "text", text: "Hello, wörld — café 🌍!" }]);
    expect(delays).toEqual([20]);
    expect(s.requests).toHaveLength(2);
  });

  it("V4 · the connection breaks mid-stream: a network error keeping the text so far", async () => {
    const s = await serve({ ...sse("anthropic-text.sse"), chunks: [firstEvents("anthropic-text.sse", 4)], destroy: true });
    const { streamFn, model } = bridge(s);
    const events = await collect(streamFn, weatherContext(), {}, model);
    const message = finalMessage(events);
    expect(message.stopReason).toBe("error");
    expect(message.content).toEqual([{ type: "text", text: "Hello" }]);
    expect(message.errorMessage).toMatch(/^Network error while streaming the response: |^The stream ended before the response was finished/);
    expect(getProviderFailure(message)).toMatchObject({ kind: "network", retryable: true });
  });
});

describe("fromAiSdk + @ai-sdk/anthropic: abort (V5, SPEC L10)", () => {
  const drip = "event: ping\ndata: {\"type\": \"ping\"}\n\n";

  it("V5 · unsubscribing mid-stream aborts the signal given to doStream and the server sees the connection closed", async () => {
    const s = await serve({ ...sse("anthropic-text.sse"), chunks: [firstEvents("anthropic-text.sse", 4)], drip, delayMs: 5 });
    const { claude, streamFn, model } = bridge(s);
    const seen: string[] = [];
    const subscription = new Subscription();
    await new Promise<void>((firstDelta) => {
      subscription.add(
        events$(streamFn, weatherContext(), {}, model).subscribe((event) => {
          seen.push(event.type);
          if (event.type === "text_delta") firstDelta();
        }),
      );
    });
    subscription.unsubscribe();
    await s.waitForClientClose(0);

    expect(s.clientClosed).toEqual([0]);
    expect(claude.calls[0]!.abortSignal?.aborted).toBe(true);
    expect(seen).toEqual(["start", "text_start", "text_delta"]);
  });

  it("V5 · the loop's signal aborts mid-stream: the final message is aborted with the text delivered, and the connection closes", async () => {
    const s = await serve({ ...sse("anthropic-text.sse"), chunks: [firstEvents("anthropic-text.sse", 4)], drip, delayMs: 5 });
    const { claude, streamFn, model } = bridge(s);
    const controller = new AbortController();
    const events: AssistantMessageEvent[] = [];
    await new Promise<void>((done) => {
      events$(streamFn, weatherContext(), { signal: controller.signal }, model).subscribe({
        next: (event) => {
          events.push(event);
          if (event.type === "text_delta") controller.abort();
        },
        complete: done,
      });
    });
    await s.waitForClientClose(0);

    expect(shape(events)).toEqual(["start", "text_start", "text_delta", "error"]);
    const message = finalMessage(events);
    expect(message).toMatchObject({ stopReason: "aborted", errorMessage: "Request was aborted", content: [{ type: "text", text: "Hello" }] });
    expect(claude.calls[0]!.abortSignal?.aborted).toBe(true);
  });
});
