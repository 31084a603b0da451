/**
 * Helpers for the `rxagent/ai-sdk` tests: the recorded streams of this folder, real AI SDK
 * providers pointed at a test server on 127.0.0.1, a model that records its calls, and a
 * scripted model for the tests that need no HTTP.
 */
import { readFileSync } from "node:fs";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import type { LlmContext } from "../../../src/model/messages.js";
import type { ScriptedResponse } from "../support/http-server.js";

const FIXTURES = new URL("./fixtures/", import.meta.url);

/** The bytes of a recorded stream or error body in `fixtures/`. */
export function recorded(name: string): Buffer {
  return readFileSync(new URL(name, FIXTURES));
}

/** A recorded SSE stream, optionally cut into pieces. */
export function sse(name: string, pieces?: (bytes: Buffer) => Uint8Array[]): ScriptedResponse {
  const bytes = recorded(name);
  return { status: 200, headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" }, chunks: pieces ? pieces(bytes) : [bytes] };
}

/** A recorded JSON error body with `status`. */
export function httpError(status: number, name: string, headers: Record<string, string> = {}): ScriptedResponse {
  return { status, headers: { "content-type": "application/json", ...headers }, chunks: [recorded(name)] };
}

/** Cuts the bytes into one piece per SSE event, so each reaches the client as its own read. */
export function perEvent(bytes: Buffer): Uint8Array[] {
  const text = bytes.toString("utf8");
  return text
    .split(/(?<=\n\n)/)
    .filter((piece) => piece.length > 0)
    .map((piece) => Buffer.from(piece, "utf8"));
}

/** The first `count` SSE events of a recorded stream. */
export function firstEvents(name: string, count: number): Buffer {
  return Buffer.concat(perEvent(recorded(name)).slice(0, count));
}

/** `@ai-sdk/anthropic`'s Messages model, talking to `url`. */
export function anthropicAt(url: string, modelId = "claude-sonnet-4-5"): LanguageModelV4 {
  return createAnthropic({ baseURL: `${url}/v1`, apiKey: "sk-ant-test" })(modelId);
}

/** `@ai-sdk/openai`'s Chat Completions model, talking to `url`. */
export function openaiChatAt(url: string, modelId = "gpt-4o-mini"): LanguageModelV4 {
  return createOpenAI({ baseURL: `${url}/v1`, apiKey: "sk-test" }).chat(modelId);
}

/** `@ai-sdk/openai`'s Responses model (the provider's default), talking to `url`. */
export function openaiResponsesAt(url: string, modelId = "gpt-5-mini"): LanguageModelV4 {
  return createOpenAI({ baseURL: `${url}/v1`, apiKey: "sk-test" })(modelId);
}

/** A model that forwards to `inner` and keeps the call options of every `doStream`. */
export function recording(inner: LanguageModelV4): LanguageModelV4 & { calls: LanguageModelV4CallOptions[] } {
  const calls: LanguageModelV4CallOptions[] = [];
  return {
    specificationVersion: "v4",
    provider: inner.provider,
    modelId: inner.modelId,
    supportedUrls: inner.supportedUrls,
    calls,
    doGenerate: (options) => inner.doGenerate(options),
    doStream: (options) => {
      calls.push(options);
      return inner.doStream(options);
    },
  };
}

/** How a scripted model answers one call. */
export type ScriptedStream = LanguageModelV4StreamPart[] | ((options: LanguageModelV4CallOptions) => ReadableStream<LanguageModelV4StreamPart> | Promise<ReadableStream<LanguageModelV4StreamPart>>);

/** A model with no HTTP behind it: call `n` streams `script[n]` (the last one again after the end). */
export function scriptedModel(...script: ScriptedStream[]): LanguageModelV4 & { calls: LanguageModelV4CallOptions[] } {
  const calls: LanguageModelV4CallOptions[] = [];
  return {
    specificationVersion: "v4",
    provider: "scripted.chat",
    modelId: "scripted-1",
    supportedUrls: {},
    calls,
    doGenerate: () => Promise.reject(new Error("doGenerate is not used by the bridge")),
    doStream: async (options) => {
      calls.push(options);
      const step = script[Math.min(calls.length - 1, script.length - 1)]!;
      const stream = typeof step === "function" ? await step(options) : partsStream(step);
      return { stream };
    },
  };
}

/** The parts as a stream, all available at once. */
export function partsStream(parts: LanguageModelV4StreamPart[]): ReadableStream<LanguageModelV4StreamPart> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}

/** A usage record as the SDK reports it. */
export function v4Usage(input: number, output: number, cacheRead = 0, cacheWrite = 0): Extract<LanguageModelV4StreamPart, { type: "finish" }>["usage"] {
  return {
    inputTokens: { total: input + cacheRead + cacheWrite, noCache: input, cacheRead, cacheWrite },
    outputTokens: { total: output, text: output, reasoning: undefined },
  };
}

/** A system prompt declaring two tools, then a question that needs both. */
export function weatherAndTimeContext(): LlmContext {
  return {
    messages: [
      {
        role: "system",
        content: "You are a weather assistant.",
        toolsAdded: [
          {
            name: "get_weather",
            description: "Current weather for a location",
            parameters: { type: "object", properties: { location: { type: "string" }, unit: { type: "string" }, days: { type: "array", items: { type: "number" } } }, required: ["location"] },
          },
          { name: "get_time", description: "Local time in a timezone", parameters: { type: "object", properties: { timezone: { type: "string" } }, required: ["timezone"] } },
        ],
        timestamp: 0,
      },
      { role: "user", content: "Weather in Paris and the time in Tokyo?", timestamp: 1 },
    ],
  };
}
