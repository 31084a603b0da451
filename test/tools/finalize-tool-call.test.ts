/**
 * After a tool ran (SPEC T2, T3, R4): the executed result becomes the outcome, and an
 * `afterToolCall` answer overrides it field by field; what the answer leaves out keeps its value,
 * including fields the answer could have set (usage, terminate).
 */
import type { Observable } from "rxjs";
import { describe, expect, it } from "vitest";
import type { AfterToolCallResult, ToolCallOutcome, Usage } from "../../src/index.js";
import { type ExecutedToolCall, finalizeToolCall } from "../../src/tools/finalize-tool-call.js";
import type { PreparedToolCall, ToolCallEnvironment } from "../../src/tools/prepare-tool-call.js";
import { assistantMessage, textResult, tool, toolEnvironment } from "../helpers/fixtures.js";

const echo = tool("echo", () => textResult("unused"));
const prepared: PreparedToolCall = { kind: "prepared", toolCall: { type: "toolCall", id: "c1", name: "echo", arguments: { a: 1 } }, tool: echo, args: { a: 1 } };
const usage = (n: number): Usage => ({ input: n, output: n, cacheRead: 0, cacheWrite: 0, totalTokens: 2 * n, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } });

function env(afterToolCall?: () => AfterToolCallResult | undefined): ToolCallEnvironment {
  return toolEnvironment({ tools: [echo], context: { messages: [], tools: [echo] }, assistantMessage: assistantMessage([prepared.toolCall], "toolUse"), ...(afterToolCall ? { afterToolCall } : {}) });
}

/** The one outcome, delivered synchronously (SPEC L12: a plain hook answer adds no microtask). */
function outcomeOf(source: Observable<ToolCallOutcome>): ToolCallOutcome {
  const outcomes: ToolCallOutcome[] = [];
  let completed = false;
  source.subscribe({ next: (o) => outcomes.push(o), complete: () => (completed = true) });
  expect(completed).toBe(true);
  expect(outcomes).toHaveLength(1);
  return outcomes[0]!;
}

const executed = (extra: Partial<ExecutedToolCall> = {}): ExecutedToolCall => ({ type: "result", result: textResult("ran", { usage: usage(1), terminate: true }), isError: false, durationMs: 4, ...extra });

describe("T2: finalizeToolCall", () => {
  it("R4: an executed call's cancellation is kept, and there is no cancellation key when it had none", () => {
    expect(outcomeOf(finalizeToolCall(prepared, executed({ cancellation: "finished" }), env())).cancellation).toBe("finished");
    const plain = outcomeOf(finalizeToolCall(prepared, executed(), env()));
    expect(plain).toEqual({ toolCall: prepared.toolCall, result: executed().result, isError: false, durationMs: 4 });
    expect("cancellation" in plain).toBe(false);
    // The same with a hook that answers nothing.
    expect("cancellation" in outcomeOf(finalizeToolCall(prepared, executed(), env(() => undefined)))).toBe(false);
  });

  it("T2: afterToolCall's usage and terminate replace the executed ones", () => {
    const outcome = outcomeOf(finalizeToolCall(prepared, executed(), env(() => ({ usage: usage(9), terminate: false }))));
    expect(outcome.result).toEqual(textResult("ran", { usage: usage(9), terminate: false }));
  });

  it("T2: an answer without usage or terminate keeps the executed ones", () => {
    const outcome = outcomeOf(finalizeToolCall(prepared, executed(), env(() => ({ details: { audited: true } }))));
    expect(outcome.result).toEqual({ content: [{ type: "text", text: "ran" }], details: { audited: true }, usage: usage(1), terminate: true });
    expect(outcome.isError).toBe(false);
    expect(outcome.durationMs).toBe(4);
  });

  it("T2: an answer's fields do not write into the executed result", () => {
    const ran = executed();
    outcomeOf(finalizeToolCall(prepared, ran, env(() => ({ content: [], usage: usage(9), terminate: false, details: 1 }))));
    expect(ran.result).toEqual(textResult("ran", { usage: usage(1), terminate: true }));
  });
});
