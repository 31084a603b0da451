/**
 * The Agent's queues (SPEC L7) and its listener barrier (SPEC A5, L11) in virtual time: every
 * scenario runs in rxjs-marbles' context (`marbles((m) => …)`, TestScheduler run mode: frame 1 =
 * 1 ms), with `m.scheduler` as the Agent's `scheduler` and the scripted provider's. Runs go
 * through `agent.prompt$()`, so no promise is involved; user actions are scheduled at frames.
 * What a test checks after the run (the provider's requests, the Agent's state) it checks after
 * `m.flush()` has run the virtual time out.
 *
 * Frame arithmetic of the scripted provider (delay 1): `start` at the request's frame, one
 * event per frame after it. A reply of three argument-less tool calls is 11 events (frames
 * +0..+10); a short text reply is 5 events (+0..+4).
 */
import { filter, map, type Observable, take, timer } from "rxjs";
import type { TestScheduler } from "rxjs/testing";
import { describe, expect, it } from "vitest";
import type { Agent } from "../../src/agent/agent.js";
import type { AgentEvent, Message } from "../../src/index.js";
import { fauxProvider, fauxToolCall, type FauxScriptEntry } from "../../src/testing/index.js";
import { marbles } from "../helpers/rxjs-marbles.js";
import { agentWith, frameOf, indexOf, label, roles, stampedEvents, timerTool, userTexts } from "./support.js";

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

function threeToolAgent(scheduler: TestScheduler, script: FauxScriptEntry[], options: Parameters<typeof agentWith>[0] = {}) {
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
  it(
    "L7: steering sent during a three-tool batch arrives after the batch, before the next request",
    marbles((m) => {
      const stamped: string[] = [];
      const { agent, provider } = threeToolAgent(m.scheduler, [threeCalls, { content: "after" }]);
      // request 1: frames 0..10; tools end at 20 (fast), 30 (medium), 40 (slow)
      m.scheduler.schedule(() => agent.steer("stop that"), 15);
      const run$ = stampedEvents(agent.prompt$("go"), m.scheduler, stamped);
      m.expect(milestones(run$)).toBeObservable("g 9ms x 9ms b 9ms c 9ms (as)(ze|)", {
        g: "message_end:user:go",
        x: "message_end:assistant",
        b: "tool_execution_end:b",
        c: "tool_execution_end:c",
        a: "tool_execution_end:a",
        s: "message_end:user:stop that",
        z: "message_end:assistant",
        e: "agent_end",
      });
      m.flush();
      // the steering message comes after every tool result of the batch and the batch's turn_end
      const steering = indexOf(stamped, "message_start:user:stop that");
      expect(indexOf(stamped, "message_end:toolResult:c")).toBeLessThan(steering);
      expect(indexOf(stamped, "turn_end")).toBeLessThan(steering);
      expect(frameOf(stamped, "message_start:user:stop that")).toBe(40);
      expect(provider.requests).toHaveLength(2);
      expect(roles(provider.requests[1]!.messages)).toEqual(["system", "user", "assistant", "toolResult", "toolResult", "toolResult", "user"]);
      expect(userTexts(provider.requests[1]!.messages)).toEqual(["go", "stop that"]);
      expect(agent.state.isStreaming).toBe(false);
    }),
  );

  it(
    "L7: `one-at-a-time` spreads three steering messages over three requests",
    marbles((m) => {
      const { agent, provider } = threeToolAgent(m.scheduler, [threeCalls, { content: "r2" }, { content: "r3" }, { content: "r4" }]);
      m.scheduler.schedule(() => {
        agent.steer("s1");
        agent.steer("s2");
        agent.steer("s3");
      }, 15);
      // batch ends at 40; each text reply takes 5 frames (+0..+4)
      m.expect(milestones(agent.prompt$("go")).pipe(filter((l) => l.startsWith("message_end") || l === "agent_end"))).toBeObservable(
        "g 9ms x 29ms 1 3ms (r2)(r3)(re|)",
        { g: "message_end:user:go", x: "message_end:assistant", 1: "message_end:user:s1", 2: "message_end:user:s2", 3: "message_end:user:s3", r: "message_end:assistant", e: "agent_end" },
      );
      m.flush();
      expect(provider.requests.map((r) => userTexts(r.messages))).toEqual([["go"], ["go", "s1"], ["go", "s1", "s2"], ["go", "s1", "s2", "s3"]]);
      expect(agent.hasQueuedMessages()).toBe(false);
    }),
  );

  it(
    "L7: `all` sends the three steering messages together in one request",
    marbles((m) => {
      // 17 characters: three deltas, so the reply's message_end is at +6
      const { agent, provider } = threeToolAgent(m.scheduler, [threeCalls, { content: "all three at once" }], { steeringMode: "all" });
      m.scheduler.schedule(() => {
        agent.steer("s1");
        agent.steer("s2");
        agent.steer("s3");
      }, 15);
      m.expect(milestones(agent.prompt$("go")).pipe(filter((l) => l.startsWith("message_end") || l === "agent_end"))).toBeObservable(
        "g 9ms x 29ms (123)-(re|)",
        { g: "message_end:user:go", x: "message_end:assistant", 1: "message_end:user:s1", 2: "message_end:user:s2", 3: "message_end:user:s3", r: "message_end:assistant", e: "agent_end" },
      );
      m.flush();
      expect(provider.requests.map((r) => userTexts(r.messages))).toEqual([["go"], ["go", "s1", "s2", "s3"]]);
    }),
  );

  it(
    "L7: a follow-up sent during a run starts a new turn only after the natural stop",
    marbles((m) => {
      const stamped: string[] = [];
      const { agent, provider } = threeToolAgent(m.scheduler, [threeCalls, { content: "r2" }, { content: "r3" }]);
      // sent while the first reply streams; tool results (frame 40) do not take it
      m.scheduler.schedule(() => agent.followUp("and then?"), 2);
      const run$ = stampedEvents(agent.prompt$("go"), m.scheduler, stamped);
      m.expect(milestones(run$).pipe(filter((l) => l.startsWith("message_end") || l === "agent_end"))).toBeObservable("g 9ms x 29ms 4ms (rf)(re|)", {
        g: "message_end:user:go",
        x: "message_end:assistant",
        r: "message_end:assistant",
        f: "message_end:user:and then?",
        e: "agent_end",
      });
      m.flush();
      expect(provider.requests.map((r) => userTexts(r.messages))).toEqual([["go"], ["go"], ["go", "and then?"]]);
      // the natural stop: r2's turn ends, then a new turn starts with the follow-up
      const followUp = indexOf(stamped, "message_start:user:and then?");
      expect(stamped.slice(followUp - 3, followUp + 1).map((l) => l.slice(l.indexOf(" ") + 1))).toEqual(["message_end:assistant", "turn_end", "turn_start", "message_start:user:and then?"]);
      expect(frameOf(stamped, "message_start:user:and then?")).toBe(44);
    }),
  );

  it(
    "L7: a steering and a follow-up sent together are taken in that order",
    marbles((m) => {
      const provider = fauxProvider([{ content: "r1" }, { content: "r2" }, { content: "r3" }], { scheduler: m.scheduler, delay: 1 });
      const agent = agentWith({ scheduler: m.scheduler, streamFn: provider });
      m.scheduler.schedule(() => {
        agent.followUp("follow");
        agent.steer("steer");
      }, 2);
      // r1: 0..4, then steer + r2: 4..8, then follow + r3: 8..12
      m.expect(milestones(agent.prompt$("go"))).toBeObservable("g 3ms (rs)(rf)(re|)", {
        g: "message_end:user:go",
        r: "message_end:assistant",
        s: "message_end:user:steer",
        f: "message_end:user:follow",
        e: "agent_end",
      });
      m.flush();
      expect(provider.requests.map((r) => userTexts(r.messages))).toEqual([["go"], ["go", "steer"], ["go", "steer", "follow"]]);
    }),
  );

  it(
    "L7: steering sent during the last reply is taken after it, without waiting for a follow-up poll",
    marbles((m) => {
      const provider = fauxProvider([{ content: "r1" }, { content: "r2" }], { scheduler: m.scheduler, delay: 1 });
      const agent = agentWith({ scheduler: m.scheduler, streamFn: provider });
      // a cold observable as the user: steer at frame 3
      m.cold("---s").subscribe(() => agent.steer("late steer"));
      m.expect(milestones(agent.prompt$("go"))).toBeObservable("g 3ms (rs) (re|)", {
        g: "message_end:user:go",
        r: "message_end:assistant",
        s: "message_end:user:late steer",
        e: "agent_end",
      });
      m.flush();
      expect(provider.requests).toHaveLength(2);
    }),
  );
});

describe("L7 A1 A5: modes and settings changed at run time", () => {
  it(
    "L7 A1: switching steeringMode to `all` mid-run changes how the next poll drains",
    marbles((m) => {
      const { agent, provider } = threeToolAgent(m.scheduler, [threeCalls, { content: "r2" }, { content: "r3" }]);
      m.scheduler.schedule(() => {
        agent.steer("s1");
        agent.steer("s2");
        agent.steer("s3");
      }, 15);
      // after the first poll (frame 40) took s1, switch: the next poll takes s2 and s3 together
      m.scheduler.schedule(() => (agent.steeringMode = "all"), 41);
      agent.prompt$("go").subscribe();
      m.flush();
      expect(provider.requests.map((r) => userTexts(r.messages))).toEqual([["go"], ["go", "s1"], ["go", "s1", "s2", "s3"]]);
    }),
  );

  it(
    "A1 T4: toolExecution `sequential` runs the batch one call at a time",
    marbles((m) => {
      const stamped: string[] = [];
      const { agent } = threeToolAgent(m.scheduler, [threeCalls, { content: "done" }], { toolExecution: "sequential" });
      stampedEvents(agent.prompt$("go"), m.scheduler, stamped).subscribe();
      m.flush();
      // message_end at 10; slow 10→40, fast 40→50, medium 50→70
      expect(stamped.filter((l) => l.includes("tool_execution_"))).toEqual([
        "10 tool_execution_start:a",
        "40 tool_execution_end:a",
        "40 tool_execution_start:b",
        "50 tool_execution_end:b",
        "50 tool_execution_start:c",
        "70 tool_execution_end:c",
      ]);
    }),
  );

  it(
    "A5 L7: a steering message sent by a slow turn_end listener is taken by the poll after it",
    marbles((m) => {
      const stamped: string[] = [];
      const provider = fauxProvider([{ content: "r1" }, { content: "r2" }], { scheduler: m.scheduler, delay: 1 });
      const agent = agentWith({ scheduler: m.scheduler, streamFn: provider });
      let sent = false;
      agent.subscribe((event) => {
        if (event.type !== "turn_end" || sent) return undefined;
        sent = true;
        return timer(10).pipe(map(() => agent.steer("from the listener")));
      });
      stampedEvents(agent.prompt$("go"), m.scheduler, stamped).subscribe();
      m.flush();
      // r1 ends at 4; the listener holds turn_end until 14, then the poll takes the message
      expect(frameOf(stamped, "message_start:user:from the listener")).toBe(14);
      expect(provider.requests.map((r) => userTexts(r.messages))).toEqual([["go"], ["go", "from the listener"]]);
    }),
  );

  it(
    "L7: steering sent from prepareNextTurn is taken by the poll after it, in the same turn",
    marbles((m) => {
      const provider = fauxProvider([{ content: [fauxToolCall("fast", {}, "f1")] }, { content: "r2" }], { scheduler: m.scheduler, delay: 1 });
      let steered = false;
      const agent: Agent = agentWith({
        scheduler: m.scheduler,
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
      agent.prompt$("go").subscribe();
      m.flush();
      expect(provider.requests.map((r) => userTexts(r.messages))).toEqual([["go"], ["go", "from prepareNextTurn"]]);
      expect(roles(provider.requests[1]!.messages)).toEqual(["system", "user", "assistant", "toolResult", "user"]);
    }),
  );

  it(
    "L7: a follow-up sent by an agent_end listener is not taken by the ending run; it stays queued for the next",
    marbles((m) => {
      const provider = fauxProvider([{ content: "r1" }, { content: "r2" }, { content: "r3" }], { scheduler: m.scheduler, delay: 1 });
      const agent = agentWith({ scheduler: m.scheduler, streamFn: provider });
      let sent = false;
      agent.subscribe((event) => {
        if (event.type === "agent_end" && !sent) {
          sent = true;
          agent.followUp("too late");
        }
      });
      agent.prompt$("go").subscribe();
      m.flush();
      expect(provider.requests).toHaveLength(1);
      expect(agent.hasQueuedMessages()).toBe(true);
      expect(agent.peekQueuedMessages().map((message) => userTexts([message])[0])).toEqual(["too late"]);
      // the next run, on the same scheduler, from the frame the first one ended at
      agent.prompt$("next").subscribe();
      m.flush();
      // the next run takes it at its natural stop
      expect(provider.requests.map((r) => userTexts(r.messages))).toEqual([["go"], ["go", "next"], ["go", "next", "too late"]]);
      expect(agent.hasQueuedMessages()).toBe(false);
    }),
  );
});

describe("A5 L11: the listener barrier in virtual time", () => {
  /** A reply of one argument-less tool call: frames +0..+4, message_end at +4. */
  function barrierRun(listenerFrames: number | undefined) {
    const stamped: string[] = [];
    const checks: { frame: number; inState: boolean }[] = [];
    let agent!: Agent;
    marbles((m) => {
      const provider = fauxProvider([{ content: [fauxToolCall("slow", {}, "t1")] }, { content: "done" }], { scheduler: m.scheduler, delay: 1 });
      agent = agentWith({
        scheduler: m.scheduler,
        streamFn: provider,
        initialState: { tools: [timerTool("slow", 5)] },
        beforeToolCall: ({ assistantMessage }) => {
          checks.push({ frame: m.scheduler.now(), inState: agent.state.messages.includes(assistantMessage) });
          return undefined;
        },
      });
      if (listenerFrames !== undefined) {
        agent.subscribe((event) => (event.type === "message_end" && (event.message as Message).role === "assistant" ? timer(listenerFrames) : undefined));
      }
      const run$ = stampedEvents(agent.prompt$("go"), m.scheduler, stamped);
      const marble = listenerFrames === undefined ? "4ms (xt) 1ms (r|)" : "4ms x 49ms t 4ms (r|)";
      m.expect(
        run$.pipe(
          filter((e) => (e.type === "message_end" && (e.message as Message).role === "assistant") || e.type === "tool_execution_start" || e.type === "tool_execution_end"),
          map(label),
          // only the first turn
          take(3),
        ),
      ).toBeObservable(marble, { x: "message_end:assistant", t: "tool_execution_start:t1", r: "tool_execution_end:t1" });
    })();
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

  it(
    "A5: listeners are awaited in registration order: two 10-frame listeners hold each event for 20 frames",
    marbles((m) => {
      const log: string[] = [];
      const provider = fauxProvider([{ content: "hi" }]);
      const agent = agentWith({ scheduler: m.scheduler, streamFn: provider });
      agent.subscribe((event) => {
        if (event.type !== "turn_end") return undefined;
        log.push(`${m.scheduler.now()} first begins`);
        return timer(10).pipe(map(() => log.push(`${m.scheduler.now()} first ends`)));
      });
      agent.subscribe((event) => {
        if (event.type !== "turn_end") return undefined;
        log.push(`${m.scheduler.now()} second begins`);
        return timer(10);
      });
      agent.subscribe((event) => {
        if (event.type === "agent_end") log.push(`${m.scheduler.now()} agent_end`);
      });
      m.expect(agent.prompt$("go").pipe(filter((e) => e.type === "agent_end"), map((e) => e.type))).toBeObservable("20ms (e|)", { e: "agent_end" });
      m.flush();
      expect(log).toEqual(["0 first begins", "10 first ends", "10 second begins", "20 agent_end"]);
    }),
  );

  it(
    "A5: prompt$() completes only when the agent_end listeners finish; isStreaming stays true until then",
    marbles((m) => {
      const provider = fauxProvider([{ content: "hi" }], { scheduler: m.scheduler, delay: 1 });
      const agent = agentWith({ scheduler: m.scheduler, streamFn: provider });
      const streaming: string[] = [];
      agent.subscribe((event) => (event.type === "agent_end" ? timer(20) : undefined));
      // agent_end at frame 4; the listener holds the run until 24
      m.expect(agent.prompt$("go").pipe(filter((e) => e.type === "agent_end"), map(() => "e"))).toBeObservable("4ms e 19ms |");
      m.scheduler.schedule(() => streaming.push(`23 ${agent.state.isStreaming}`), 23);
      m.scheduler.schedule(() => streaming.push(`25 ${agent.state.isStreaming}`), 25);
      m.flush();
      expect(streaming).toEqual(["23 true", "25 false"]);
    }),
  );
});
