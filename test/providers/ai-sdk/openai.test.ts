/**
 * `fromAiSdk` over the real `@ai-sdk/openai` provider — its Chat Completions model and its
 * Responses model (the provider's default) — pointed at a server on 127.0.0.1 that replays
 * recorded streams (SPEC M3, M4; rules V1–V5 proposed for `rxagent/ai-sdk`).
 */
import { describe, expect, it } from "vitest";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { aiSdkModel, fromAiSdk } from "../../../src/providers/ai-sdk/index.js";
import { getProviderFailure } from "../../../src/providers/shared/provider-failure.js";
import type { AssistantMessage, AssistantMessageEvent, ThinkingContent, ToolCall } from "../../../src/model/messages.js";
import { collect, events$, finalMessage, shape, weatherContext } from "../support/collect.js";
import { splitAt, scriptedServers } from "../support/http-server.js";
import { firstEvents, httpError, openaiChatAt, openaiResponsesAt, perEvent, recorded, recording, sse, weatherAndTimeContext } from "./support.js";

const serve = scriptedServers();

function bridge(languageModel: LanguageModelV4) {
  const recorder = recording(languageModel);
  return { recorder, streamFn: fromAiSdk(recorder), model: aiSdkModel(recorder) };
}

describe("fromAiSdk + @ai-sdk/openai Chat Completions (V3, V4, V5)", () => {
  it("V3 · plain text: deltas, the usage-only last chunk and [DONE]; the request is a Chat Completions body", async () => {
    const s = await serve(sse("openai-chat-text.sse", perEvent));
    const { streamFn, model } = bridge(openaiChatAt(s.url));
    const events = await collect(streamFn, weatherContext(), { maxTokens: 100, temperature: 0.2 }, model);

    expect(shape(events)).toEqual(["start", "text_start", "text_delta×3", "text_end", "done"]);
    const message = finalMessage(events);
    expect(message).toMatchObject({ api: "ai-sdk", provider: "openai.chat", model: "gpt-4o-mini", stopReason: "stop", responseId: "chatcmpl-CxText01" });
    expect(message.content).toEqual([{ type: "text", text: "Hello, wörld — café 🌍!" }]);
    expect(message.usage).toMatchObject({ input: 19, output: 9, cacheRead: 0, cacheWrite: 0, totalTokens: 28 });

    const request = s.requests[0]!;
    expect(request.url).toBe("/v1/chat/completions");
    expect(request.headers.authorization).toBe("Bearer sk-test");
    expect(request.json()).toMatchObject({
      model: "gpt-4o-mini",
      stream: true,
      max_tokens: 100,
      temperature: 0.2,
      messages: [
        { role: "system", content: "You are a weather assistant." },
        { role: "user", content: "Weather in Paris?" },
      ],
      tools: [{ type: "function", function: { name: "get_weather", description: "Current weather for a location", parameters: { type: "object", properties: { location: { type: "string" } }, required: ["location"] } } }],
    });
  });

  it("V3 · a tool call split across many chunks (cut inside the JSON): arguments grow, end parses them; cached prompt tokens are cacheRead", async () => {
    const bytes = recorded("openai-chat-tool-call.sse");
    const offsets: number[] = [];
    for (let at = bytes.indexOf('"arguments":"'); at >= 0; at = bytes.indexOf('"arguments":"', at + 1)) offsets.push(at + 3, at + 14);
    const s = await serve({ ...sse("openai-chat-tool-call.sse", (b) => splitAt(b, offsets)), delayMs: 3 });
    const { streamFn, model } = bridge(openaiChatAt(s.url));
    const events = await collect(streamFn, weatherContext(), {}, model);

    expect(shape(events)).toEqual(["start", "toolcall_start", "toolcall_delta×15", "toolcall_end", "done"]);
    const partialArgs = events.filter((e) => e.type === "toolcall_delta").map((e) => ((e as { partial: AssistantMessage }).partial.content[0] as ToolCall).arguments);
    expect(partialArgs).toContainEqual({ location: "Paris, Fran" });
    expect(partialArgs).toContainEqual({ location: "Paris, France", unit: "cels" });
    const expected: ToolCall = { type: "toolCall", id: "call_Kq2vV0dA7xJm", name: "get_weather", arguments: { location: "Paris, France", unit: "celsius", days: [1, 2, 3] } };
    expect((events.find((e) => e.type === "toolcall_end") as Extract<AssistantMessageEvent, { type: "toolcall_end" }>).toolCall).toEqual(expected);
    const message = finalMessage(events);
    expect(message.stopReason).toBe("toolUse");
    expect(message.content).toEqual([expected]);
    expect(message.usage).toMatchObject({ input: 18, cacheRead: 64, output: 25, totalTokens: 107 });
  });

  it("V3 · two parallel tool calls: two blocks in index order", async () => {
    const s = await serve(sse("openai-chat-two-tool-calls.sse", perEvent));
    const { streamFn, model } = bridge(openaiChatAt(s.url));
    const events = await collect(streamFn, weatherAndTimeContext(), {}, model);

    // The provider streams both inputs, then ends both calls when the stream ends.
    expect(shape(events)).toEqual(["start", "toolcall_start", "toolcall_delta×2", "toolcall_start", "toolcall_delta×2", "toolcall_end", "toolcall_end", "done"]);
    const message = finalMessage(events);
    expect(message.stopReason).toBe("toolUse");
    expect(message.content).toEqual([
      { type: "toolCall", id: "call_Paris01", name: "get_weather", arguments: { location: "Paris" } },
      { type: "toolCall", id: "call_Tokyo02", name: "get_time", arguments: { timezone: "Asia/Tokyo" } },
    ]);
  });

  it("V4 · an error chunk mid-stream: the final error keeps the text so far and is retryable (server_error)", async () => {
    const s = await serve(sse("openai-chat-mid-stream-error.sse", perEvent));
    const { streamFn, model } = bridge(openaiChatAt(s.url));
    const events = await collect(streamFn, weatherContext(), {}, model);

    expect(shape(events)).toEqual(["start", "text_start", "text_delta×2", "error"]);
    const message = finalMessage(events);
    expect(message.content).toEqual([{ type: "text", text: "The weather in Paris is" }]);
    expect(message.errorMessage).toBe("The provider reported an error mid-stream: The server had an error while processing your request. Sorry about that! [server_error]");
    expect(getProviderFailure(message)).toEqual({ kind: "stream", code: "server_error", status: 500, retryable: true });
  });

  it("V4 · HTTP 401 with an OpenAI error body: one error event naming the status, message and code", async () => {
    const s = await serve(httpError(401, "openai-error-401.json"));
    const { streamFn, model } = bridge(openaiChatAt(s.url));
    const events = await collect(streamFn, weatherContext(), {}, model);

    expect(shape(events)).toEqual(["error"]);
    const message = finalMessage(events);
    expect(message.errorMessage).toBe("HTTP 401: Incorrect API key provided: sk-bad. You can find your API key at https://platform.openai.com/account/api-keys. [invalid_api_key]");
    expect(getProviderFailure(message)).toEqual({ kind: "http", status: 401, code: "invalid_api_key", retryable: false });
  });

  it("V4 · an error body that echoes the key: the errorMessage the model, the UI and the journal read has it redacted", async () => {
    const key = "sk-proj-EchoedBackByTheServer0123";
    const body = JSON.stringify({ error: { message: `Incorrect API key provided: ${key}. Header was Bearer ${key}`, type: "invalid_request_error", code: "invalid_api_key" } });
    const s = await serve({ status: 401, headers: { "content-type": "application/json" }, chunks: [Buffer.from(body)] });
    const { streamFn, model } = bridge(openaiChatAt(s.url));
    const message = finalMessage(await collect(streamFn, weatherContext(), {}, model));
    expect(message.errorMessage).not.toContain(key);
    expect(message.errorMessage).toContain("Incorrect API key provided: [redacted]");
  });

  it("V5 · unsubscribing mid-stream aborts doStream's signal and closes the connection", async () => {
    const s = await serve({ ...sse("openai-chat-text.sse"), chunks: [firstEvents("openai-chat-text.sse", 2)], drip: ": keep-alive\n\n", delayMs: 5 });
    const { recorder, streamFn, model } = bridge(openaiChatAt(s.url));
    const seen: string[] = [];
    await new Promise<void>((firstDelta) => {
      const subscription = events$(streamFn, weatherContext(), {}, model).subscribe((event) => {
        seen.push(event.type);
        if (event.type === "text_delta") {
          firstDelta();
          queueMicrotask(() => subscription.unsubscribe());
        }
      });
    });
    await s.waitForClientClose(0);
    expect(s.clientClosed).toEqual([0]);
    expect(recorder.calls[0]!.abortSignal?.aborted).toBe(true);
    expect(seen).toEqual(["start", "text_start", "text_delta"]);
  });
});

describe("fromAiSdk + @ai-sdk/openai Responses (V2, V3)", () => {
  it("V3 · reasoning summary then text: a thinking block and a text block, each with its item id kept for replay", async () => {
    const s = await serve(sse("openai-responses-reasoning.sse", perEvent));
    const { streamFn, model } = bridge(openaiResponsesAt(s.url));
    const events = await collect(streamFn, { messages: [{ role: "user", content: "17 * 23?", timestamp: 1 }] }, { reasoning: "low" }, model);

    expect(shape(events)).toEqual(["start", "thinking_start", "thinking_delta×3", "thinking_end", "text_start", "text_delta×2", "text_end", "done"]);
    const message = finalMessage(events);
    expect(message).toMatchObject({ provider: "openai.responses", model: "gpt-5-mini", responseId: "resp_0a1b2c3dReason", stopReason: "stop" });
    const thinking = message.content[0] as ThinkingContent;
    expect(thinking.thinking).toBe("**Multiplying 17 by 23**\n\n17 × 20 = 340 and 17 × 3 = 51, so the product is 391.");
    expect(JSON.parse(thinking.thinkingSignature!)).toEqual({ openai: { itemId: "rs_0a1b2c3dReason01", reasoningEncryptedContent: null } });
    expect(message.content[1]).toMatchObject({ type: "text", text: "17 × 23 = 391." });
    expect(JSON.parse((message.content[1] as { textSignature: string }).textSignature)).toEqual({ openai: { itemId: "msg_0a1b2c3dReason02" } });
    // Reasoning tokens are part of the output.
    expect(message.usage).toMatchObject({ input: 36, output: 150, totalTokens: 186 });

    const request = s.requests[0]!;
    expect(request.url).toBe("/v1/responses");
    expect(request.json()).toMatchObject({ model: "gpt-5-mini", stream: true, reasoning: { effort: "low" }, input: [{ role: "user", content: [{ type: "input_text", text: "17 * 23?" }] }] });
  });

  it("V3 · a function call streamed in pieces: one tool call, its item id kept, cached input counted", async () => {
    const s = await serve(sse("openai-responses-tool-call.sse", perEvent));
    const { streamFn, model } = bridge(openaiResponsesAt(s.url));
    const events = await collect(streamFn, weatherContext(), {}, model);

    expect(shape(events)).toEqual(["start", "thinking_start", "thinking_end", "toolcall_start", "toolcall_delta×5", "toolcall_end", "done"]);
    const message = finalMessage(events);
    expect(message.stopReason).toBe("toolUse");
    const call = message.content[1] as ToolCall;
    expect(call).toMatchObject({ type: "toolCall", id: "call_W3athr0Paris", name: "get_weather", arguments: { location: "Paris, France", unit: "celsius" } });
    expect(JSON.parse(call.thoughtSignature!)).toEqual({ openai: { itemId: "fc_0a1b2c3dTool02" } });
    expect(message.usage).toMatchObject({ input: 28, cacheRead: 64, output: 30, totalTokens: 122 });
    expect(s.requests[0]!.json().tools).toEqual([
      { type: "function", name: "get_weather", description: "Current weather for a location", parameters: { type: "object", properties: { location: { type: "string" } }, required: ["location"] }, strict: false },
    ]);
  });
});
