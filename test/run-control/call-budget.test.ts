/**
 * The run's call limits, one call at a time (SPEC R2): the repeated-call breaker's wording at
 * every ordinal, and what comes after a limit in "end" mode.
 */
import { describe, expect, it } from "vitest";
import { CallBudget } from "../../src/run-control/call-budget.js";
import type { ToolCall } from "../../src/model/messages.js";

const call = (name: string, id: string): ToolCall => ({ type: "toolCall", id, name, arguments: {} });

/** The breaker's text for the Nth identical call in a row. */
function nth(n: number): string | undefined {
  const budget = new CallBudget({ maxRepeatedCalls: n, onLimit: "tell" });
  let refused: string | undefined;
  for (let i = 1; i <= n; i++) refused = budget.admit(call("echo", `c${i}`), { same: true });
  return refused;
}

describe("CallBudget (SPEC R2)", () => {
  it("R2: the breaker names the call's place in the row, with the right ordinal", () => {
    const ordinals = Object.fromEntries([2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111].map((n) => [n, /the (\d+\w+) call in a row/.exec(nth(n) ?? "")?.[1]]));
    expect(ordinals).toEqual({ 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 22: "22nd", 23: "23rd", 101: "101st", 111: "111th" });
  });

  it("R2: below the limit every call is admitted; the Nth identical one is not", () => {
    const budget = new CallBudget({ maxRepeatedCalls: 3 });
    expect(budget.admit(call("echo", "1"), { a: 1 })).toBeUndefined();
    expect(budget.admit(call("echo", "2"), { a: 1 })).toBeUndefined();
    expect(budget.admit(call("echo", "3"), { a: 1 })).toMatch(/^Tool call "echo" was not run: it is the 3rd call in a row/);
  });

  it("R2: after a limit in 'end' mode, every later call — another tool, other arguments — is refused with the reason", () => {
    const budget = new CallBudget({ maxRepeatedCalls: 2 });
    budget.admit(call("echo", "1"), {});
    budget.admit(call("echo", "2"), {});
    expect(budget.reached).toMatchObject({ limit: "maxRepeatedCalls", value: 2, used: 2 });
    expect(budget.admit(call("other", "3"), { b: 2 })).toBe('Tool call "other" was not run: the run is ending. The same tool call came 2 times in a row with the same arguments.');
  });

  it("R2: in 'tell' mode nothing is reached and a different call runs again", () => {
    const budget = new CallBudget({ maxToolCalls: 1, onLimit: "tell" });
    expect(budget.admit(call("a", "1"), {})).toBeUndefined();
    expect(budget.admit(call("b", "2"), {})).toBe('Tool call "b" was not run: the run has used its 1 tool call. Answer with what you have.');
    expect(budget.reached).toBeUndefined();
  });

  it("R2: in 'tell' mode the breaker keeps counting the row; another call starts a new one", () => {
    const budget = new CallBudget({ maxRepeatedCalls: 2, onLimit: "tell" });
    const answers = [["a", { x: 1, y: 2 }], ["a", { y: 2, x: 1 }], ["a", { x: 1, y: 2 }], ["b", { x: 1, y: 2 }], ["a", { x: 1, y: 2 }], ["a", { x: 2, y: 2 }]].map(([name, args], i) =>
      budget.admit(call(name as string, `c${i}`), args),
    );
    expect(answers.map((a) => (a === undefined ? "run" : /the (\w+) call in a row/.exec(a)?.[1]))).toEqual(["run", "2nd", "3rd", "run", "run", "run"]);
    expect(budget.reached).toBeUndefined();
  });

  it("R2: maxToolCalls counts only admitted calls; the breaker's refusals use none of it", () => {
    const budget = new CallBudget({ maxToolCalls: 2, maxRepeatedCalls: 2, onLimit: "tell" });
    expect(budget.admit(call("a", "1"), {})).toBeUndefined();
    expect(budget.admit(call("a", "2"), {})).toMatch(/2nd call in a row/);
    expect(budget.admit(call("b", "3"), {})).toBeUndefined();
    expect(budget.admit(call("c", "4"), {})).toBe('Tool call "c" was not run: the run has used its 2 tool calls. Answer with what you have.');
  });

  it("R2: maxToolCalls in 'end' mode: the limit is reached with what was used, and every later call is refused with its words", () => {
    const budget = new CallBudget({ maxToolCalls: 2 });
    budget.admit(call("a", "1"), {});
    budget.admit(call("b", "2"), {});
    expect(budget.reached).toBeUndefined();
    expect(budget.admit(call("c", "3"), {})).toBe('Tool call "c" was not run: the run has used its 2 tool calls. Answer with what you have.');
    expect(budget.reached).toMatchObject({ limit: "maxToolCalls", value: 2, used: 2 });
    expect(budget.admit(call("d", "4"), {})).toBe(`Tool call "d" was not run: the run is ending. ${budget.reached!.message}`);
  });

  it("R2: a budget is needed only for call limits", () => {
    expect(CallBudget.needed(undefined)).toBe(false);
    expect(CallBudget.needed({ maxTurns: 3, timeoutMs: 10 })).toBe(false);
    expect(CallBudget.needed({ maxToolCalls: 3 })).toBe(true);
    expect(CallBudget.needed({ maxRepeatedCalls: 2 })).toBe(true);
  });

  it("R2: arguments JSON cannot write (a BigInt, a cycle) are compared as the model sent them; never a repeat when those cannot be written either", () => {
    const budget = new CallBudget({ maxRepeatedCalls: 2, onLimit: "tell" });
    const sent = (id: string, args: Record<string, unknown>): ToolCall => ({ ...call("big", id), arguments: args });
    expect(budget.admit(sent("c1", { n: "1" }), { n: 1n })).toBeUndefined();
    expect(budget.admit(sent("c2", { n: "1" }), { n: 1n })).toMatch(/2nd call in a row/);
    expect(budget.admit(sent("c3", { n: "2" }), { n: 2n })).toBeUndefined();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect([cyclic, cyclic].map((args, i) => budget.admit(sent(`d${i}`, cyclic), args))).toEqual([undefined, undefined]);
    // A writable call after them starts a row of its own.
    expect(budget.admit(call("big", "e1"), { n: 1 })).toBeUndefined();
    expect(budget.admit(call("big", "e2"), { n: 1 })).toMatch(/2nd call in a row/);
  });

  it("R2: without the repeated-call breaker the arguments are never read", () => {
    let reads = 0;
    const args = {
      get path(): string {
        reads++;
        return "/a";
      },
    };
    const budget = new CallBudget({ maxToolCalls: 5 });
    for (let i = 0; i < 3; i++) expect(budget.admit(call("read", `c${i}`), args)).toBeUndefined();
    expect(reads).toBe(0);
  });
});
