/**
 * The Agent's queues (SPEC L7) and its listener barrier (SPEC A5, L11) in virtual time: every
 * scenario runs inside `TestScheduler.run`, with the TestScheduler as the Agent's `scheduler`
 * and the scripted provider's. Runs go through `agent.prompt$()`, so no promise is involved;
 * user actions are scheduled at frames.
 *
 * Frame arithmetic of the scripted provider (delay 1): `start` at the request's frame, one
 * event per frame after it. A reply of three argument-less tool calls is 11 events (frames
 * +0..+10); a short text reply is 5 events (+0..+4).
 */
import { filter, map, type Observable, take, timer } from "rxjs";
import { describe, expect, it } from "vitest";
import type { Agent } from "../../src/agent/agent.js";
import type { AgentEvent, Message } from "../../src/index.js";
import { fauxProvider, fauxToolCall, type FauxScriptEntry } from "../../src/testing/index.js";
import { agentWith, frameOf, indexOf, label, newScheduler, roles, stampedEvents, timerTool, userTexts } from "./support.js";

/** The events a queue test asserts on: user messages, tool ends, turn and run ends. */
function milestones(events: Observable<AgentEvent>): Observable<string> {
  return events.pipe(
    filter(
      (e) =>
        (e.type === "message_end" && (e.message as Message).role !== "toolResult") ||
        e.type === "tool_execution_end" ||
        e.type === "agent_end",
    ),
    map(label),
  );
}

function threeToolAgent(scheduler: ReturnType<typeof newScheduler>, script: FauxScriptEntry[], options: Parameters<typeof agentWith>[0] = {}) {
  const provider = fauxProvider(script, { scheduler, delay: 1 });
  const agent: Agent = agentWith({
    ...options,
    scheduler,
    streamFn: provider,
    initialState: { tools: [timerTool("slow", 30), timerTool("fast", 10), timerTool("medium", 20)] },
  });
  return { agent, provider };
}

const threeCalls: FauxScriptEntry = { content: [fauxToolCall("slow", {}, "a"), fauxToolCall("fast", {}, "b"), fauxToolCall("medium", {}, "c")] };

describe("L7 A2: the Agent's queues in virtual time", () => {
  it("L7: steering sent during a three-tool batch arrives after the batch, before the next request", () => {
    const scheduler = newScheduler();
    const stamped: string[] = [];
    const { agent, provider } = threeToolAgent(scheduler, [threeCalls, { content: "after" }]);
    scheduler.run(({ expectObservable }) => {
      // request 1: frames 0..10; tools end at 20 (fast), 30 (medium), 40 (slow)
      scheduler.schedule(() => agent.steer("stop that"), 15);
      const run$ = stampedEvents(agent.prompt$("go"), scheduler, stamped);
      expectObservable(milestones(run$)).toBe("g 9ms x 9ms b 9ms c 9ms (as)(ze|)", {
        g: "message_end:user:go",
        x: "message_end:assistant",
        b: "tool_execution_end:b",
        c: "tool_execution_end:c",
        a: "tool_execution_end:a",
        s: "message_end:user:stop that",
        z: "message_end:assistant",
        e: "agent_end",
      });
    });
    // the steering message comes after every tool result of the batch and the batch's turn_end
    const steering = indexOf(stamped, "message_start:user:stop that");
    expect(indexOf(stamped, "message_end:toolResult:c")).toBeLessThan(steering);
    expect(indexOf(stamped, "turn_end")).toBeLessThan(steering);
    expect(frameOf(stamped, "message_start:user:stop that")).toBe(40);
    expect(provider.requests).toHaveLength(2);
    expect(roles(provider.requests[1]!.messages)).toEqual(["system", "user", "assistant", "toolResult", "toolResult", "toolResult", "user"]);
    expect(userTexts(provider.requests[1]!.messages)).toEqual(["go", "stop that"]);
    expect(agent.state.isStreaming).toBe(false);
  });

  it("L7: `one-at-a-time` spreads three steering messages over three requests", () => {
    const scheduler = newScheduler();
    const { agent, provider } = threeToolAgent(scheduler, [threeCalls, { content: "r2" }, { content: "r3" }, { content: "r4" }]);
    scheduler.run(({ expectObservable }) => {
      scheduler.schedule(() => {
        agent.steer("s1");
        agent.steer("s2");
        agent.steer("s3");
      }, 15);
      // batch ends at 40; each text reply takes 5 frames (+0..+4)
      expectObservable(milestones(agent.prompt$("go")).pipe(filter((l) => l.startsWith("message_end") || l === "agent_end"))).toBe(
        "g 9ms x 29ms 1 3ms (r2)(r3)(re|)",
        { g: "message_end:user:go", x: "message_end:assistant", 1: "message_end:user:s1", 2: "message_end:user:s2", 3: "message_end:user:s3", r: "message_end:assistant", e: "agent_end" },
      );
    });
    expect(provider.requests.map((r) => userTexts(r.messages))).toEqual([["go"], ["go", "s1"], ["go", "s1", "s2"], ["go", "s1", "s2", "s3"]]);
    expect(agent.hasQueuedMessages()).toBe(false);
  });

  it("L7: `all` sends the three steering messages together in one request", () => {
    const scheduler = newScheduler();
    // 17 characters: three deltas, so the reply's message_end is at +6
    const { agent, provider } = threeToolAgent(scheduler, [threeCalls, { content: "all three at once" }], { steeringMode: "all" });
    scheduler.run(({ expectObservable }) => {
      scheduler.schedule(() => {
        agent.steer("s1");
        agent.steer("s2");
        agent.steer("s3");
      }, 15);
      expectObservable(milestones(agent.prompt$("go")).pipe(filter((l) => l.startsWith("message_end") || l === "agent_end"))).toBe(
        "g 9ms x 29ms (123)-(re|)",
        { g: "message_end:user:go", x: "message_end:assistant", 1: "message_end:user:s1", 2: "message_end:user:s2", 3: "message_end:user:s3", r: "message_end:assistant", e: "agent_end" },
      );
    });
    expect(provider.requests.map((r) => userTexts(r.messages))).toEqual([["go"], ["go", "s1", "s2", "s3"]]);
  });

  it("L7: a follow-up sent during a run starts a new turn only after the natural stop", () => {
    const scheduler = newScheduler();
    const stamped: string[] = [];
    const { agent, provider } = threeToolAgent(scheduler, [threeCalls, { content: "r2" }, { content: "r3" }]);
    scheduler.run(({ expectObservable }) => {
      // sent while the first reply streams; tool results (frame 40) do not take it
      scheduler.schedule(() => agent.followUp("and then?"), 2);
      const run$ = stampedEvents(agent.prompt$("go"), scheduler, stamped);
      expectObservable(milestones(run$).pipe(filter((l) => l.startsWith("message_end") || l === "agent_end"))).toBe("g 9ms x 29ms 4ms (rf)(re|)", {
        g: "message_end:user:go",
        x: "message_end:assistant",
        r: "message_end:assistant",
        f: "message_end:user:and then?",
        e: "agent_end",
      });
    });
    expect(provider.requests.map((r) => userTexts(r.messages))).toEqual([["go"], ["go"], ["go", "and then?"]]);
    // the natural stop: r2's turn ends, then a new turn starts with the follow-up
    const followUp = indexOf(stamped, "message_start:user:and then?");
    expect(stamped.slice(followUp - 3, followUp + 1).map((l) => l.slice(l.indexOf(" ") + 1))).toEqual(["message_end:assistant", "turn_end", "turn_start", "message_start:user:and then?"]);
    expect(frameOf(stamped, "message_start:user:and then?")).toBe(44);
  });

  it("L7: a steering and a follow-up sent together are taken in that order", () => {
    const scheduler = newScheduler();
    const provider = fauxProvider([{ content: "r1" }, { content: "r2" }, { content: "r3" }], { scheduler, delay: 1 });
    const agent = agentWith({ scheduler, streamFn: provider });
    scheduler.run(({ expectObservable }) => {
      scheduler.schedule(() => {
        agent.followUp("follow");
        agent.steer("steer");
      }, 2);
      // r1: 0..4, then steer + r2: 4..8, then follow + r3: 8..12
      expectObservable(milestones(agent.prompt$("go"))).toBe("g 3ms (rs)(rf)(re|)", {
        g: "message_end:user:go",
        r: "message_end:assistant",
        s: "message_end:user:steer",
        f: "message_end:user:follow",
        e: "agent_end",
      });
    });
    expect(provider.requests.map((r) => userTexts(r.messages))).toEqual([["go"], ["go", "steer"], ["go", "steer", "follow"]]);
  });

  it("L7: steering sent during the last reply is taken after it, without waiting for a follow-up poll", () => {
    const scheduler = newScheduler();
    const provider = fauxProvider([{ content: "r1" }, { content: "r2" }], { scheduler, delay: 1 });
    const agent = agentWith({ scheduler, streamFn: provider });
    scheduler.run(({ cold, expectObservable }) => {
      // a cold observable as the user: steer at frame 3
      cold("---s").subscribe(() => agent.steer("late steer"));
      expectObservable(milestones(agent.prompt$("go"))).toBe("g 3ms (rs) (re|)", {
        g: "message_end:user:go",
        r: "message_end:assistant",
        s: "message_end:user:late steer",
        e: "agent_end",
      });
    });
    expect(provider.requests).toHaveLength(2);
  });
});

describe("L7 A1 A5: modes and settings changed at run time", () => {
  it("L7 A1: switching steeringMode to `all` mid-run changes how the next poll drains", () => {
    const scheduler = newScheduler();
    const { agent, provider } = threeToolAgent(scheduler, [threeCalls, { content: "r2" }, { content: "r3" }]);
    scheduler.run(() => {
      scheduler.schedule(() => {
        agent.steer("s1");
        agent.steer("s2");
        agent.steer("s3");
      }, 15);
      // after the first poll (frame 40) took s1, switch: the next poll takes s2 and s3 together
      scheduler.schedule(() => (agent.steeringMode = "all"), 41);
      agent.prompt$("go").subscribe();
    });
    expect(provider.requests.map((r) => userTexts(r.messages))).toEqual([["go"], ["go", "s1"], ["go", "s1", "s2", "s3"]]);
  });

  it("A1 T4: toolExecution `sequential` runs the batch one call at a time", () => {
    const scheduler = newScheduler();
    const stamped: string[] = [];
    const { agent } = threeToolAgent(scheduler, [threeCalls, { content: "done" }], { toolExecution: "sequential" });
    scheduler.run(() => {
      stampedEvents(agent.prompt$("go"), scheduler, stamped).subscribe();
    });
    // message_end at 10; slow 10→40, fast 40→50, medium 50→70
    expect(stamped.filter((l) => l.includes("tool_execution_"))).toEqual([
      "10 tool_execution_start:a",
      "40 tool_execution_end:a",
      "40 tool_execution_start:b",
      "50 tool_execution_end:b",
      "50 tool_execution_start:c",
      "70 tool_execution_end:c",
    ]);
  });

  it("A5 L7: a steering message sent by a slow turn_end listener is taken by the poll after it", () => {
    const scheduler = newScheduler();
    const stamped: string[] = [];
    const provider = fauxProvider([{ content: "r1" }, { content: "r2" }], { scheduler, delay: 1 });
    const agent = agentWith({ scheduler, streamFn: provider });
    let sent = false;
    agent.subscribe((event) => {
      if (event.type !== "turn_end" || sent) return undefined;
      sent = true;
      return timer(10).pipe(map(() => agent.steer("from the listener")));
    });
    scheduler.run(() => {
      stampedEvents(agent.prompt$("go"), scheduler, stamped).subscribe();
    });
    // r1 ends at 4; the listener holds turn_end until 14, then the poll takes the message
    expect(frameOf(stamped, "message_start:user:from the listener")).toBe(14);
    expect(provider.requests.map((r) => userTexts(r.messages))).toEqual([["go"], ["go", "from the listener"]]);
  });

  it("L7: steering sent from prepareNextTurn is taken by the poll after it, in the same turn", () => {
    const scheduler = newScheduler();
    const provider = fauxProvider([{ content: [fauxToolCall("fast", {}, "f1")] }, { content: "r2" }], { scheduler, delay: 1 });
    let steered = false;
    const agent: Agent = agentWith({
      scheduler,
      streamFn: provider,
      initialState: { tools: [timerTool("fast", 5)] },
      prepareNextTurn: () => {
        if (!steered) {
          steered = true;
          agent.steer("from prepareNextTurn");
        }
        return undefined;
      },
    });
    scheduler.run(() => {
      agent.prompt$("go").subscribe();
    });
    expect(provider.requests.map((r) => userTexts(r.messages))).toEqual([["go"], ["go", "from prepareNextTurn"]]);
    expect(roles(provider.requests[1]!.messages)).toEqual(["system", "user", "assistant", "toolResult", "user"]);
  });

  it("L7: a follow-up sent by an agent_end listener is not taken by the ending run; it stays queued for the next", () => {
    const scheduler = newScheduler();
    const provider = fauxProvider([{ content: "r1" }, { content: "r2" }, { content: "r3" }], { scheduler, delay: 1 });
    const agent = agentWith({ scheduler, streamFn: provider });
    let sent = false;
    agent.subscribe((event) => {
      if (event.type === "agent_end" && !sent) {
        sent = true;
        agent.followUp("too late");
      }
    });
    scheduler.run(() => {
      agent.prompt$("go").subscribe();
    });
    expect(provider.requests).toHaveLength(1);
    expect(agent.hasQueuedMessages()).toBe(true);
    expect(agent.peekQueuedMessages().map((m) => userTexts([m])[0])).toEqual(["too late"]);
    scheduler.run(() => {
      agent.prompt$("next").subscribe();
    });
    // the next run takes it at its natural stop
    expect(provider.requests.map((r) => userTexts(r.messages))).toEqual([["go"], ["go", "next"], ["go", "next", "too late"]]);
    expect(agent.hasQueuedMessages()).toBe(false);
  });
});

describe("A5 L11: the listener barrier in virtual time", () => {
  /** A reply of one argument-less tool call: frames +0..+4, message_end at +4. */
  function barrierRun(listenerFrames: number | undefined) {
    const scheduler = newScheduler();
    const stamped: string[] = [];
    const checks: { frame: number; inState: boolean }[] = [];
    const provider = fauxProvider([{ content: [fauxToolCall("slow", {}, "t1")] }, { content: "done" }], { scheduler, delay: 1 });
    const agent: Agent = agentWith({
      scheduler,
      streamFn: provider,
      initialState: { tools: [timerTool("slow", 5)] },
      beforeToolCall: ({ assistantMessage }) => {
        checks.push({ frame: scheduler.now(), inState: agent.state.messages.includes(assistantMessage) });
        return undefined;
      },
    });
    if (listenerFrames !== undefined) {
      agent.subscribe((event) => (event.type === "message_end" && (event.message as Message).role === "assistant" ? timer(listenerFrames) : undefined));
    }
    scheduler.run(({ expectObservable }) => {
      const run$ = stampedEvents(agent.prompt$("go"), scheduler, stamped);
      const marble = listenerFrames === undefined ? "4ms (xt) 1ms (r|)" : "4ms x 49ms t 4ms (r|)";
      expectObservable(
        run$.pipe(
          filter((e) => (e.type === "message_end" && (e.message as Message).role === "assistant") || e.type === "tool_execution_start" || e.type === "tool_execution_end"),
          map(label),
          // only the first turn
          take(3),
        ),
      ).toBe(marble, { x: "message_end:assistant", t: "tool_execution_start:t1", r: "tool_execution_end:t1" });
    });
    return { stamped, checks, agent };
  }

  it("A5: without a slow listener, tool preflight starts in the frame of the assistant's message_end", () => {
    const { stamped, checks } = barrierRun(undefined);
    expect(frameOf(stamped, "tool_execution_start:t1")).toBe(frameOf(stamped, "message_end:assistant"));
    expect(checks).toEqual([{ frame: 4, inState: true }]);
  });

  it("A5: a listener that returns timer(50) on the assistant message_end delays tool preflight by exactly 50 frames", () => {
    const { stamped, checks, agent } = barrierRun(50);
    const end = frameOf(stamped, "message_end:assistant");
    expect(end).toBe(4);
    expect(frameOf(stamped, "tool_execution_start:t1")).toBe(end + 50);
    // beforeToolCall runs at preflight and already sees the message in state
    expect(checks).toEqual([{ frame: 54, inState: true }]);
    expect(agent.state.isStreaming).toBe(false);
    expect(roles(agent.state.messages)).toEqual(["system", "user", "assistant", "toolResult", "assistant"]);
  });

  it("A5: listeners are awaited in registration order: two 10-frame listeners hold each event for 20 frames", () => {
    const scheduler = newScheduler();
    const log: string[] = [];
    const provider = fauxProvider([{ content: "hi" }]);
    const agent = agentWith({ scheduler, streamFn: provider });
    agent.subscribe((event) => {
      if (event.type !== "turn_end") return undefined;
      log.push(`${scheduler.now()} first begins`);
      return timer(10).pipe(map(() => log.push(`${scheduler.now()} first ends`)));
    });
    agent.subscribe((event) => {
      if (event.type !== "turn_end") return undefined;
      log.push(`${scheduler.now()} second begins`);
      return timer(10);
    });
    agent.subscribe((event) => {
      if (event.type === "agent_end") log.push(`${scheduler.now()} agent_end`);
    });
    scheduler.run(({ expectObservable }) => {
      expectObservable(agent.prompt$("go").pipe(filter((e) => e.type === "agent_end"), map((e) => e.type))).toBe("20ms (e|)", { e: "agent_end" });
    });
    expect(log).toEqual(["0 first begins", "10 first ends", "10 second begins", "20 agent_end"]);
  });

  it("A5: prompt$() completes only when the agent_end listeners finish; isStreaming stays true until then", () => {
    const scheduler = newScheduler();
    const provider = fauxProvider([{ content: "hi" }], { scheduler, delay: 1 });
    const agent = agentWith({ scheduler, streamFn: provider });
    const streaming: string[] = [];
    agent.subscribe((event) => (event.type === "agent_end" ? timer(20) : undefined));
    scheduler.run(({ expectObservable }) => {
      // agent_end at frame 4; the listener holds the run until 24
      expectObservable(agent.prompt$("go").pipe(filter((e) => e.type === "agent_end"), map(() => "e"))).toBe("4ms e 19ms |");
      scheduler.schedule(() => streaming.push(`23 ${agent.state.isStreaming}`), 23);
      scheduler.schedule(() => streaming.push(`25 ${agent.state.isStreaming}`), 25);
    });
    expect(streaming).toEqual(["23 true", "25 false"]);
  });
});
