/**
 * State reduction before listeners (SPEC A4) and awaited listeners as a barrier (SPEC A5), with
 * promises: ones the test settles itself, or waits on a virtual clock driven by
 * settleVirtualTime. The frame-exact barrier is in queues.marbles.test.ts.
 */
import { firstValueFrom, timer } from "rxjs";
import { describe, expect, it } from "vitest";
import type { AgentEvent, AgentMessage } from "../../src/index.js";
import { fauxProvider, fauxToolCall, settleVirtualTime } from "../../src/testing/index.js";
import { deferred, flushPromises } from "../helpers/controlled-promise.js";
import { agentWith, heldTool, label, newScheduler, record, roles, textResult, tool } from "./support.js";

describe("A4: the state is reduced before listeners see the event", () => {
  it("A4: message_start/update hold the partial in streamingMessage; message_end has appended it", async () => {
    const provider = fauxProvider([{ content: "Hello there, how are you?" }], { chunkSize: 4 });
    const agent = agentWith({ streamFn: provider });
    const checks: string[] = [];
    agent.subscribe((event) => {
      const state = agent.state;
      if (event.type === "message_start" || event.type === "message_update") {
        expect(state.streamingMessage).toBe(event.message);
        expect(state.messages).not.toContain(event.message);
        checks.push(event.type);
      }
      if (event.type === "message_end") {
        expect(state.streamingMessage).toBeUndefined();
        expect(state.messages[state.messages.length - 1]).toBe(event.message);
        checks.push(`end:${(event.message as { role: string }).role}`);
      }
    });
    await agent.prompt("hi");
    expect(checks.filter((c) => c === "message_update").length).toBeGreaterThan(3);
    expect(checks).toContain("end:user");
    expect(checks).toContain("end:assistant");
  });

  it("A4: pendingToolCalls holds the id from tool_execution_start to tool_execution_end", async () => {
    const provider = fauxProvider([{ content: [fauxToolCall("a", {}, "ta"), fauxToolCall("b", {}, "tb")] }, { content: "done" }]);
    const [a, b] = [heldTool("a"), heldTool("b")];
    const agent = agentWith({ streamFn: provider, initialState: { tools: [a.tool, b.tool] } });
    const seen: string[] = [];
    agent.subscribe((event) => {
      if (event.type === "tool_execution_start" || event.type === "tool_execution_end") {
        seen.push(`${label(event)} pending=[${[...agent.state.pendingToolCalls].join(",")}]`);
      }
    });
    const prompted = agent.prompt("go");
    await Promise.all([a.started, b.started]);
    // a ends first; b only once a's end has been told.
    a.finish();
    await flushPromises();
    b.finish();
    await prompted;
    expect(seen).toEqual([
      "tool_execution_start:ta pending=[ta]",
      "tool_execution_start:tb pending=[ta,tb]",
      "tool_execution_end:ta pending=[tb]",
      "tool_execution_end:tb pending=[]",
    ]);
    expect(agent.state.pendingToolCalls.size).toBe(0);
  });

  it("A4: a tool sees its own id pending while it runs", async () => {
    let pendingDuringExecute: string[] = [];
    const provider = fauxProvider([{ content: [fauxToolCall("probe", {}, "p1")] }, { content: "done" }]);
    const agent = agentWith({
      streamFn: provider,
      initialState: { tools: [tool("probe", () => ((pendingDuringExecute = [...agent.state.pendingToolCalls]), textResult("ok")))] },
    });
    await agent.prompt("go");
    expect(pendingDuringExecute).toEqual(["p1"]);
  });

  it("A4: turn_end of a failed turn records errorMessage before listeners see it; the next run clears it", async () => {
    const provider = fauxProvider([{ content: "", stopReason: "error", errorMessage: "HTTP 500" }, { content: "ok" }]);
    const agent = agentWith({ streamFn: provider });
    const atTurnEnd: (string | undefined)[] = [];
    agent.subscribe((event) => {
      if (event.type === "turn_end") atTurnEnd.push(agent.state.errorMessage);
    });
    await agent.prompt("one");
    expect(atTurnEnd).toEqual(["HTTP 500"]);
    expect(agent.state.errorMessage).toBe("HTTP 500");
    const second = agent.prompt("two");
    expect(agent.state.errorMessage).toBeUndefined();
    await second;
    expect(atTurnEnd).toEqual(["HTTP 500", undefined]);
    expect(agent.state.errorMessage).toBeUndefined();
  });

  it("A4: agent_end clears streamingMessage while isStreaming stays true for its listeners", async () => {
    const provider = fauxProvider([{ content: "bye" }]);
    const agent = agentWith({ streamFn: provider });
    let atAgentEnd: { streaming: boolean; partial: AgentMessage | undefined } | undefined;
    agent.subscribe((event) => {
      if (event.type === "agent_end") atAgentEnd = { streaming: agent.state.isStreaming, partial: agent.state.streamingMessage };
    });
    await agent.prompt("hi");
    expect(atAgentEnd).toEqual({ streaming: true, partial: undefined });
    expect(agent.state.isStreaming).toBe(false);
  });

  it("A4: a prompt message is in the transcript only from its message_end", async () => {
    const provider = fauxProvider([{ content: "ok" }]);
    const agent = agentWith({ streamFn: provider });
    const lengths: string[] = [];
    agent.subscribe((event) => {
      if (event.type !== "message_update") lengths.push(`${label(event)} ${agent.state.messages.length}`);
    });
    await agent.prompt("hi");
    expect(lengths).toEqual([
      "agent_start 0",
      "turn_start 0",
      "message_start:user:hi 0",
      "message_end:user:hi 1",
      "message_start:assistant 1",
      "message_end:assistant 2",
      "turn_end 2",
      "agent_end 2",
    ]);
  });
});

describe("A5: listeners are awaited in order, and the loop waits for them", () => {
  it("A5: each event waits for every listener, in registration order, before the next event", async () => {
    const provider = fauxProvider([{ content: [fauxToolCall("t", {}, "c1")] }, { content: "done" }]);
    // Both listeners wait one frame of a virtual clock, driven frame by frame so promises settle.
    const scheduler = newScheduler();
    const agent = agentWith({ streamFn: provider, scheduler, initialState: { tools: [tool("t", () => textResult("r"))] } });
    const log: string[] = [];
    agent.subscribe(async (event) => {
      if (event.type === "message_update") return;
      log.push(`first:${label(event)}:begin`);
      await firstValueFrom(timer(1, scheduler));
      log.push(`first:${label(event)}:end`);
    });
    agent.subscribe((event) => {
      if (event.type === "message_update") return undefined;
      log.push(`second:${label(event)}`);
      // an Observable is awaited too
      return timer(1, scheduler);
    });
    const prompted = agent.prompt("go");
    await settleVirtualTime(scheduler, { until: prompted });
    await prompted;
    const labels = log.filter((l) => l.startsWith("second:")).map((l) => l.slice("second:".length));
    expect(labels[0]).toBe("agent_start");
    expect(labels[labels.length - 1]).toBe("agent_end");
    // for every event: first begins, first ends, then second — and nothing of the next event before
    const expected = labels.flatMap((l) => [`first:${l}:begin`, `first:${l}:end`, `second:${l}`]);
    expect(log).toEqual(expected);
  });

  it("A5: subscribe() returns a function that removes the listener", async () => {
    const provider = fauxProvider([{ content: "a" }, { content: "b" }]);
    const agent = agentWith({ streamFn: provider });
    const seen: AgentEvent[] = [];
    const unsubscribe = agent.subscribe((event) => void seen.push(event));
    await agent.prompt("one");
    const count = seen.length;
    unsubscribe();
    await agent.prompt("two");
    expect(seen).toHaveLength(count);
  });

  it("A5: listeners receive the run's AbortSignal", async () => {
    const provider = fauxProvider([{ content: "a" }]);
    const agent = agentWith({ streamFn: provider });
    const signals = new Set<AbortSignal>();
    agent.subscribe((_event, signal) => void signals.add(signal));
    await agent.prompt("one");
    expect(signals.size).toBe(1);
    expect([...signals][0]).toBeInstanceOf(AbortSignal);
  });

  it("A5: beforeToolCall sees the assistant message that asked for the tool in state.messages, behind a slow listener", async () => {
    const provider = fauxProvider([{ content: [fauxToolCall("t", {}, "c1")] }, { content: "done" }]);
    let sawMessage: boolean | undefined;
    const agent = agentWith({
      streamFn: provider,
      initialState: { tools: [tool("t", () => textResult("r"))] },
      beforeToolCall: ({ assistantMessage }) => {
        sawMessage = agent.state.messages.includes(assistantMessage);
        return undefined;
      },
    });
    const order: string[] = [];
    const began = deferred<void>();
    const release = deferred<void>();
    agent.subscribe(async (event) => {
      if (event.type === "message_end" && (event.message as { role: string }).role === "assistant" && order.length === 0) {
        order.push("listener:begin");
        began.resolve();
        await release.promise;
        order.push("listener:end");
      }
      if (event.type === "tool_execution_start") order.push("tool_execution_start");
    });
    const prompted = agent.prompt("go");
    await began.promise;
    // Every chance to run ahead of the pending listener, before it is let go.
    await flushPromises();
    release.resolve();
    await prompted;
    expect(sawMessage).toBe(true);
    expect(order).toEqual(["listener:begin", "listener:end", "tool_execution_start"]);
  });

  it("A5: prompt() and waitForIdle() resolve only after agent_end listeners finish; isStreaming stays true until then", async () => {
    const provider = fauxProvider([{ content: "done" }]);
    const agent = agentWith({ streamFn: provider });
    const log: string[] = [];
    const firstBegan = deferred<void>();
    const [releaseFirst, releaseSecond] = [deferred<void>(), deferred<void>()];
    agent.subscribe(async (event) => {
      if (event.type !== "agent_end") return;
      log.push(`agent_end listener begins, streaming=${agent.state.isStreaming}`);
      firstBegan.resolve();
      await releaseFirst.promise;
      log.push(`agent_end listener ends, streaming=${agent.state.isStreaming}`);
    });
    agent.subscribe(async (event) => {
      if (event.type !== "agent_end") return;
      await releaseSecond.promise;
      log.push("second agent_end listener ends");
    });
    const prompted = agent.prompt("hi").then(() => log.push(`prompt resolved, streaming=${agent.state.isStreaming}`));
    const idle = agent.waitForIdle().then(() => log.push("waitForIdle resolved"));
    await firstBegan.promise;
    // The second listener is free to end first, and the first is held over a whole event-loop
    // turn: only the barrier keeps the order below.
    releaseSecond.resolve();
    await flushPromises();
    releaseFirst.resolve();
    await Promise.all([prompted, idle]);
    expect(log.slice(0, 3)).toEqual([
      "agent_end listener begins, streaming=true",
      "agent_end listener ends, streaming=true",
      "second agent_end listener ends",
    ]);
    expect(log.slice(3).sort()).toEqual(["prompt resolved, streaming=false", "waitForIdle resolved"]);
    expect(agent.state.isStreaming).toBe(false);
  });

  it("A5: an agent_end listener that rejects does not start a second ending; the agent goes idle", async () => {
    const provider = fauxProvider([{ content: "done" }, { content: "again" }]);
    const agent = agentWith({ streamFn: provider });
    const { events } = record(agent);
    agent.subscribe(async (event) => {
      if (event.type === "agent_end") throw new Error("late failure");
    });
    await agent.prompt("hi");
    expect(events.filter((e) => e.type === "agent_end")).toHaveLength(1);
    expect(agent.state.isStreaming).toBe(false);
    expect(agent.state.errorMessage).toMatch(/late failure/);
    expect(roles(agent.state.messages)).toEqual(["user", "assistant"]);
    await agent.prompt("next");
    expect(roles(agent.state.messages)).toEqual(["user", "assistant", "user", "assistant"]);
  });
});

describe("A5: a listener that aborts the run from inside its own call", () => {
  it("A5: the abort's events are told after that call returned, in the same order to the listeners, events$ and prompt$", async () => {
    const agent = agentWith({ streamFn: fauxProvider([{ content: "Hello there, how are you?" }], { chunkSize: 4 }) });
    const heard: string[] = [];
    const reentered: string[] = [];
    let inside = false;
    agent.subscribe((event) => {
      if (inside) reentered.push(event.type);
      inside = true;
      heard.push(event.type);
      if (event.type === "message_update") agent.abort();
      inside = false;
    });
    const hot: string[] = [];
    const feed = agent.events$.subscribe((event) => hot.push(event.type));
    const told: string[] = [];
    await new Promise<void>((resolve) => agent.prompt$("hi").subscribe({ next: (event) => told.push(event.type), complete: resolve }));
    feed.unsubscribe();
    expect(reentered).toEqual([]);
    expect(heard.slice(-4)).toEqual(["message_update", "message_end", "turn_end", "agent_end"]);
    expect(told).toEqual(heard);
    expect(hot).toEqual(heard);
    expect(agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });
  });
});

describe("A5: an abort from the run's own subscriber while a listener is pending", () => {
  it("A5: no listener sees the next event before the one before it settled, though the abort ends the response at once", async () => {
    const agent = agentWith({ streamFn: fauxProvider([{ content: "Hello there, how are you?" }], { chunkSize: 4 }) });
    const log: string[] = [];
    let pending = 0;
    const waiting = deferred<void>();
    const release = deferred<void>();
    agent.subscribe(async (event) => {
      if (pending > 0) log.push(`overlap ${event.type}`);
      log.push(event.type);
      if (event.type === "message_start" && (event.message as { role: string }).role === "assistant") {
        pending++;
        waiting.resolve();
        await release.promise;
        pending--;
      }
    });
    const completed = new Promise<void>((resolve) => {
      agent.prompt$("hi").subscribe({
        next: (event) => {
          if (event.type === "message_start" && (event.message as { role: string }).role === "assistant") agent.abort();
        },
        complete: () => resolve(),
      });
    });
    await waiting.promise;
    // The abort has ended the response; the listener is held over a whole event-loop turn.
    await flushPromises();
    release.resolve();
    await completed;
    expect(log.filter((line) => line.startsWith("overlap"))).toEqual([]);
    expect(log.slice(-3)).toEqual(["message_end", "turn_end", "agent_end"]);
    expect(agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });
  });
});
