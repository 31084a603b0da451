/**
 * One turn's phases (SPEC L3, L9, M3, S5, T4): the messages before a request, the provider's
 * options, the tool environment, the batch's mode, and the rest of a turn a stopped process left
 * open.
 */
import { describe, expect, it } from "vitest";
import { agentLoop, runAgentLoop } from "../../src/loop/agent-loop.js";
import type { AgentEvent, AgentMessage, AssistantMessage, ToolResultMessage } from "../../src/index.js";
import { fauxProvider, fauxToolCall } from "../../src/testing/index.js";
import { agentEnd, assistantMessage, collectSync, committed, contextWith, model, textOf, textResult, tool, user } from "../helpers/fixtures.js";
import { newScheduler, timerTool } from "../helpers/marbles.js";

const echo = tool("echo", (id) => textResult(`ran ${id}`));

function toolResult(toolCallId: string, text: string): ToolResultMessage {
  return { role: "toolResult", toolCallId, toolName: "echo", content: [{ type: "text", text }], isError: false, timestamp: 0 };
}

const turnEnds = (events: readonly AgentEvent[]) => events.filter((e): e is Extract<AgentEvent, { type: "turn_end" }> => e.type === "turn_end");

describe("S5: the rest of a turn a stopped process left open", () => {
  /** A transcript whose last assistant message asks for c1, c2 and c3 among text, and c2 has its result already. */
  function resumed(): { events: AgentEvent[]; ran: string[]; message: AssistantMessage; earlier: ToolResultMessage } {
    const ran: string[] = [];
    const recording = tool("echo", (id) => (ran.push(id), textResult(`ran ${id}`)));
    const message = assistantMessage([{ type: "text", text: "let me look" }, fauxToolCall("echo", {}, "c1"), fauxToolCall("echo", {}, "c2"), { type: "text", text: "and" }, fauxToolCall("echo", {}, "c3")], "toolUse");
    const earlier = toolResult("c2", "c2 before the stop");
    const context = contextWith([recording], [user("go"), message, earlier]);
    const provider = fauxProvider([{ content: "done" }]);
    const events = collectSync(runAgentLoop({ context, config: { model }, streamFn: provider, resume: { message, settled: new Map() } }));
    return { events, ran, message, earlier };
  }

  it("S5 T4: only the calls without a result run; text blocks are no calls", () => {
    const { events, ran } = resumed();
    expect(ran).toEqual(["c1", "c3"]);
    expect(events.filter((e) => e.type === "tool_execution_start").map((e) => (e as { toolCallId: string }).toolCallId)).toEqual(["c1", "c3"]);
  });

  it("S5 L3: the turn ends with every result of the message in source order, the earlier one as it was", () => {
    const { events, earlier } = resumed();
    const [end] = turnEnds(events);
    expect(end!.toolResults.map((m) => [m.toolCallId, textOf(m)])).toEqual([
      ["c1", "ran c1"],
      ["c2", "c2 before the stop"],
      ["c3", "ran c3"],
    ]);
    expect(end!.toolResults[1]).toBe(earlier);
    // The run went on with the results, as any turn with tool results does.
    expect(textOf(agentEnd(events).messages.at(-1))).toBe("done");
  });
});

describe("L3: the messages before a request", () => {
  it("L7: the array a steering poll returns stays the caller's: the run commits its messages and leaves the array as it was", () => {
    const message = user("also this");
    const steering: AgentMessage[] = [message];
    let polls = 0;
    const provider = fauxProvider([{ content: "ok" }]);
    const events = collectSync(agentLoop([user("go")], contextWith([]), { model, getSteeringMessages: () => (polls++ === 0 ? steering : []) }, undefined, provider));
    expect(agentEnd(events).messages).toContain(message);
    expect(steering).toEqual([message]);
  });

  it("A6: prepareNextTurn giving messages that are no array fails the run, naming the hook", () => {
    const provider = fauxProvider([{ content: [fauxToolCall("echo", {}, "c1")] }, { content: "never" }]);
    const events = collectSync(agentLoop([user("go")], contextWith([echo]), { model, prepareNextTurn: () => ({ messages: "more" as unknown as AgentMessage[] }) }, undefined, provider));
    const last = agentEnd(events).messages.at(-1) as AssistantMessage;
    expect(last.stopReason).toBe("error");
    expect(last.errorMessage).toContain("prepareNextTurn messages must return an array of messages, got string.");
    expect(provider.requests).toHaveLength(1);
  });
});

describe("M3: the provider's options", () => {
  it("M3: without an API key the options have no apiKey at all, so a provider's own default stands", () => {
    const provider = fauxProvider([{ content: "hi" }]);
    collectSync(agentLoop([user("go")], contextWith([]), { model }, undefined, provider));
    expect("apiKey" in provider.requests[0]!.options).toBe(false);
  });

  it("M3: a key from getApiKey, else the config's, reaches the provider", () => {
    const fromHook = fauxProvider([{ content: "hi" }]);
    collectSync(agentLoop([user("go")], contextWith([]), { model, apiKey: "config-key", getApiKey: () => "hook-key" }, undefined, fromHook));
    expect(fromHook.requests[0]!.options.apiKey).toBe("hook-key");
    const fromConfig = fauxProvider([{ content: "hi" }]);
    collectSync(agentLoop([user("go")], contextWith([]), { model, apiKey: "config-key", getApiKey: () => undefined }, undefined, fromConfig));
    expect(fromConfig.requests[0]!.options.apiKey).toBe("config-key");
  });
});

describe("T2 T4: the tool environment and the batch's mode", () => {
  it("T2: a call in a context without tools gets an error result that says none are available", () => {
    const provider = fauxProvider([{ content: [fauxToolCall("echo", {}, "c1")] }, { content: "ok" }]);
    const events = collectSync(agentLoop([user("go")], { messages: [] }, { model }, undefined, provider));
    const result = committed(events).find((m): m is ToolResultMessage => (m as ToolResultMessage).role === "toolResult")!;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('Tool "echo" not found. Available tools: none.');
  });

  /** The frame each call of `a` (a `slow` call) and `b` (a call of `secondTool`) starts at, with both tools taking 3 frames. */
  function startFrames(secondTool: string): [string, number][] {
    const scheduler = newScheduler();
    const starts: [string, number][] = [];
    scheduler.run(({ flush }) => {
      const tools = [timerTool("slow", 3), timerTool("careful", 3, "careful", { executionMode: "sequential" })];
      const provider = fauxProvider([{ content: [fauxToolCall("slow", {}, "a"), fauxToolCall(secondTool, {}, "b")] }, { content: "ok" }]);
      agentLoop([user("go")], contextWith(tools), { model, scheduler }, undefined, provider).subscribe((e) => {
        if (e.type === "tool_execution_start") starts.push([e.toolCallId, scheduler.now()]);
      });
      flush();
    });
    return starts;
  }

  it("T4: a sequential tool that the message does not call leaves the batch parallel", () => {
    expect(startFrames("slow")).toEqual([
      ["a", 0],
      ["b", 0],
    ]);
  });

  it("T4: a sequential tool that the message calls makes the batch sequential", () => {
    expect(startFrames("careful")).toEqual([
      ["a", 0],
      ["b", 3],
    ]);
  });
});

describe("S5 L6: when a resumed turn stops", () => {
  const stopper = tool("stopper", () => textResult("stop here", { terminate: true }));

  function resume(terminated: ReadonlySet<string> | undefined): ReturnType<typeof fauxProvider> {
    const message = assistantMessage([fauxToolCall("stopper", {}, "c1"), fauxToolCall("stopper", {}, "c2")], "toolUse");
    const provider = fauxProvider([{ content: "asked again" }]);
    const context = contextWith([stopper], [user("go"), message, toolResult("c1", "stop here")]);
    collectSync(runAgentLoop({ context, config: { model }, streamFn: provider, resume: { message, settled: new Map(), terminated } }));
    return provider;
  }

  it("L6: the earlier result asked to stop too: the run ends without a request", () => {
    expect(resume(new Set(["c1"])).requests).toHaveLength(0);
  });

  it("L6: an earlier result that did not ask to stop keeps the run going, though the resumed one asks to", () => {
    expect(resume(undefined).requests).toHaveLength(1);
    expect(resume(new Set(["other"])).requests).toHaveLength(1);
  });

  it("L6: every call answered before the stop, all asking to stop: the run ends", () => {
    const message = assistantMessage([fauxToolCall("stopper", {}, "c1")], "toolUse");
    const provider = fauxProvider([{ content: "asked again" }]);
    const context = contextWith([stopper], [user("go"), message, toolResult("c1", "stop here")]);
    collectSync(runAgentLoop({ context, config: { model }, streamFn: provider, resume: { message, settled: new Map(), terminated: new Set(["c1"]) } }));
    expect(provider.requests).toHaveLength(0);
  });

  it("T4 S5: two open calls that share an id keep their own results, as in any batch", () => {
    const message = assistantMessage([fauxToolCall("echo", {}, "dup"), fauxToolCall("echo", {}, "dup")], "toolUse");
    const context = contextWith([echo], [user("go"), message]);
    const events = collectSync(runAgentLoop({ context, config: { model }, streamFn: fauxProvider([{ content: "done" }]), resume: { message, settled: new Map() } }));
    const [end] = turnEnds(events);
    expect(end!.toolResults.map((m) => m.isError)).toEqual([false, true]);
    expect(textOf(end!.toolResults[0])).toBe("ran dup");
  });
});

describe("S5 L6: a resumed message without calls", () => {
  it("L6: ends as a text answer does: no request", () => {
    const message = assistantMessage("all done", "stop");
    const provider = fauxProvider([{ content: "asked again" }]);
    const events = collectSync(runAgentLoop({ context: contextWith([echo], [user("go"), message]), config: { model }, streamFn: provider, resume: { message, settled: new Map() } }));
    expect(provider.requests).toHaveLength(0);
    expect(turnEnds(events)[0]!.toolResults).toEqual([]);
  });
});
