/**
 * The reactive surface (SPEC A7): `state$` (the state now, then each change, as frozen
 * snapshots), `events$` (hot, every event of every run), `prompt$()` (an Observable run whose
 * subscription follows the run; unsubscribing aborts it), and agreement between the listener
 * path and the Observable paths.
 */
import { toSignal } from "@angular/core/rxjs-interop";
import { concat, distinctUntilChanged, filter, lastValueFrom, map, take, timer, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import type { AgentStateSnapshot } from "../../src/agent/agent-state.js";
import type { AgentEvent, AssistantMessage, Message } from "../../src/index.js";
import { fauxProvider, fauxToolCall } from "../../src/testing/index.js";
import { agentWith, label, model, newScheduler, record, roles, textOf, textResult, timerTool, tool, user } from "./support.js";

describe("A7: state$", () => {
  it("A7: emits the current state at once on subscribe, then after each change", () => {
    const agent = agentWith({ initialState: { systemPrompt: "Sys." } });
    const snapshots: AgentStateSnapshot[] = [];
    const subscription = agent.state$.subscribe((s) => snapshots.push(s));
    expect(snapshots).toHaveLength(1);
    expect(snapshots[0]!.systemPrompt).toBe("Sys.");
    expect(snapshots[0]!.isStreaming).toBe(false);
    expect(roles(snapshots[0]!.messages)).toEqual(["system"]);

    agent.state.messages = [...agent.state.messages, user("hello")];
    expect(snapshots).toHaveLength(2);
    expect(roles(snapshots[1]!.messages)).toEqual(["system", "user"]);

    agent.state.thinkingLevel = "medium";
    agent.state.model = { ...model, id: "other" };
    agent.state.tools = [tool("t", () => textResult(""))];
    expect(snapshots.map((s) => s.thinkingLevel).slice(-3)).toEqual(["medium", "medium", "medium"]);
    expect(snapshots[snapshots.length - 1]!.model.id).toBe("other");
    expect(snapshots[snapshots.length - 1]!.tools.map((t) => t.name)).toEqual(["t"]);

    agent.reset();
    expect(roles(snapshots[snapshots.length - 1]!.messages)).toEqual(["system"]);
    subscription.unsubscribe();
    const count = snapshots.length;
    agent.state.messages = [];
    expect(snapshots).toHaveLength(count);
  });

  it("A7: snapshots are frozen, and later changes do not alter an old snapshot", async () => {
    const provider = fauxProvider([{ content: [fauxToolCall("t", {}, "c1")] }, { content: "done" }]);
    const agent = agentWith({ streamFn: provider, initialState: { tools: [tool("t", () => textResult("r"))] } });
    const snapshots: AgentStateSnapshot[] = [];
    agent.state$.subscribe((s) => snapshots.push(s));
    const before = snapshots[0]!;
    await agent.prompt("go");

    expect(Object.isFrozen(before)).toBe(true);
    expect(Object.isFrozen(before.messages)).toBe(true);
    expect(Object.isFrozen(before.tools)).toBe(true);
    expect(() => (before.messages as unknown[]).push(user("x"))).toThrow(TypeError);
    expect(() => {
      (before as { isStreaming: boolean }).isStreaming = true;
    }).toThrow(TypeError);

    // the first snapshot is still the state before the run
    expect(roles(before.messages)).toEqual(["system"]);
    expect(before.isStreaming).toBe(false);

    // a snapshot taken while the tool ran still shows it pending and the transcript of that moment
    const duringTool = snapshots.find((s) => s.pendingToolCalls.has("c1"))!;
    expect(duringTool.isStreaming).toBe(true);
    expect(roles(duringTool.messages)).toEqual(["system", "user", "assistant"]);

    // a snapshot taken mid-stream holds the partial
    const streaming = snapshots.find((s) => s.streamingMessage !== undefined && (s.streamingMessage as Message).role === "assistant")!;
    expect(streaming.isStreaming).toBe(true);

    const last = snapshots[snapshots.length - 1]!;
    expect(last.isStreaming).toBe(false);
    expect(last.pendingToolCalls.size).toBe(0);
    expect(roles(last.messages)).toEqual(["system", "user", "assistant", "toolResult", "assistant"]);
    expect(last.messages).toEqual(agent.state.messages);
    expect(last.messages).not.toBe(agent.state.messages);

    // after a reset, the old final snapshot keeps its transcript
    agent.reset();
    expect(roles(last.messages)).toEqual(["system", "user", "assistant", "toolResult", "assistant"]);
  });

  it("A7: every change of a run reaches state$, each transcript step included, isStreaming from true back to false", async () => {
    const provider = fauxProvider([{ content: "hi" }]);
    const agent = agentWith({ streamFn: provider });
    const snapshots: AgentStateSnapshot[] = [];
    agent.state$.subscribe((s) => snapshots.push(s));
    await agent.prompt("hello");
    const streaming = snapshots.map((s) => s.isStreaming);
    expect(streaming[0]).toBe(false);
    expect(streaming[1]).toBe(true);
    expect(streaming[streaming.length - 1]).toBe(false);
    // isStreaming turns false exactly once, at the end
    expect(streaming.slice(1, -1).every(Boolean)).toBe(true);
    const lengths = [...new Set(snapshots.map((s) => s.messages.length))];
    expect(lengths).toEqual([0, 1, 2]);
  });

  it("A7 A4: in virtual time, state$ follows the run frame by frame: streaming, the partial growing, idle after the agent_end listener", () => {
    const scheduler = newScheduler();
    const provider = fauxProvider([{ content: "abcdefgh" }], { scheduler, delay: 1, chunkSize: 4 });
    const agent = agentWith({ scheduler, streamFn: provider });
    agent.subscribe((event) => (event.type === "agent_end" ? timer(5) : undefined));
    const seen: string[] = [];
    scheduler.run(() => {
      // start 0, text_start 1, deltas 2 and 3, text_end 4, done 5; agent_end listener until 10
      agent.state$
        .pipe(
          map((s) => (s.isStreaming ? `busy:${textOf(s.streamingMessage)}:${s.messages.length}` : `idle:${s.messages.length}`)),
          distinctUntilChanged(),
        )
        .subscribe((view) => seen.push(`${scheduler.now()} ${view}`));
      agent.prompt$("go").subscribe();
    });
    expect(seen).toEqual([
      "0 idle:0",
      "0 busy::0", // the run started
      "0 busy:go:0", // the prompt's message_start
      "0 busy::1", // committed; the assistant's empty partial
      "2 busy:abcd:1",
      "3 busy:abcdefgh:1",
      "5 busy::2", // committed at done
      "10 idle:2", // idle once the agent_end listener finished
    ]);
  });

  it("A7: works with Angular's toSignal (requireSync), following every change", async () => {
    const provider = fauxProvider([{ content: "hi" }]);
    const agent = agentWith({ streamFn: provider });
    const state = toSignal(agent.state$, { requireSync: true, manualCleanup: true });
    expect(state().isStreaming).toBe(false);
    expect(state().messages).toHaveLength(0);
    const running = agent.prompt("hello");
    await running;
    expect(state().isStreaming).toBe(false);
    expect(roles(state().messages)).toEqual(["user", "assistant"]);
    const messageCount = toSignal(agent.state$.pipe(map((s) => s.messages.length)), { requireSync: true, manualCleanup: true });
    expect(messageCount()).toBe(2);
  });
});

describe("A7: events$", () => {
  it("A7: events$ is hot and sees every event of every run; a late subscriber misses what came before", async () => {
    const provider = fauxProvider([{ content: "one" }, { content: "two" }]);
    const agent = agentWith({ streamFn: provider });
    const early: string[] = [];
    agent.events$.subscribe((e) => early.push(label(e)));
    await agent.prompt("first");
    const late: string[] = [];
    agent.events$.subscribe((e) => late.push(label(e)));
    await agent.prompt("second");

    const run = (text: string) => ["agent_start", "turn_start", `message_start:user:${text}`, `message_end:user:${text}`, "message_start:assistant"];
    expect(early.filter((l) => !l.startsWith("message_update"))).toEqual([
      ...run("first"),
      "message_end:assistant",
      "turn_end",
      "agent_end",
      ...run("second"),
      "message_end:assistant",
      "turn_end",
      "agent_end",
    ]);
    expect(late.filter((l) => !l.startsWith("message_update"))).toEqual([...run("second"), "message_end:assistant", "turn_end", "agent_end"]);
  });

  it("A7: events$ sees the state already reduced, like listeners", async () => {
    const provider = fauxProvider([{ content: "x" }]);
    const agent = agentWith({ streamFn: provider });
    const inState: boolean[] = [];
    agent.events$.pipe(filter((e) => e.type === "message_end")).subscribe((e) => inState.push(agent.state.messages.includes((e as { message: Message }).message)));
    await agent.prompt("hi");
    expect(inState).toEqual([true, true]);
  });

  it("A7: the listener path, events$ and prompt$() see the same events in the same order", async () => {
    const provider = fauxProvider([{ content: [fauxToolCall("a", {}, "ca"), fauxToolCall("b", {}, "cb")] }, { content: "done" }], { chunkSize: 3 });
    const agent = agentWith({
      streamFn: provider,
      initialState: { tools: [tool("a", async () => textResult("A")), tool("b", () => textResult("B"))] },
    });
    const { events: viaListener } = record(agent);
    const viaHot: AgentEvent[] = [];
    agent.events$.subscribe((e) => viaHot.push(e));
    const viaRun = await lastValueFrom(agent.prompt$("go").pipe(toArray()));
    expect(viaRun.length).toBeGreaterThan(20);
    expect(viaRun).toEqual(viaListener);
    expect(viaHot).toEqual(viaListener);
    // the very same event objects
    viaRun.forEach((e, i) => expect(e).toBe(viaListener[i]));
  });
});

describe("A7: prompt$()", () => {
  it("A7: is cold — nothing runs until it is subscribed; it completes when the agent is idle", async () => {
    const provider = fauxProvider([{ content: "hi" }]);
    const agent = agentWith({ streamFn: provider });
    const run$ = agent.prompt$("hello");
    expect(provider.requests).toHaveLength(0);
    expect(agent.state.isStreaming).toBe(false);
    let idleAtComplete: boolean | undefined;
    await new Promise<void>((resolve) => run$.subscribe({ complete: () => ((idleAtComplete = !agent.state.isStreaming), resolve()) }));
    expect(idleAtComplete).toBe(true);
    expect(provider.requests).toHaveLength(1);
  });

  it("A7: prompt$() composes: concat runs two prompts back to back, the second starting in the frame the first goes idle", () => {
    const scheduler = newScheduler();
    const provider = fauxProvider([{ content: "r1" }, { content: "r2" }], { scheduler, delay: 1 });
    const agent = agentWith({ scheduler, streamFn: provider });
    agent.subscribe((event) => (event.type === "agent_end" ? timer(3) : undefined));
    scheduler.run(({ expectObservable }) => {
      // r1: 0..4, agent_end listener until 7; r2: 7..11, idle at 14
      const both$ = concat(agent.prompt$("one"), agent.prompt$("two")).pipe(
        filter((e) => e.type === "agent_start" || e.type === "agent_end"),
        map((e) => (e.type === "agent_start" ? "s" : "e")),
      );
      expectObservable(both$).toBe("s 3ms e 2ms s 3ms e 2ms |");
    });
    expect(roles(agent.state.messages)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(agent.state.isStreaming).toBe(false);
  });

  it("A7: a state$ subscriber that starts the next prompt when the agent goes idle: every subscriber ends on the true state", async () => {
    const provider = fauxProvider([{ content: "r1" }, { content: "r2" }]);
    const agent = agentWith({ streamFn: provider });
    let second: Promise<void> | undefined;
    agent.state$.subscribe((s) => {
      if (!s.isStreaming && s.messages.length === 2 && !second) second = agent.prompt("second");
    });
    const seen: string[] = [];
    agent.state$.subscribe((s) => seen.push(`${s.isStreaming ? "busy" : "idle"} ${s.messages.length}`));
    await agent.prompt("first");
    expect(second).toBeDefined();
    await second;
    expect(roles(agent.state.messages)).toEqual(["user", "assistant", "user", "assistant"]);
    // the second subscriber never sees the transcript go back, and ends idle with all four messages
    const lengths = seen.map((l) => Number(l.split(" ")[1]));
    expect(lengths).toEqual([...lengths].sort((a, b) => a - b));
    expect(seen[seen.length - 1]).toBe("idle 4");
  });

  it("A7 A2: subscribing while a run is active errors with the steer()/followUp() hint", () => {
    const scheduler = newScheduler();
    const provider = fauxProvider([{ content: "hi" }], { scheduler, delay: 1 });
    const agent = agentWith({ scheduler, streamFn: provider });
    let second: unknown;
    scheduler.run(() => {
      agent.prompt$("one").subscribe();
      scheduler.schedule(() => agent.prompt$("two").subscribe({ error: (e) => (second = e) }), 2);
    });
    expect(String(second)).toMatch(/steer\(\) or followUp\(\)/);
    expect(provider.requests).toHaveLength(1);
  });

  it("A7: unsubscribing aborts the run; the run still settles (aborted message, agent idle) and the subscriber hears nothing more", () => {
    const scheduler = newScheduler();
    const provider = fauxProvider([{ content: "a rather long answer to be cut" }, { content: "fresh" }], { scheduler, delay: 1, chunkSize: 4 });
    const agent = agentWith({ scheduler, streamFn: provider });
    const { events } = record(agent);
    const received: string[] = [];
    let completed = false;
    scheduler.run(({ expectObservable }) => {
      const subscription = agent.prompt$("talk").subscribe({ next: (e) => received.push(`${scheduler.now()} ${label(e)}`), complete: () => (completed = true) });
      scheduler.schedule(() => subscription.unsubscribe(), 3);
      // the hot stream sees the run settle in the frame of the unsubscribe
      expectObservable(agent.events$.pipe(filter((e) => e.type === "message_end" || e.type === "agent_end"), map(label), take(2))).toBe("3ms (ae|)", {
        a: "message_end:assistant",
        e: "agent_end",
      });
    });
    expect(completed).toBe(false);
    expect(received.every((line) => Number(line.split(" ")[0]) < 3)).toBe(true);
    expect(received[received.length - 1]).not.toMatch(/agent_end/);
    const last = agent.state.messages[agent.state.messages.length - 1] as AssistantMessage;
    expect(last.stopReason).toBe("aborted");
    expect(events[events.length - 1]!.type).toBe("agent_end");
    expect(agent.state.isStreaming).toBe(false);
    expect(agent.signal).toBeUndefined();
    expect(provider.requests[0]!.options.signal?.aborted).toBe(true);
  });

  it("A7 L10: unsubscribing during a tool batch: each call gets one result, the run ends aborted, a new prompt$ runs", () => {
    const scheduler = newScheduler();
    const provider = fauxProvider([{ content: [fauxToolCall("slow", {}, "s1"), fauxToolCall("fast", {}, "f1")] }, { content: "fresh" }], { scheduler, delay: 1 });
    const agent = agentWith({ scheduler, streamFn: provider, initialState: { tools: [timerTool("slow", 50), timerTool("fast", 5)] } });
    scheduler.run(({ expectObservable }) => {
      // request 1: 0..7 (two calls, 3 events each, plus start and done); fast ends at 12; unsubscribe at 20
      const subscription = agent.prompt$("go").subscribe();
      scheduler.schedule(() => subscription.unsubscribe(), 20);
      // a new run subscribed at frame 30: "fresh" streams over frames 30..34
      expectObservable(agent.prompt$("again").pipe(filter((e) => e.type === "agent_end"), map(() => "e")), "30ms ^").toBe("34ms (e|)");
    });
    const messages = agent.state.messages;
    const results = messages.filter((m): m is Extract<Message, { role: "toolResult" }> => (m as Message).role === "toolResult");
    expect(results.map((r) => [r.toolCallId, textOf(r)])).toEqual([
      ["s1", "Operation aborted"],
      ["f1", "fast"],
    ]);
    const assistants = messages.filter((m): m is AssistantMessage => (m as Message).role === "assistant");
    expect(assistants.map((m) => m.stopReason)).toEqual(["toolUse", "aborted", "stop"]);
    expect(textOf(assistants[2])).toBe("fresh");
    expect(agent.state.isStreaming).toBe(false);
  });
});

describe("A7: the streams of an Agent", () => {
  it("A7: events$, state$ and usage$ are the same Observable on every read (an async pipe keeps its subscription)", () => {
    const agent = agentWith({});
    expect(agent.events$).toBe(agent.events$);
    expect(agent.state$).toBe(agent.state$);
    expect(agent.usage$).toBe(agent.usage$);
  });

  it("A7: a state$ subscriber that comes after the Agent ran for a while still gets each change", async () => {
    const agent = agentWith({ streamFn: fauxProvider([{ content: "one" }, { content: "two" }]) });
    await agent.prompt("first");
    const seen: number[] = [];
    const subscription = agent.state$.subscribe((snapshot) => seen.push(snapshot.messages.length));
    await agent.prompt("second");
    subscription.unsubscribe();
    expect(seen[0]).toBe(agent.state.messages.length - 2);
    expect(seen.at(-1)).toBe(agent.state.messages.length);
  });
});
