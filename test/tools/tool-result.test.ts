/**
 * Tool results as the model reads them (SPEC T3, L9): a tool's return value normalized, and the
 * tool-result message of an outcome, with its optional fields set exactly when they are known.
 */
import { describe, expect, it } from "vitest";
import type { ToolCall, Usage } from "../../src/index.js";
import { normalizeToolResult, toolResultMessage } from "../../src/tools/tool-result.js";
import type { ToolCallOutcome } from "../../src/model/tool-types.js";

const toolCall: ToolCall = { type: "toolCall", id: "c1", name: "t", arguments: {} };
const usage: Usage = { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 3, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

describe("T3: normalizeToolResult", () => {
  it("T3: lenient content (missing, null, a string) keeps the tool's own isError", () => {
    for (const content of [undefined, null, "it failed"]) {
      expect(normalizeToolResult("t", { content, isError: true }).isError).toBe(true);
      expect(normalizeToolResult("t", { content }).isError).toBe(false);
      // Only `true` is an error: a truthy non-boolean is not.
      expect(normalizeToolResult("t", { content, isError: "yes" }).isError).toBe(false);
    }
  });

  it("T3: missing or null content becomes [], a string one text block, and the other fields stay", () => {
    expect(normalizeToolResult("t", { content: null, details: { n: 1 }, isError: true })).toEqual({ result: { content: [], details: { n: 1 }, isError: true }, isError: true });
    expect(normalizeToolResult("t", { details: 2 })).toEqual({ result: { content: [], details: 2 }, isError: false });
    expect(normalizeToolResult("t", { content: "plain", terminate: true })).toEqual({ result: { content: [{ type: "text", text: "plain" }], terminate: true }, isError: false });
  });

  it("T3: a well-formed result is passed through as the same object", () => {
    const result = { content: [{ type: "text" as const, text: "ok" }], isError: true };
    const normalized = normalizeToolResult("t", result);
    expect(normalized.result).toBe(result);
    expect(normalized.isError).toBe(true);
  });

  it("T3: null is described as null", () => {
    expect(normalizeToolResult("t", null)).toEqual({
      result: { content: [{ type: "text", text: 'Tool "t" returned null instead of a result object ({ content: [...] }).' }], details: {} },
      isError: true,
    });
  });
});

describe("T3: toolResultMessage", () => {
  const result = { content: [{ type: "text" as const, text: "ok" }], details: { d: 1 } };

  it("T3: an executed call without usage: durationMs set, no usage key", () => {
    const message = toolResultMessage({ toolCall, result, isError: false, durationMs: 7 }, 50);
    expect(message).toEqual({ role: "toolResult", toolCallId: "c1", toolName: "t", content: result.content, details: { d: 1 }, isError: false, timestamp: 50, durationMs: 7 });
    expect("usage" in message).toBe(false);
  });

  it("T3: an executed call with usage: both usage and durationMs", () => {
    const message = toolResultMessage({ toolCall, result: { ...result, usage }, isError: true, durationMs: 0 }, 50);
    expect(message).toEqual({ role: "toolResult", toolCallId: "c1", toolName: "t", content: result.content, details: { d: 1 }, isError: true, timestamp: 50, usage, durationMs: 0 });
  });

  it("T3: a call that did not run: no durationMs key, and no usage key without usage", () => {
    const message = toolResultMessage({ toolCall, result, isError: true }, 50);
    expect(message).toEqual({ role: "toolResult", toolCallId: "c1", toolName: "t", content: result.content, details: { d: 1 }, isError: true, timestamp: 50 });
    expect("durationMs" in message).toBe(false);
    expect("usage" in message).toBe(false);
  });

  it("T3: a call that did not run with usage (from afterToolCall or a settled outcome): usage, no durationMs", () => {
    const message = toolResultMessage({ toolCall, result: { ...result, usage }, isError: false }, 50);
    expect(message.usage).toBe(usage);
    expect("durationMs" in message).toBe(false);
  });

  it("T3: content missing on an outcome is [] in the message, on both paths", () => {
    const bare = { details: undefined } as unknown as ToolCallOutcome["result"];
    expect(toolResultMessage({ toolCall, result: bare, isError: false, durationMs: 1 }, 0).content).toEqual([]);
    expect(toolResultMessage({ toolCall, result: bare, isError: false }, 0).content).toEqual([]);
  });
});
