/**
 * `agent.abort()` (SPEC L10, A2): during streaming and during a parallel batch the run ends with
 * an `aborted` assistant message, every tool call has exactly one result, the agent is idle, and
 * a new prompt runs.
 */
import { asyncScheduler, filter, map, Observable } from "rxjs";
import { describe, expect, it } from "vitest";
import type { Agent } from "../../src/agent/agent.js";
import type { AgentEvent, AgentMessage, AgentToolResult, AssistantMessage, Message, ToolCall } from "../../src/index.js";
import { fauxProvider, fauxToolCall } from "../../src/testing/index.js";
import { agentWith, frameOf, label, newScheduler, record, roles, stampedEvents, textOf, textResult, timerTool, tool, toolResults } from "./support.js";

function expectEveryCallAnsweredOnce(messages: readonly AgentMessage[]): void {
  const calls = messages.flatMap((m) =>
    (m as Message).role === "assistant" && !["aborted", "error"].includes((m as AssistantMessage).stopReason)
      ? (m as AssistantMessage).content.filter((b): b is ToolCall => b.type === "toolCall")
      : [],
  );
  const results = toolResults(messages);
  expect(results).toHaveLength(calls.length);
  for (const call of calls) expect(results.filter((r) => r.toolCallId === call.id)).toHaveLength(1);
}

function lastAssistant(messages: readonly AgentMessage[]): AssistantMessage {
  return [...messages].reverse().find((m) => (m as Message).role === "assistant") as AssistantMessage;
}

function expectAbortedAndIdle(agent: Agent, events: AgentEvent[]): AssistantMessage {
  const last = lastAssistant(agent.state.messages);
  expect(last.stopReason).toBe("aborted");
  expect(agent.state.messages[agent.state.messages.length - 1]).toBe(last);
  expect(agent.state.isStreaming).toBe(false);
  expect(agent.state.streamingMessage).toBeUndefined();
  expect(agent.state.pendingToolCalls.size).toBe(0);
  expect(agent.state.errorMessage).toBeTruthy();
  expect(agent.signal).toBeUndefined();
  expect(events.filter((e) => e.type === "agent_end")).toHaveLength(1);
  expect(events[events.length - 1]!.type).toBe("agent_end");
  const turnEnds = events.filter((e): e is Extract<AgentEvent, { type: "turn_end" }> => e.type === "turn_end");
  expect(turnEnds[turnEnds.length - 1]!.message).toBe(last);
  expectEveryCallAnsweredOnce(agent.state.messages);
  return last;
}

describe("L10: abort() during streaming", () => {
  it("L10: in virtual time — the partial reply becomes the aborted message, in the abort's frame", () => {
    const scheduler = newScheduler();
    const stamped: string[] = [];
    const provider = fauxProvider([{ content: "one two three four five six" }, { content: "fresh" }], { scheduler, delay: 1, chunkSize: 4 });
    const agent = agentWith({ scheduler, streamFn: provider });
    const { events } = record(agent);
    scheduler.run(({ expectObservable }) => {
      scheduler.schedule(() => agent.abort(), 4);
      const run$ = stampedEvents(agent.prompt$("talk"), scheduler, stamped);
      expectObservable(run$.pipe(filter((e) => e.type === "message_end" || e.type === "agent_end"), map(label))).toBe("u 3ms (ax|)", {
        u: "message_end:user:talk",
        a: "message_end:assistant",
        x: "agent_end",
      });
    });
    const aborted = expectAbortedAndIdle(agent, events);
    // start 0, text_start 1, deltas at 2 and 3: "one two " streamed before the abort at 4
    expect(textOf(aborted)).toBe("one two ");
    expect(frameOf(stamped, "message_end:assistant")).toBe(4);
    expect(provider.requests[0]!.options.signal?.aborted).toBe(true);

    // a new prompt runs, with a fresh signal
    let completed = false;
    scheduler.run(() => {
      agent.prompt$("again").subscribe({ complete: () => (completed = true) });
    });
    expect(completed).toBe(true);
    expect(lastAssistant(agent.state.messages).stopReason).toBe("stop");
    expect(textOf(lastAssistant(agent.state.messages))).toBe("fresh");
    expect(provider.requests[1]!.options.signal?.aborted).toBe(false);
    expect(roles(agent.state.messages)).toEqual(["user", "assistant", "user", "assistant"]);
  });

  it("L10: with promises in real time — abort() from a listener mid-stream, then a new prompt runs", async () => {
    const provider = fauxProvider([{ content: "a long streamed answer that is cut" }, { content: "fresh" }], { scheduler: asyncScheduler, delay: 1, chunkSize: 3 });
    const agent = agentWith({ streamFn: provider });
    const { events } = record(agent);
    let updates = 0;
    agent.subscribe((event) => {
      if (event.type === "message_update" && ++updates === 3) agent.abort();
    });
    await agent.prompt("talk");
    const aborted = expectAbortedAndIdle(agent, events);
    expect(aborted.content.length).toBeGreaterThan(0);
    expect(roles(agent.state.messages)).toEqual(["user", "assistant"]);

    await agent.prompt("again");
    expect(roles(agent.state.messages)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(lastAssistant(agent.state.messages).stopReason).toBe("stop");
    expect(textOf(lastAssistant(agent.state.messages))).toBe("fresh");
    expect(agent.state.errorMessage).toBeUndefined();
    expect(provider.requests[1]!.options.signal?.aborted).toBe(false);
  });

  it("L10: abort() before the first event of the reply still ends with an aborted assistant message", async () => {
    const provider = fauxProvider([{ content: "never seen" }, { content: "fresh" }], { scheduler: asyncScheduler, delay: 5 });
    const agent = agentWith({ streamFn: provider });
    const { events } = record(agent);
    let once = true;
    agent.subscribe((event) => {
      if (once && event.type === "message_end" && (event.message as Message).role === "user") {
        once = false;
        agent.abort();
      }
    });
    await agent.prompt("hi");
    expectAbortedAndIdle(agent, events);
    // no request went out with a live signal
    expect(provider.requests.every((r) => r.options.signal?.aborted)).toBe(true);
    await agent.prompt("again");
    expect(lastAssistant(agent.state.messages).stopReason).toBe("stop");
  });
});

describe("L10: abort() during a parallel batch", () => {
  it("L10: in virtual time — the finished call keeps its result, running calls get 'Operation aborted', the run ends aborted", () => {
    const scheduler = newScheduler();
    const stamped: string[] = [];
    const provider = fauxProvider(
      [{ content: [fauxToolCall("slow", {}, "a"), fauxToolCall("fast", {}, "b"), fauxToolCall("medium", {}, "c")] }, { content: "after" }, { content: "fresh" }],
      { scheduler, delay: 1 },
    );
    const agent = agentWith({
      scheduler,
      streamFn: provider,
      initialState: { tools: [timerTool("slow", 30), timerTool("fast", 10), timerTool("medium", 20)] },
    });
    const { events } = record(agent);
    scheduler.run(({ expectObservable }) => {
      // request 1 frames 0..10; fast ends at 20; abort at 25 (slow and medium still running)
      scheduler.schedule(() => agent.abort(), 25);
      const run$ = stampedEvents(agent.prompt$("go"), scheduler, stamped);
      expectObservable(run$.pipe(filter((e) => e.type === "tool_execution_end" || e.type === "agent_end"), map(label))).toBe("20ms b 4ms (acx|)", {
        b: "tool_execution_end:b",
        a: "tool_execution_end:a",
        c: "tool_execution_end:c",
        x: "agent_end",
      });
    });
    const results = toolResults(agent.state.messages);
    expect(results.map((r) => [r.toolCallId, textOf(r), r.isError])).toEqual([
      ["a", "Operation aborted", true],
      ["b", "fast", false],
      ["c", "Operation aborted", true],
    ]);
    expectAbortedAndIdle(agent, events);
    expect(roles(agent.state.messages)).toEqual(["system", "user", "assistant", "toolResult", "toolResult", "toolResult", "assistant"]);
    expect(frameOf(stamped, "agent_end")).toBe(25);
    // no request after the abort went out with a live signal
    expect(provider.requests.slice(1).every((r) => r.options.signal?.aborted)).toBe(true);
  });

  it("L10: with promise tools in real time — tools that honour the signal and one that ignores it; each call one result", async () => {
    let ignoredFinished = false;
    const honouring = (name: string) =>
      tool(
        name,
        (_id, _params, signal) =>
          new Promise<AgentToolResult>((resolve, reject) => {
            const handle = setTimeout(() => resolve(textResult(`${name} done`)), 1000);
            signal.addEventListener("abort", () => {
              clearTimeout(handle);
              reject(new Error(`${name} stopped`));
            });
          }),
      );
    const stubborn = tool("stubborn", () => new Promise<AgentToolResult>((resolve) => setTimeout(() => ((ignoredFinished = true), resolve(textResult("finished anyway"))), 30)));
    const provider = fauxProvider([{ content: [fauxToolCall("h1", {}, "c1"), fauxToolCall("stubborn", {}, "c2"), fauxToolCall("h2", {}, "c3")] }, { content: "fresh" }]);
    const agent = agentWith({ streamFn: provider, initialState: { tools: [honouring("h1"), stubborn, honouring("h2")] } });
    const { events } = record(agent);
    agent.subscribe((event) => {
      if (event.type === "tool_execution_start" && event.toolCallId === "c3") setTimeout(() => agent.abort(), 5);
    });
    await agent.prompt("go");
    expect(ignoredFinished).toBe(true);
    const results = toolResults(agent.state.messages);
    expect(results.map((r) => [r.toolCallId, r.isError])).toEqual([
      ["c1", true],
      ["c2", false],
      ["c3", true],
    ]);
    expect(textOf(results[0])).toMatch(/h1 stopped|aborted/i);
    expectAbortedAndIdle(agent, events);
    // every started execution ended exactly once
    const ends = events.filter((e) => e.type === "tool_execution_end").map((e) => (e as { toolCallId: string }).toolCallId);
    expect(ends.sort()).toEqual(["c1", "c2", "c3"]);

    await agent.prompt("again");
    expect(textOf(lastAssistant(agent.state.messages))).toBe("fresh");
    expect(agent.state.isStreaming).toBe(false);
  });

  it("L10: an Observable tool is unsubscribed on abort", () => {
    const scheduler = newScheduler();
    let unsubscribed = false;
    const endless = tool(
      "endless",
      () =>
        new Observable<AgentToolResult>(() => () => {
          unsubscribed = true;
        }),
    );
    const provider = fauxProvider([{ content: [fauxToolCall("endless", {}, "e1")] }], { scheduler, delay: 1 });
    const agent = agentWith({ scheduler, streamFn: provider, initialState: { tools: [endless] } });
    const { events } = record(agent);
    scheduler.run(() => {
      scheduler.schedule(() => agent.abort(), 10);
      agent.prompt$("go").subscribe();
    });
    expect(unsubscribed).toBe(true);
    expectAbortedAndIdle(agent, events);
    expect(textOf(toolResults(agent.state.messages)[0])).toBe("Operation aborted");
  });
});
