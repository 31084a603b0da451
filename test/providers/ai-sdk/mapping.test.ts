/**
 * The mapping tables of the bridge (rules V3, V4 proposed): usage, finish reasons, failures and
 * the provider metadata kept for replay.
 */
import { describe, expect, it } from "vitest";
import { APICallError } from "@ai-sdk/provider";
// Internal modules: the entry exports none of them (V1).
import { describeAiSdkFailure } from "../../../src/providers/ai-sdk/ai-sdk-failure.js";
import { toStopReason } from "../../../src/providers/ai-sdk/ai-sdk-finish-reason.js";
import { fromAiSdkUsage } from "../../../src/providers/ai-sdk/ai-sdk-usage.js";
import { decodeProviderMetadata, encodeProviderMetadata, mergeProviderMetadata } from "../../../src/providers/ai-sdk/provider-metadata.js";
import { StreamFailure } from "../../../src/providers/shared/stream-failure.js";

describe("fromAiSdkUsage (V3)", () => {
  it("V3 · input is the uncached prompt; cache reads and writes apart; total adds all four", () => {
    const usage = fromAiSdkUsage(
      { inputTokens: { total: 2360, noCache: 12, cacheRead: 2048, cacheWrite: 300 }, outputTokens: { total: 89, text: 80, reasoning: 9 } },
      {},
    );
    expect(usage).toEqual({ input: 12, output: 89, cacheRead: 2048, cacheWrite: 300, totalTokens: 2449, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } });
  });

  it("V3 · without noCache the input is the total less the cache; missing counts are 0", () => {
    expect(fromAiSdkUsage({ inputTokens: { total: 100, noCache: undefined, cacheRead: 60, cacheWrite: undefined }, outputTokens: { total: undefined, text: undefined, reasoning: undefined } }, {})).toMatchObject({
      input: 40,
      cacheRead: 60,
      cacheWrite: 0,
      output: 0,
      totalTokens: 100,
    });
    expect(fromAiSdkUsage(undefined, {})).toMatchObject({ input: 0, output: 0, totalTokens: 0 });
  });

  it("V3 · the cost uses model.cost (dollars per million tokens) for each kind of token", () => {
    const rates = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
    const usage = fromAiSdkUsage({ inputTokens: { total: 1_600_000, noCache: 1_000_000, cacheRead: 500_000, cacheWrite: 100_000 }, outputTokens: { total: 200_000, text: undefined, reasoning: undefined } }, { cost: rates });
    expect(usage.cost.input).toBeCloseTo(rates.input, 10);
    expect(usage.cost.output).toBeCloseTo(rates.output * 0.2, 10);
    expect(usage.cost.cacheRead).toBeCloseTo(rates.cacheRead * 0.5, 10);
    expect(usage.cost.cacheWrite).toBeCloseTo(rates.cacheWrite * 0.1, 10);
    expect(usage.cost.total).toBeCloseTo(rates.input + rates.output * 0.2 + rates.cacheRead * 0.5 + rates.cacheWrite * 0.1, 10);
  });
});

describe("toStopReason (V3, V4)", () => {
  it("V3 · stop, other, tool-calls and length; tool calls to run make toolUse, none make stop", () => {
    expect(toStopReason({ unified: "stop", raw: "end_turn" }, 0)).toBe("stop");
    expect(toStopReason({ unified: "stop", raw: "stop" }, 2)).toBe("toolUse");
    expect(toStopReason({ unified: "other", raw: "pause" }, 0)).toBe("stop");
    expect(toStopReason({ unified: "tool-calls", raw: "tool_use" }, 1)).toBe("toolUse");
    expect(toStopReason({ unified: "tool-calls", raw: "tool_calls" }, 0)).toBe("stop");
    expect(toStopReason({ unified: "length", raw: "max_tokens" }, 1)).toBe("length");
  });

  it("V4 · content-filter, error and interrupted are failures with their kinds", () => {
    const failure = (reason: Parameters<typeof toStopReason>[0]) => {
      try {
        toStopReason(reason, 0);
      } catch (error) {
        expect(error).toBeInstanceOf(StreamFailure);
        return { message: (error as StreamFailure).message, ...(error as StreamFailure).failure };
      }
      throw new Error("did not throw");
    };
    expect(failure({ unified: "content-filter", raw: "refusal" })).toEqual({
      message: "The provider stopped the response: finish reason content-filter (refusal) (the output was blocked by its content filter)",
      kind: "refused",
      code: "refusal",
      retryable: false,
    });
    expect(failure({ unified: "interrupted", raw: undefined })).toMatchObject({ kind: "network", retryable: true });
    expect(failure({ unified: "error", raw: "error" })).toMatchObject({ message: "The provider ended the response with finish reason error", kind: "stream", retryable: false });
  });
});

describe("describeAiSdkFailure (V4)", () => {
  const url = "https://api.example.test/v1/messages";

  it("V4 · an APICallError with a status: HTTP status, the message, the code from the body, Retry-After", () => {
    const error = new APICallError({
      message: "Overloaded",
      url,
      requestBodyValues: {},
      statusCode: 529,
      responseHeaders: { "retry-after-ms": "1500" },
      data: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
    });
    expect(describeAiSdkFailure(error, "call", 0)).toEqual({
      message: "HTTP 529: Overloaded [overloaded_error]",
      failure: { kind: "http", status: 529, code: "overloaded_error", retryAfterMs: 1500, retryable: true },
    });
  });

  it("V4 · an APICallError without a status is a network failure; a 2xx one is a body that broke off", () => {
    const refused = new APICallError({ message: "Cannot connect to API: connect ECONNREFUSED 127.0.0.1:9", url, requestBodyValues: {}, isRetryable: true });
    expect(describeAiSdkFailure(refused, "call", 0)).toEqual({ message: "Network error: Cannot connect to API: connect ECONNREFUSED 127.0.0.1:9", failure: { kind: "network", retryable: true } });
    const cut = new APICallError({ message: "Failed to process successful response", url, requestBodyValues: {}, statusCode: 200, cause: new TypeError("terminated") });
    expect(describeAiSdkFailure(cut, "read", 0)).toEqual({ message: "Network error while streaming the response: terminated", failure: { kind: "network", retryable: true } });
  });

  it("V4 · error parts: the SDK's stream error, a string, an object without details", () => {
    expect(describeAiSdkFailure({ message: "Rate limited", type: "rate_limit_error", isRetryable: true }, "part", 0)).toEqual({
      message: "The provider reported an error mid-stream: Rate limited [rate_limit_error]",
      failure: { kind: "stream", code: "rate_limit_error", retryable: true },
    });
    expect(describeAiSdkFailure("socket hang up", "part", 0)).toMatchObject({ message: "The provider reported an error mid-stream: socket hang up", failure: { kind: "stream", retryable: false } });
    expect(describeAiSdkFailure({ weird: 1 }, "part", 0).message).toBe('The provider reported an error mid-stream: {"weird":1}');
  });

  it("V4 · a parse failure is a protocol error; an error thrown before the request keeps its own words and no details", () => {
    const parse = Object.assign(new Error("Type validation failed: Value: {}"), { name: "AI_TypeValidationError" });
    expect(describeAiSdkFailure(parse, "read", 0)).toEqual({ message: "The provider's response could not be read: Type validation failed: Value: {}", failure: { kind: "protocol", retryable: false } });
    const unsupported = Object.assign(new Error("'file part media type audio/wav' functionality not supported."), { name: "AI_UnsupportedFunctionalityError" });
    expect(describeAiSdkFailure(unsupported, "call", 0)).toEqual({ message: "'file part media type audio/wav' functionality not supported." });
  });
});

describe("provider metadata kept for replay (V2, V3)", () => {
  it("V3 · metadata merges per provider namespace, later keys winning", () => {
    const merged = mergeProviderMetadata({ openai: { itemId: "rs_1", reasoningEncryptedContent: null } }, { openai: { reasoningEncryptedContent: "enc" }, other: { x: 1 } });
    expect(merged).toEqual({ openai: { itemId: "rs_1", reasoningEncryptedContent: "enc" }, other: { x: 1 } });
    expect(mergeProviderMetadata(undefined, undefined)).toBeUndefined();
    expect(mergeProviderMetadata({ a: { b: 1 } }, {})).toEqual({ a: { b: 1 } });
  });

  it("V2 · a signature round-trips; other providers' signatures decode to nothing", () => {
    const metadata = { anthropic: { signature: "EqQB" } };
    expect(decodeProviderMetadata(encodeProviderMetadata(metadata))).toEqual(metadata);
    expect(encodeProviderMetadata({})).toBeUndefined();
    expect(decodeProviderMetadata("EqQBCgIYAhIM")).toBeUndefined();
    expect(decodeProviderMetadata("reasoning_content")).toBeUndefined();
    expect(decodeProviderMetadata('{"v":1,"id":"msg_1"}')).toBeUndefined();
    expect(decodeProviderMetadata("{not json")).toBeUndefined();
  });
});
