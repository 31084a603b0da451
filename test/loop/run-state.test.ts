/**
 * The run-state reducer (SPEC L2, A4, A6): one pure `(state, event) => state` for the loop's
 * failure recovery and the Agent's state.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../../src/loop/agent-loop.js";
import { initialRunState, reduceRunState, resumedRunState, unansweredToolCalls, type RunState } from "../../src/loop/run-state.js";
import type { AgentEvent, ToolResultMessage } from "../../src/index.js";
import { emptyUsage } from "../../src/model/assistant-message.js";
import { fauxProvider, fauxToolCall } from "../../src/testing/index.js";
import { assistantMessage, collectSync, contextWith, model, textResult, tool, user } from "../helpers/fixtures.js";
import { agentWith } from "../agent/support.js";

const call = (id: string) => ({ type: "toolCall" as const, id, name: "t", arguments: {} });
const result = (id: string): ToolResultMessage => ({ role: "toolResult", toolCallId: id, toolName: "t", content: [], isError: false, timestamp: 0 });
const fold = (events: readonly AgentEvent[], from: RunState = initialRunState): RunState => events.reduce(reduceRunState, from);

describe("reduceRunState", () => {
  it("A6 L2: before any event nothing is open, started or known", () => {
    expect({ ...initialRunState }).toEqual({ started: false, ended: false, turnOpen: false, streamingMessage: undefined, executing: [], lastAssistant: undefined, answered: [], errorMessage: undefined });
  });

  it("A6: an event that changes nothing gives the same state object: a second agent_start or turn_start, a user message ended without a start", () => {
    const started = fold([{ type: "agent_start" }]);
    expect(reduceRunState(started, { type: "agent_start" })).toBe(started);
    const open = fold([{ type: "turn_start" }], started);
    expect(reduceRunState(open, { type: "turn_start" })).toBe(open);
    expect(reduceRunState(open, { type: "message_end", message: user("hi") })).toBe(open);
  });

  it("A4: the end of a call that is not executing changes no executing call", () => {
    const state = fold([{ type: "tool_execution_start", toolCallId: "a", toolName: "t", args: {} }]);
    const next = reduceRunState(state, { type: "tool_execution_end", toolCallId: "b", toolName: "t", result: { content: [] }, isError: false });
    expect(next.executing).toEqual(["a"]);
  });

  it("A6: a user message's end closes it and answers no call", () => {
    const state = fold([{ type: "message_start", message: user("hi") }, { type: "message_end", message: user("hi") }]);
    expect(state.streamingMessage).toBeUndefined();
    expect(state.answered).toEqual([]);
  });

  it("A6 L2: brackets: started, turn open, ended", () => {
    const state = fold([{ type: "agent_start" }, { type: "turn_start" }]);
    expect(state).toMatchObject({ started: true, turnOpen: true, ended: false });
    expect(fold([{ type: "turn_end", message: assistantMessage("x"), toolResults: [] }, { type: "agent_end", messages: [], usage: emptyUsage(), outcome: "completed" }], state)).toMatchObject({ turnOpen: false, ended: true });
  });

  it("A4 L5: the streaming message follows start and updates, and is gone at its end", () => {
    const partial = assistantMessage("par");
    const final = assistantMessage("partial");
    const streaming = fold([{ type: "message_start", message: partial }, { type: "message_update", message: partial, assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: "p", partial } }]);
    expect(streaming.streamingMessage).toBe(partial);
    expect(fold([{ type: "message_end", message: final }], streaming).streamingMessage).toBeUndefined();
  });

  it("A4 A6: executing calls and the calls of the last assistant message still without a result", () => {
    const message = assistantMessage([call("a"), call("b"), call("c")], "toolUse");
    const state = fold([
      { type: "message_end", message },
      { type: "tool_execution_start", toolCallId: "a", toolName: "t", args: {} },
      { type: "tool_execution_start", toolCallId: "b", toolName: "t", args: {} },
      { type: "tool_execution_end", toolCallId: "a", toolName: "t", result: textResult(""), isError: false },
      { type: "message_end", message: result("a") },
    ]);
    expect(state.executing).toEqual(["b"]);
    expect(unansweredToolCalls(state).map((c) => c.id)).toEqual(["b", "c"]);
  });

  it("L6 A6: an error or aborted message's calls are never owed a result", () => {
    for (const stop of ["error", "aborted"] as const) {
      expect(unansweredToolCalls(fold([{ type: "message_end", message: assistantMessage([call("a")], stop) }]))).toEqual([]);
    }
  });

  it("A4: turn_end of an error answer records its errorMessage; a later good turn keeps it", () => {
    const failed = assistantMessage("", "error", { errorMessage: "HTTP 500" });
    const state = fold([{ type: "turn_end", message: failed, toolResults: [] }, { type: "turn_end", message: assistantMessage("ok"), toolResults: [] }]);
    expect(state.errorMessage).toBe("HTTP 500");
  });

  it("pure: the same state comes back when nothing changes (an update of the same partial, an unknown event)", () => {
    const partial = assistantMessage("p");
    const streaming = fold([{ type: "message_start", message: partial }]);
    expect(reduceRunState(streaming, { type: "message_update", message: partial, assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: "p", partial } })).toBe(streaming);
    expect(reduceRunState(streaming, { type: "tool_execution_update" } as AgentEvent)).toBe(streaming);
    expect(Object.isFrozen(initialRunState)).toBe(true);
  });

  it("pure: folding never changes a state it was given (property over random event sequences)", () => {
    const ids = fc.constantFrom("a", "b", "c");
    const event: fc.Arbitrary<AgentEvent> = fc.oneof(
      fc.constant<AgentEvent>({ type: "agent_start" }),
      fc.constant<AgentEvent>({ type: "turn_start" }),
      fc.constant<AgentEvent>({ type: "turn_end", message: assistantMessage("x", "error", { errorMessage: "e" }), toolResults: [] }),
      fc.constant<AgentEvent>({ type: "message_start", message: user("u") }),
      fc.constant<AgentEvent>({ type: "message_end", message: assistantMessage([call("a"), call("b"), call("c")], "toolUse") }),
      ids.map<AgentEvent>((id) => ({ type: "message_end", message: result(id) })),
      ids.map<AgentEvent>((id) => ({ type: "tool_execution_start", toolCallId: id, toolName: "t", args: {} })),
      ids.map<AgentEvent>((id) => ({ type: "tool_execution_end", toolCallId: id, toolName: "t", result: textResult(""), isError: false })),
      fc.constant<AgentEvent>({ type: "agent_end", messages: [], usage: emptyUsage(), outcome: "completed" }),
    );
    fc.assert(
      fc.property(fc.array(event, { maxLength: 40 }), (events) => {
        const states: RunState[] = [initialRunState];
        const copies: string[] = [JSON.stringify(initialRunState)];
        for (const e of events) {
          states.push(reduceRunState(states[states.length - 1]!, e));
          copies.push(JSON.stringify(states[states.length - 1]));
        }
        states.forEach((s, i) => expect(JSON.stringify(s)).toBe(copies[i]));
        // Executing ids are distinct; answered ids are distinct.
        const last = states[states.length - 1]!;
        expect(new Set(last.executing).size).toBe(last.executing.length);
        expect(new Set(last.answered).size).toBe(last.answered.length);
        expect(fold(events)).toEqual(last);
      }),
    );
  });

  it("A4: the Agent's state is the same reducer folded over the same events", async () => {
    const echo = tool("echo", () => textResult("echoed"));
    const agent = agentWith({ initialState: { tools: [echo] }, streamFn: fauxProvider([{ content: [fauxToolCall("echo", {}, "a"), fauxToolCall("echo", {}, "b")] }, { content: "done" }]) });
    let folded = initialRunState;
    const mismatches: string[] = [];
    agent.subscribe((event) => {
      folded = reduceRunState(folded, event);
      if (agent.state.streamingMessage !== folded.streamingMessage) mismatches.push(`streamingMessage at ${event.type}`);
      if ([...agent.state.pendingToolCalls].join() !== folded.executing.join()) mismatches.push(`pending at ${event.type}`);
    });
    await agent.prompt("go");
    expect(mismatches).toEqual([]);
  });

  it("L2: a whole loop run folds to ended, nothing streaming, nothing executing, every call answered", () => {
    const echo = tool("echo", () => textResult("echoed"));
    const events = collectSync(agentLoop([user("go")], contextWith([echo]), { model }, undefined, fauxProvider([{ content: [fauxToolCall("echo", {}, "a")] }, { content: "done" }])));
    const state = fold(events);
    expect(state).toMatchObject({ started: true, ended: true, turnOpen: false, streamingMessage: undefined, executing: [] });
    expect(unansweredToolCalls(state)).toEqual([]);
  });
});

describe("resumedRunState", () => {
  it("S5: a resumed turn's state: nothing started or open, its message the last one, its answered ids", () => {
    const message = assistantMessage([call("c1"), call("c2")], "toolUse");
    const state = resumedRunState(message, ["c1"]);
    expect({ ...state }).toEqual({ started: false, ended: false, turnOpen: false, streamingMessage: undefined, executing: [], lastAssistant: message, answered: ["c1"], errorMessage: undefined });
    expect(unansweredToolCalls(state).map((c) => c.id)).toEqual(["c2"]);
  });
});
