/**
 * The bridge's `StreamFn` against a scripted `LanguageModelV4` (no HTTP): cold calls, teardown,
 * every kind of stream part, the failures and the hooks (rules V1–V5 proposed; SPEC M3, M4).
 */
import { describe, expect, it } from "vitest";
import { lastValueFrom, toArray } from "rxjs";
import type { LanguageModelV4, LanguageModelV4StreamPart, SharedV4Warning } from "@ai-sdk/provider";
import { aiSdkModel, fromAiSdk } from "../../../src/providers/ai-sdk/index.js";
import { withRetry } from "../../../src/providers/retry/index.js";
import { getProviderFailure } from "../../../src/providers/shared/provider-failure.js";
import type { AssistantMessageEvent, LlmContext, StreamFn, StreamOptions, ThinkingContent, ToolCall } from "../../../src/model/messages.js";
import { callStreamFn } from "../../../src/stream/stream-fn-call.js";
import { finalMessage, shape } from "../support/collect.js";
import { scriptedModel, v4Usage } from "./support.js";

const context: LlmContext = { messages: [{ role: "user", content: "hi", timestamp: 1 }] };
const finish = (unified: Extract<LanguageModelV4StreamPart, { type: "finish" }>["finishReason"]["unified"] = "stop", usage = v4Usage(3, 2)): LanguageModelV4StreamPart => ({
  type: "finish",
  finishReason: { unified, raw: undefined },
  usage,
});
const text = (id: string, ...deltas: string[]): LanguageModelV4StreamPart[] => [
  { type: "text-start", id },
  ...deltas.map((delta): LanguageModelV4StreamPart => ({ type: "text-delta", id, delta })),
  { type: "text-end", id },
];

function run(streamFn: StreamFn, model: LanguageModelV4, options: StreamOptions = {}): Promise<AssistantMessageEvent[]> {
  return lastValueFrom(callStreamFn(streamFn, aiSdkModel(model), context, options).pipe(toArray()));
}

/** A stream that delivers `parts`, then stays open until cancelled; reports the cancel. */
function openStream(parts: LanguageModelV4StreamPart[], onCancel: (reason: unknown) => void): ReadableStream<LanguageModelV4StreamPart> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
    },
    cancel: onCancel,
  });
}

describe("fromAiSdk: the StreamFn (V1, SPEC M3)", () => {
  it("V1 · cold: nothing is called until subscribe, and each subscription is one doStream call", async () => {
    const model = scriptedModel([...text("t", "Hi"), finish()]);
    const streamFn = fromAiSdk(model);
    const events$ = callStreamFn(streamFn, aiSdkModel(model), context, {});
    expect(model.calls).toHaveLength(0);
    await lastValueFrom(events$);
    await lastValueFrom(events$);
    expect(model.calls).toHaveLength(2);
  });

  it("V1 · aiSdkModel names the model: its id and provider, api ai-sdk, extra fields kept", () => {
    const model = scriptedModel([]);
    expect(aiSdkModel(model, { cost: { input: 1 } })).toEqual({ id: "scripted-1", api: "ai-sdk", provider: "scripted.chat", cost: { input: 1 } });
  });

  it("V1 · a model that is not a LanguageModelV4 is refused: at fromAiSdk when given directly, as the final error when a resolver returns it", async () => {
    const v3 = { ...scriptedModel([]), specificationVersion: "v3" } as unknown as LanguageModelV4;
    expect(() => fromAiSdk(v3)).toThrow(TypeError);
    expect(() => fromAiSdk(v3)).toThrow(/LanguageModelV4 \(specificationVersion "v4".*"v3"/);
    expect(() => fromAiSdk({} as LanguageModelV4)).toThrow(/an object with doStream/);
    const events = await run(fromAiSdk(() => v3), scriptedModel([]));
    expect(shape(events)).toEqual(["error"]);
    expect(finalMessage(events).errorMessage).toMatch(/needs a LanguageModelV4/);
  });

  it("V2 · the resolver gets the rxagent model and the request options (apiKey), and may return a promise", async () => {
    const model = scriptedModel([...text("t", "ok"), finish()]);
    const seen: unknown[] = [];
    const streamFn = fromAiSdk(async (m, options) => {
      seen.push([m.id, options.apiKey]);
      return model;
    });
    const events = await run(streamFn, model, { apiKey: "sk-per-request" });
    expect(finalMessage(events).content).toEqual([{ type: "text", text: "ok" }]);
    expect(seen).toEqual([["scripted-1", "sk-per-request"]]);
  });

  it("V2 · onRequest sees the call and may replace it; onWarnings gets the stream's warnings; the signal is added after onRequest", async () => {
    const warnings: SharedV4Warning[] = [{ type: "unsupported", feature: "temperature", details: "reasoning models ignore it" }];
    const model = scriptedModel([{ type: "stream-start", warnings }, ...text("t", "ok"), finish()]);
    const reported: unknown[] = [];
    const streamFn = fromAiSdk(model, {
      callOptions: { seed: 7 },
      onRequest: (call) => ({ ...call, topK: 3, abortSignal: undefined }),
      onWarnings: (w, m) => reported.push([w, m.id]),
    });
    await run(streamFn, model, { temperature: 0.5 });
    const call = model.calls[0]!;
    expect(call).toMatchObject({ seed: 7, topK: 3, temperature: 0.5, prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }] });
    expect(call.abortSignal).toBeInstanceOf(AbortSignal);
    expect(reported).toEqual([[warnings, "scripted-1"]]);
  });
});

describe("fromAiSdk: stream parts → events (V3, SPEC M4)", () => {
  it("V3 · text and reasoning blocks by id: interleaved blocks stay apart, a delta without a start opens its block, metadata becomes the signature", async () => {
    const model = scriptedModel([
      { type: "response-metadata", id: "resp_1", modelId: "scripted-1-2026" },
      { type: "reasoning-start", id: "r", providerMetadata: { scripted: { step: 1 } } },
      { type: "text-start", id: "a" },
      { type: "reasoning-delta", id: "r", delta: "think" },
      { type: "text-delta", id: "a", delta: "A1" },
      { type: "text-delta", id: "b", delta: "B1" },
      { type: "reasoning-delta", id: "r", delta: "", providerMetadata: { scripted: { signature: "sig" } } },
      { type: "text-delta", id: "a", delta: "A2" },
      { type: "reasoning-end", id: "r" },
      { type: "text-end", id: "a", providerMetadata: { scripted: { itemId: "a1" } } },
      { type: "response-metadata", id: "resp_2" },
      finish(),
    ]);
    const events = await run(fromAiSdk(model), model);
    // (`shape` joins adjacent deltas: B1 then A2.)
    expect(shape(events)).toEqual(["start", "thinking_start", "text_start", "thinking_delta", "text_delta", "text_start", "text_delta×2", "thinking_end", "text_end", "text_end", "done"]);
    const message = finalMessage(events);
    expect(message.responseId).toBe("resp_1");
    expect(message.content).toEqual([
      { type: "thinking", thinking: "think", thinkingSignature: JSON.stringify({ scripted: { step: 1, signature: "sig" } }) },
      { type: "text", text: "A1A2", textSignature: JSON.stringify({ scripted: { itemId: "a1" } }) },
      { type: "text", text: "B1" },
    ]);
    expect((events.find((e) => e.type === "thinking_end") as { partial: { content: ThinkingContent[] } }).partial.content[0]!.thinkingSignature).toContain("sig");
  });

  it("V3 · parts an rxagent message cannot hold change nothing: raw, ping, sources, files, custom content", async () => {
    const model = scriptedModel([
      { type: "raw", rawValue: { anything: true } },
      { type: "ping" } as LanguageModelV4StreamPart,
      { type: "custom", kind: "scripted.note" },
      { type: "source", sourceType: "url", id: "s1", url: "https://example.test" },
      { type: "file", mediaType: "image/png", data: { type: "data", data: "AAAA" } },
      ...text("t", "only text"),
      finish(),
    ]);
    const events = await run(fromAiSdk(model), model);
    expect(shape(events)).toEqual(["start", "text_start", "text_delta", "text_end", "done"]);
    expect(finalMessage(events).content).toEqual([{ type: "text", text: "only text" }]);
  });

  it("V3 · tool calls the provider executed (web search) are left out with their results; the answer is stop, not toolUse", async () => {
    const model = scriptedModel([
      { type: "tool-input-start", id: "ws1", toolName: "web_search", providerExecuted: true },
      { type: "tool-input-delta", id: "ws1", delta: '{"query":"paris"}' },
      { type: "tool-input-end", id: "ws1" },
      { type: "tool-call", toolCallId: "ws1", toolName: "web_search", input: '{"query":"paris"}', providerExecuted: true },
      { type: "tool-result", toolCallId: "ws1", toolName: "web_search", result: [{ url: "https://example.test" }] },
      { type: "tool-approval-request", approvalId: "ap1", toolCallId: "mcp1" },
      ...text("t", "Sunny."),
      finish("tool-calls"),
    ]);
    const events = await run(fromAiSdk(model), model);
    expect(shape(events)).toEqual(["start", "text_start", "text_delta", "text_end", "done"]);
    expect(finalMessage(events)).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "Sunny." }] });
  });

  it("V3 · a tool call sent whole (no input streaming), one with invalid JSON, and one left open at the end", async () => {
    const model = scriptedModel([
      { type: "tool-call", toolCallId: "c1", toolName: "get_weather", input: '{"location":"Oslo"}', providerMetadata: { scripted: { thought: "t1" } } },
      { type: "tool-input-start", id: "c2", toolName: "get_weather" },
      { type: "tool-input-delta", id: "c2", delta: '{"location":' },
      { type: "tool-call", toolCallId: "c2", toolName: "get_weather", input: '{"location":' },
      { type: "tool-input-start", id: "c3", toolName: "get_time" },
      { type: "tool-input-delta", id: "c3", delta: '{"timezone":"UTC"}' },
      finish("stop"),
    ]);
    const events = await run(fromAiSdk(model), model);
    expect(shape(events)).toEqual(["start", "toolcall_start", "toolcall_delta", "toolcall_end", "toolcall_start", "toolcall_delta", "toolcall_end", "toolcall_start", "toolcall_delta", "toolcall_end", "done"]);
    const message = finalMessage(events);
    expect(message.stopReason).toBe("toolUse");
    const [whole, broken, open] = message.content as ToolCall[];
    expect(whole).toEqual({ type: "toolCall", id: "c1", name: "get_weather", arguments: { location: "Oslo" }, thoughtSignature: JSON.stringify({ scripted: { thought: "t1" } }) });
    expect(broken).toMatchObject({ id: "c2", arguments: {}, argumentsError: expect.stringMatching(/not valid JSON/) });
    expect(open).toEqual({ type: "toolCall", id: "c3", name: "get_time", arguments: { timezone: "UTC" } });
  });
});

describe("fromAiSdk: the served model and raw-text tool input (V2, V3)", () => {
  it("V3 · response-metadata's modelId is the message's responseModel; model stays the requested id, so the next request still replays the reasoning (V2)", async () => {
    const model = scriptedModel(
      [
        { type: "response-metadata", id: "resp_1", modelId: "scripted-1-2026-01-15" },
        { type: "reasoning-start", id: "r", providerMetadata: { scripted: { signature: "sig-1" } } },
        { type: "reasoning-delta", id: "r", delta: "think" },
        { type: "reasoning-end", id: "r" },
        ...text("t", "ok"),
        { type: "response-metadata", modelId: "scripted-1-other" },
        finish(),
      ],
      [...text("t", "again"), finish()],
    );
    const streamFn = fromAiSdk(model);
    const first = finalMessage(await run(streamFn, model));
    expect(first).toMatchObject({ model: "scripted-1", responseModel: "scripted-1-2026-01-15", responseId: "resp_1" });

    const next: LlmContext = { messages: [...context.messages, first, { role: "user", content: "more", timestamp: 3 }] };
    await lastValueFrom(callStreamFn(streamFn, aiSdkModel(model), next, {}).pipe(toArray()));
    expect(model.calls[1]!.prompt[1]).toEqual({
      role: "assistant",
      content: [
        { type: "reasoning", text: "think", providerOptions: { scripted: { signature: "sig-1" } } },
        { type: "text", text: "ok" },
      ],
    });

    // A provider that reports the requested id adds nothing.
    const same = scriptedModel([{ type: "response-metadata", modelId: "scripted-1" }, ...text("t", "x"), finish()]);
    expect(finalMessage(await run(fromAiSdk(same), same))).not.toHaveProperty("responseModel");
  });

  it("V3 · tool input streamed as raw text (inputEncoding text) is not read as JSON: the partial keeps {} and the tool-call part gives the arguments", async () => {
    const model = scriptedModel([
      { type: "tool-input-start", id: "c1", toolName: "write_file", inputEncoding: "text" },
      { type: "tool-input-delta", id: "c1", delta: '{"name": "pk' },
      { type: "tool-input-delta", id: "c1", delta: 'g"}' },
      { type: "tool-input-end", id: "c1" },
      { type: "tool-call", toolCallId: "c1", toolName: "write_file", input: JSON.stringify({ content: '{"name": "pkg"}' }) },
      // Cut off before its tool-call part: the text stands as the JSON string the part would have held.
      { type: "tool-input-start", id: "c2", toolName: "write_file", inputEncoding: "text" },
      { type: "tool-input-delta", id: "c2", delta: '{"path": "a"}' },
      finish("tool-calls"),
    ]);
    const events = await run(fromAiSdk(model), model);
    expect(shape(events)).toEqual(["start", "toolcall_start", "toolcall_delta×2", "toolcall_end", "toolcall_start", "toolcall_delta", "toolcall_end", "done"]);
    const deltas = events.filter((e): e is Extract<AssistantMessageEvent, { type: "toolcall_delta" }> => e.type === "toolcall_delta");
    expect(deltas.map((e) => e.delta)).toEqual(['{"name": "pk', 'g"}', '{"path": "a"}']);
    for (const delta of deltas) expect((delta.partial.content[delta.contentIndex] as ToolCall).arguments).toEqual({});
    const [written, cut] = finalMessage(events).content as ToolCall[];
    expect(written).toEqual({ type: "toolCall", id: "c1", name: "write_file", arguments: { content: '{"name": "pkg"}' } });
    expect(cut).toMatchObject({ id: "c2", arguments: {}, argumentsError: expect.stringMatching(/not a JSON object/) });

    // The default encoding is JSON: the same deltas show the arguments as they stream.
    const json = scriptedModel([
      { type: "tool-input-start", id: "c1", toolName: "write_file" },
      { type: "tool-input-delta", id: "c1", delta: '{"name": "pk' },
      finish("tool-calls"),
    ]);
    const jsonDelta = (await run(fromAiSdk(json), json)).find((e) => e.type === "toolcall_delta") as Extract<AssistantMessageEvent, { type: "toolcall_delta" }>;
    expect((jsonDelta.partial.content[0] as ToolCall).arguments).toEqual({ name: "pk" });
  });
});

describe("fromAiSdk: failures (V4, SPEC M4)", () => {
  it("V4 · doStream rejecting or a resolver throwing gives one error event with the error's own words", async () => {
    const rejecting = scriptedModel(() => Promise.reject(new Error("'audio/wav' file parts are not supported")));
    const events = await run(fromAiSdk(rejecting), rejecting);
    expect(shape(events)).toEqual(["error"]);
    expect(finalMessage(events)).toMatchObject({ stopReason: "error", errorMessage: "'audio/wav' file parts are not supported", content: [] });
    expect(getProviderFailure(finalMessage(events))).toBeUndefined();

    const throwing = fromAiSdk(() => {
      throw new Error("no model configured for scripted-1");
    });
    expect(finalMessage(await run(throwing, rejecting)).errorMessage).toBe("no model configured for scripted-1");
  });

  it("V4 · an error part before any content, a stream without finish, a content filter and a broken stream each end in one error event", async () => {
    const errorFirst = scriptedModel([{ type: "error", error: { message: "quota", type: "insufficient_quota" } }]);
    let events = await run(fromAiSdk(errorFirst), errorFirst);
    expect(shape(events)).toEqual(["start", "error"]);
    expect(finalMessage(events).errorMessage).toBe("The provider reported an error mid-stream: quota [insufficient_quota]");

    const noFinish = scriptedModel([...text("t", "half")]);
    events = await run(fromAiSdk(noFinish), noFinish);
    expect(finalMessage(events)).toMatchObject({ stopReason: "error", content: [{ type: "text", text: "half" }] });
    expect(finalMessage(events).errorMessage).toMatch(/no finish part/);
    expect(getProviderFailure(finalMessage(events))).toEqual({ kind: "network", retryable: true });

    const filtered = scriptedModel([...text("t", "I can"), finish("content-filter", v4Usage(10, 2))]);
    events = await run(fromAiSdk(filtered), filtered);
    const message = finalMessage(events);
    expect(message).toMatchObject({ stopReason: "error", content: [{ type: "text", text: "I can" }], usage: { input: 10, output: 2 } });
    expect(getProviderFailure(message)).toMatchObject({ kind: "refused", retryable: false });

    let pulls = 0;
    const broken = scriptedModel(
      () =>
        new ReadableStream<LanguageModelV4StreamPart>({
          pull(controller) {
            // The parts, then the failure on the next read (an error in the same pull would drop the queued parts).
            if (pulls++ === 0) {
              controller.enqueue({ type: "text-start", id: "t" });
              controller.enqueue({ type: "text-delta", id: "t", delta: "par" });
            } else controller.error(new TypeError("terminated"));
          },
        }),
    );
    events = await run(fromAiSdk(broken), broken);
    expect(finalMessage(events)).toMatchObject({ stopReason: "error", errorMessage: "Network error while streaming the response: terminated", content: [{ type: "text", text: "par" }] });
    expect(getProviderFailure(finalMessage(events))).toEqual({ kind: "network", retryable: true });
  });

  it("V4 · an onWarnings that throws, or a part the bridge cannot take, is not the provider's failure: recorded not retryable, so withRetry makes one call", async () => {
    const warned = scriptedModel([{ type: "stream-start", warnings: [{ type: "unsupported", feature: "topK" }] }, ...text("t", "ok"), finish()]);
    const onWarnings = () => {
      // An app bug: a TypeError, worded like a network failure.
      throw new TypeError("network log sink is undefined");
    };
    const retrying = withRetry(fromAiSdk(warned, { onWarnings }), { initialDelayMs: 1, jitter: 0 });
    let message = finalMessage(await run(retrying, warned));
    expect(warned.calls).toHaveLength(1);
    expect(message).toMatchObject({ stopReason: "error", errorMessage: "fromAiSdk's onWarnings threw: network log sink is undefined" });
    expect(getProviderFailure(message)).toEqual({ kind: "protocol", retryable: false });

    // A stream-start without its warnings array makes the reader itself throw a TypeError.
    const malformed = scriptedModel([{ type: "stream-start" } as LanguageModelV4StreamPart, ...text("t", "ok"), finish()]);
    message = finalMessage(await run(withRetry(fromAiSdk(malformed), { initialDelayMs: 1, jitter: 0 }), malformed));
    expect(malformed.calls).toHaveLength(1);
    expect(message.errorMessage).toMatch(/^rxagent\/ai-sdk could not handle the model's stream: /);
    expect(getProviderFailure(message)).toEqual({ kind: "protocol", retryable: false });
  });
});

describe("fromAiSdk: teardown and abort (V5, SPEC L10)", () => {
  it("V5 · unsubscribing mid-stream aborts doStream's signal and cancels its stream", async () => {
    let cancelled: unknown = "not cancelled";
    const model = scriptedModel(() => openStream([{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "Hel" }], (reason) => (cancelled = reason)));
    const seen: string[] = [];
    await new Promise<void>((firstDelta) => {
      const subscription = callStreamFn(fromAiSdk(model), aiSdkModel(model), context, {}).subscribe((event) => {
        seen.push(event.type);
        if (event.type !== "text_delta") return;
        queueMicrotask(() => subscription.unsubscribe());
        firstDelta();
      });
    });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(model.calls[0]!.abortSignal!.aborted).toBe(true);
    expect(cancelled).toBe(model.calls[0]!.abortSignal!.reason);
    expect(seen).toEqual(["start", "text_start", "text_delta"]);
  });

  it("V5 · unsubscribing while doStream is pending aborts its signal; its later rejection is swallowed", async () => {
    let rejectCall: ((error: unknown) => void) | undefined;
    const model = scriptedModel(
      (options) =>
        new Promise((_resolve, reject) => {
          rejectCall = reject;
          options.abortSignal?.addEventListener("abort", () => setTimeout(() => reject(options.abortSignal!.reason), 1));
        }),
    );
    const seen: string[] = [];
    const subscription = callStreamFn(fromAiSdk(model), aiSdkModel(model), context, {}).subscribe((e) => seen.push(e.type));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(model.calls).toHaveLength(1);
    subscription.unsubscribe();
    expect(model.calls[0]!.abortSignal!.aborted).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(rejectCall).toBeDefined();
    expect(seen).toEqual([]);
  });

  it("V5 · the loop's signal: already aborted means no call at all; aborted mid-stream ends aborted with what was delivered", async () => {
    const untouched = scriptedModel([...text("t", "x"), finish()]);
    const aborted = new AbortController();
    aborted.abort();
    let events = await run(fromAiSdk(untouched), untouched, { signal: aborted.signal });
    expect(shape(events)).toEqual(["error"]);
    expect(finalMessage(events).stopReason).toBe("aborted");
    expect(untouched.calls).toHaveLength(0);

    const controller = new AbortController();
    const model = scriptedModel(() => openStream([{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "Hel" }], () => undefined));
    events = [];
    await new Promise<void>((done) =>
      callStreamFn(fromAiSdk(model), aiSdkModel(model), context, { signal: controller.signal }).subscribe({
        next: (event) => {
          events.push(event);
          if (event.type === "text_delta") controller.abort();
        },
        complete: done,
      }),
    );
    expect(shape(events)).toEqual(["start", "text_start", "text_delta", "error"]);
    expect(finalMessage(events)).toMatchObject({ stopReason: "aborted", errorMessage: "Request was aborted", content: [{ type: "text", text: "Hel" }] });
    expect(model.calls[0]!.abortSignal!.aborted).toBe(true);
  });

  it("V5 · aborted while the resolver is pending: no doStream and no onRequest; the request ends aborted", async () => {
    const model = scriptedModel([...text("t", "x"), finish()]);
    let requests = 0;
    let release!: () => void;
    const pending = new Promise<void>((resolve) => (release = resolve));
    const streamFn = fromAiSdk(
      async () => {
        await pending;
        return model;
      },
      { onRequest: () => void requests++ },
    );
    const controller = new AbortController();
    const result = run(streamFn, model, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 1));
    controller.abort();
    release();
    const events = await result;
    expect(shape(events)).toEqual(["error"]);
    expect(finalMessage(events)).toMatchObject({ stopReason: "aborted", errorMessage: "Request was aborted" });
    expect(model.calls).toHaveLength(0);
    expect(requests).toBe(0);

    // Unsubscribing while the resolver is pending: no call either.
    let late!: () => void;
    const later = new Promise<void>((resolve) => (late = resolve));
    const resolved = new Promise<void>((done) => {
      const subscription = callStreamFn(
        fromAiSdk(async () => {
          await later;
          queueMicrotask(done);
          return model;
        }),
        aiSdkModel(model),
        context,
        {},
      ).subscribe();
      subscription.unsubscribe();
      late();
    });
    await resolved;
    await new Promise((resolve) => setTimeout(resolve, 1));
    expect(model.calls).toHaveLength(0);
  });

  it("V5 · an abort from inside onRequest (a hook that gives up) makes no call", async () => {
    const model = scriptedModel([...text("t", "x"), finish()]);
    const controller = new AbortController();
    const events = await run(fromAiSdk(model, { onRequest: () => controller.abort() }), model, { signal: controller.signal });
    expect(finalMessage(events).stopReason).toBe("aborted");
    expect(model.calls).toHaveLength(0);
  });

  it("V5 · a stream created but not yet read when the subscriber leaves is cancelled too", async () => {
    let cancelled = false;
    const model = scriptedModel(() => openStream([], () => (cancelled = true)));
    const subscription = callStreamFn(fromAiSdk(model), aiSdkModel(model), context, {}).subscribe();
    await new Promise((resolve) => setTimeout(resolve, 5));
    subscription.unsubscribe();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(cancelled).toBe(true);
    expect(model.calls[0]!.abortSignal!.aborted).toBe(true);
  });
});
