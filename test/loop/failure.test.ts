/**
 * The loop's failure recovery (SPEC A6): a listener (`emit`) or hook that throws ends the run
 * with a normalized ending that closes what the run's events left open — the open message, the
 * calls without a result, the messages waiting for their turn — and commits all of it.
 */
import { NEVER } from "rxjs";
import { describe, expect, it } from "vitest";
import { runAgentLoop } from "../../src/loop/agent-loop.js";
import type { AgentEvent, AgentMessage, AssistantMessage, ToolResultMessage } from "../../src/index.js";
import { fauxProvider, fauxToolCall } from "../../src/testing/index.js";
import { agentEnd, collectSync, committed, contextWith, model, roles, textOf, textResult, tool, types, user } from "../helpers/fixtures.js";

/** `emit` for a run: throws on the first event `fails` picks. */
function throwingOn(fails: (event: AgentEvent) => boolean, before: () => void = () => undefined): (event: AgentEvent) => undefined {
  let thrown = false;
  return (event) => {
    if (!thrown && fails(event)) {
      thrown = true;
      before();
      throw new Error("listener broke");
    }
    return undefined;
  };
}

const endOf = (events: readonly AgentEvent[], role: string): AgentEvent | undefined =>
  events.find((e) => e.type === "message_end" && (e.message as { role?: string }).role === role);

describe("A6: the loop's normalized failure closes what is open", () => {
  it("A6: a listener that throws on agent_end changes nothing: one agent_end, the run completes", () => {
    const events = collectSync(
      runAgentLoop({ prompts: [user("go")], context: contextWith([]), config: { model }, streamFn: fauxProvider([{ content: "hi" }]), emit: throwingOn((e) => e.type === "agent_end") }),
    );
    expect(types(events).filter((t) => t === "agent_end")).toHaveLength(1);
    expect(types(events).slice(-2)).toEqual(["turn_end", "agent_end"]);
    expect(roles(agentEnd(events).messages)).toEqual(["user", "assistant"]);
    expect((agentEnd(events).messages[1] as AssistantMessage).stopReason).toBe("stop");
  });

  it("A6 T3: calls left without a result get error results, which turn_end carries; a call that was executing ends as an error", () => {
    const hangs = tool("hangs", () => NEVER as never);
    const provider = fauxProvider([{ content: [fauxToolCall("hangs", {}, "c1"), fauxToolCall("hangs", {}, "c2")] }]);
    const events = collectSync(
      runAgentLoop({
        prompts: [user("go")],
        context: contextWith([hangs]),
        config: { model, toolExecution: "sequential" },
        streamFn: provider,
        emit: throwingOn((e) => e.type === "tool_execution_start"),
      }),
    );
    const ends = events.filter((e): e is Extract<AgentEvent, { type: "tool_execution_end" }> => e.type === "tool_execution_end");
    expect(ends.map((e) => [e.toolCallId, e.isError])).toEqual([["c1", true]]);
    const results = committed(events).filter((m): m is ToolResultMessage => (m as ToolResultMessage).role === "toolResult");
    expect(results.map((r) => [r.toolCallId, r.isError])).toEqual([
      ["c1", true],
      ["c2", true],
    ]);
    expect(textOf(results[0])).toBe("Tool call not completed: the run failed (listener broke).");
    const turnEnd = events.filter((e): e is Extract<AgentEvent, { type: "turn_end" }> => e.type === "turn_end").at(-1)!;
    expect(turnEnd.toolResults).toEqual(results);
    expect((turnEnd.message as AssistantMessage).stopReason).toBe("error");
  });

  it("A6 L3: a tool result open when a listener throws is committed as its call's one result", () => {
    const echo = tool("echo", () => textResult("echoed"));
    const provider = fauxProvider([{ content: [fauxToolCall("echo", {}, "c1"), fauxToolCall("echo", {}, "c2")] }]);
    const events = collectSync(
      runAgentLoop({
        prompts: [user("go")],
        context: contextWith([echo]),
        config: { model, toolExecution: "sequential" },
        streamFn: provider,
        emit: throwingOn((e) => e.type === "message_start" && (e.message as { role?: string }).role === "toolResult"),
      }),
    );
    const results = agentEnd(events).messages.filter((m): m is ToolResultMessage => (m as ToolResultMessage).role === "toolResult");
    expect(results.map((r) => [r.toolCallId, r.isError, textOf(r)])).toEqual([
      ["c1", false, "echoed"],
      ["c2", true, "Tool call not completed: the run failed (listener broke)."],
    ]);
    expect(roles(agentEnd(events).messages)).toEqual(["user", "assistant", "toolResult", "toolResult", "assistant"]);
  });

  it("A6 L7: every message still waiting for its turn is committed, in order", () => {
    const prompts: AgentMessage[] = [user("one"), user("two"), user("three")];
    const events = collectSync(
      runAgentLoop({ prompts, context: contextWith([]), config: { model }, streamFn: fauxProvider([{ content: "hi" }]), emit: throwingOn((e) => e.type === "message_end") }),
    );
    const end = agentEnd(events);
    expect(end.messages.slice(0, 3)).toEqual(prompts);
    expect(roles(end.messages)).toEqual(["user", "user", "user", "assistant"]);
    expect(committed(events)).toEqual(end.messages);
  });

  it("A6 L10: a run the user aborted before a listener threw ends aborted, with the listener's error", () => {
    const controller = new AbortController();
    const events = collectSync(
      runAgentLoop({
        prompts: [user("go")],
        context: contextWith([]),
        config: { model },
        signal: controller.signal,
        streamFn: fauxProvider([{ content: "hi" }]),
        emit: throwingOn((e) => e.type === "message_start", () => controller.abort()),
      }),
    );
    const failed = (endOf(events, "assistant") as Extract<AgentEvent, { type: "message_end" }>).message as AssistantMessage;
    expect(failed.stopReason).toBe("aborted");
    expect(failed.errorMessage).toBe("listener broke");
  });

  it("A6: a run nobody aborted ends with stopReason error", () => {
    const events = collectSync(
      runAgentLoop({ prompts: [user("go")], context: contextWith([]), config: { model }, streamFn: fauxProvider([{ content: "hi" }]), emit: throwingOn((e) => e.type === "message_start") }),
    );
    const failed = (endOf(events, "assistant") as Extract<AgentEvent, { type: "message_end" }>).message as AssistantMessage;
    expect(failed.stopReason).toBe("error");
    expect(types(events)).toEqual(["agent_start", "turn_start", "message_start", "message_end", "message_start", "message_end", "turn_end", "agent_end"]);
  });
});
