/**
 * Steering and follow-up as streams (Q1–Q3): the run subscribes to `steering$` / `followUp$` at
 * its start, buffers what arrives, and takes from the buffer exactly where SPEC L7 polls; it
 * unsubscribes when it ends or is unsubscribed; what it received but did not take rides on
 * `agent_end`. Marble tests in virtual time.
 */
import { map, NEVER, type Observable, ReplaySubject, Subject, take, throwError } from "rxjs";
import { describe, expect, it } from "vitest";
import { agentLoop, runAgentLoop } from "../../src/loop/agent-loop.js";
import type { AgentEvent, AgentLoopConfig, AgentMessage, QueueMode, StreamFn } from "../../src/index.js";
import { fauxProvider, fauxToolCall } from "../../src/testing/index.js";
import { agentEnd, collectSync, contextWith, model, textOf, user } from "../helpers/fixtures.js";
import { newScheduler, type Stamped, timerTool } from "../helpers/marbles.js";

/** The texts of what the run committed, with the role for messages without text. */
function transcript(events: readonly AgentEvent[]): string[] {
  return agentEnd(events).messages.map((m) => textOf(m) || (m as { role: string }).role);
}

/** The frame each message was committed at. */
function committedAt(stamped: readonly Stamped[], text: string): number | undefined {
  return stamped.find((s) => s.event.type === "message_end" && textOf(s.event.message) === text)?.frame;
}

const messages = { s: user("steer"), t: user("steer 2"), f: user("follow"), g: user("follow 2") } as Record<string, AgentMessage>;

/** Runs the loop in virtual time with the queue streams the test builds; returns its events with their frames. */
function runWith(build: (helpers: { cold: (m: string) => Observable<AgentMessage>; hot: (m: string) => Observable<AgentMessage> }) => Partial<AgentLoopConfig>, script: Parameters<typeof fauxProvider>[0], tools = [timerTool("slow", 10)]): Stamped[] {
  const scheduler = newScheduler();
  const stamped: Stamped[] = [];
  scheduler.run(({ cold, hot }) => {
    const queues = build({ cold: (m) => cold(m, messages), hot: (m) => hot(m, messages) });
    const provider = fauxProvider(script, { scheduler, delay: 1 });
    agentLoop([user("go")], contextWith(tools), { model, scheduler, ...queues }, undefined, provider).subscribe((event) => stamped.push({ frame: scheduler.now(), event }));
  });
  return stamped;
}

describe("Q1: steering$ is drained at the L7 poll points", () => {
  it("Q1 L7: a steering message that arrives mid-batch lands after the whole batch, before the next request", () => {
    // request 1: frames 0–4 (tool call); tool slow: 4 → 14; steering emits at frame 8
    const stamped = runWith(({ hot }) => ({ steering$: hot("--------s") }), [{ content: [fauxToolCall("slow", {}, "a")] }, { content: "done" }]);
    const events = stamped.map((s) => s.event);
    expect(transcript(events)).toEqual(["go", "assistant", "slow", "steer", "done"]);
    const resultAt = stamped.find((s) => s.event.type === "message_end" && (s.event.message as { role: string }).role === "toolResult")!.frame;
    expect(resultAt).toBe(14);
    expect(committedAt(stamped, "steer")).toBe(14);
  });

  it("Q1 L7: a steering message that arrives while the answer streams opens the next turn (tool results first)", () => {
    const stamped = runWith(({ hot }) => ({ steering$: hot("--s") }), [{ content: [fauxToolCall("slow", {}, "a")] }, { content: "done" }]);
    expect(transcript(stamped.map((s) => s.event))).toEqual(["go", "assistant", "slow", "steer", "done"]);
    expect(committedAt(stamped, "steer")).toBe(14);
  });

  it("Q1 L7: steering that arrives while a text answer streams keeps the run going for one more turn", () => {
    const stamped = runWith(({ hot }) => ({ steering$: hot("--s") }), [{ content: "first" }, { content: "second" }], []);
    expect(transcript(stamped.map((s) => s.event))).toEqual(["go", "first", "steer", "second"]);
  });

  it("Q1 L7: steering already in a ReplaySubject when the run starts is taken at run start", () => {
    const queued = new ReplaySubject<AgentMessage>();
    queued.next(messages.s!);
    const stamped = runWith(() => ({ steering$: queued }), [{ content: "ok" }], []);
    expect(transcript(stamped.map((s) => s.event))).toEqual(["go", "steer", "ok"]);
  });

  for (const [mode, expected] of [
    ["one-at-a-time", ["go", "first", "steer", "second", "steer 2", "third"]],
    ["all", ["go", "first", "steer", "steer 2", "second"]],
  ] as [QueueMode, string[]][]) {
    it(`Q1 L7: two steering messages in one burst, ${mode}`, () => {
      const stamped = runWith(({ hot }) => ({ steering$: hot("--(st)"), steeringMode: mode }), [{ content: "first" }, { content: "second" }, { content: "third" }], []);
      expect(transcript(stamped.map((s) => s.event))).toEqual(expected);
    });
  }
});

describe("Q1: followUp$ waits for the natural stop", () => {
  it("Q1 L7: a follow-up that arrives mid-batch waits until the run would stop", () => {
    const stamped = runWith(({ hot }) => ({ followUp$: hot("------f") }), [{ content: [fauxToolCall("slow", {}, "a")] }, { content: "done" }, { content: "after follow-up" }]);
    expect(transcript(stamped.map((s) => s.event))).toEqual(["go", "assistant", "slow", "done", "follow", "after follow-up"]);
  });

  it("Q1 L7: steering wins over follow-up at the same poll", () => {
    const stamped = runWith(({ hot }) => ({ followUp$: hot("--f"), steering$: hot("--s") }), [{ content: "first" }, { content: "second" }, { content: "third" }], []);
    expect(transcript(stamped.map((s) => s.event))).toEqual(["go", "first", "steer", "second", "follow", "third"]);
  });

  for (const [mode, expected] of [
    ["one-at-a-time", ["go", "first", "follow", "second", "follow 2", "third"]],
    ["all", ["go", "first", "follow", "follow 2", "second"]],
  ] as [QueueMode, string[]][]) {
    it(`Q1 L7: two follow-ups in one burst, ${mode}`, () => {
      const stamped = runWith(({ hot }) => ({ followUp$: hot("--(fg)"), followUpMode: mode }), [{ content: "first" }, { content: "second" }, { content: "third" }], []);
      expect(transcript(stamped.map((s) => s.event))).toEqual(expected);
    });
  }
});

describe("Q2: the run owns its subscriptions to the streams", () => {
  it("Q2: subscribed at the run's start, unsubscribed when the run ends (with agent_end, before its listeners)", () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectSubscriptions }) => {
      const steering$ = hot<AgentMessage>("------");
      const followUp$ = hot<AgentMessage>("------");
      // One event per frame: start 0, text 1–3, done 4, so agent_end at frame 4.
      const provider = fauxProvider([{ content: "hi" }], { scheduler, delay: 1 });
      agentLoop([user("go")], { messages: [] }, { model, scheduler, steering$, followUp$ }, undefined, provider).subscribe();
      expectSubscriptions(steering$.subscriptions).toBe("^---!");
      expectSubscriptions(followUp$.subscriptions).toBe("^---!");
    });
  });

  it("Q2: the streams are let go at agent_end, not when the run's Observable completes", () => {
    const scheduler = newScheduler();
    let completedAt = -1;
    scheduler.run(({ hot, cold, expectSubscriptions }) => {
      const steering$ = hot<AgentMessage>("--------");
      const provider = fauxProvider([{ content: "hi" }], { scheduler, delay: 1 });
      // A listener that holds agent_end for 3 frames: the run completes at frame 7.
      const emit = (event: AgentEvent) => (event.type === "agent_end" ? cold("---|") : undefined);
      runAgentLoop({ prompts: [user("go")], context: { messages: [] }, config: { model, scheduler, steering$ }, streamFn: provider, emit }).subscribe({ complete: () => (completedAt = scheduler.now()) });
      expectSubscriptions(steering$.subscriptions).toBe("^---!");
    });
    expect(completedAt).toBe(7);
  });

  it("Q2 L10: unsubscribing the run unsubscribes the streams", () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectSubscriptions }) => {
      const steering$ = hot<AgentMessage>("-----------");
      const provider = fauxProvider([{ content: "a long answer that streams for a while" }], { scheduler, delay: 1, chunkSize: 1 });
      const run$ = agentLoop([user("go")], { messages: [] }, { model, scheduler, steering$ }, undefined, provider);
      scheduler.schedule(() => subscription.unsubscribe(), 5);
      const subscription = run$.subscribe();
      expectSubscriptions(steering$.subscriptions).toBe("^----!");
    });
  });

  it("Q2 A6: a stream that errors fails the run at the next poll, with a normalized ending", () => {
    const events = collectSync(agentLoop([user("go")], { messages: [] }, { model, steering$: throwError(() => new Error("input broke")) }, undefined, fauxProvider([{ content: "hi" }])));
    const end = agentEnd(events);
    const last = end.messages.at(-1) as { stopReason?: string; errorMessage?: string };
    expect(last).toMatchObject({ stopReason: "error", errorMessage: "input broke" });
    expect(events.filter((e) => e.type === "agent_end")).toHaveLength(1);
  });

  it("Q2: a stream that completes just stops adding messages", () => {
    const source = new Subject<AgentMessage>();
    const events: AgentEvent[] = [];
    const provider = fauxProvider([{ content: "first" }, { content: "second" }]);
    // The provider's first request sends a message and completes the stream: taken at the next poll.
    const streamFn: StreamFn = (m, c, o) => {
      if (provider.requests.length === 0) {
        source.next(user("late"));
        source.complete();
      }
      return provider(m, c, o);
    };
    agentLoop([user("go")], { messages: [] }, { model, steering$: source }, undefined, streamFn).subscribe((e) => events.push(e));
    expect(transcript(events)).toEqual(["go", "first", "late", "second"]);
  });

  it("Q1: giving a queue both ways is refused at call time", () => {
    expect(() => agentLoop([user("go")], { messages: [] }, { model, steering$: NEVER, getSteeringMessages: () => [] }, undefined, fauxProvider([]))).toThrow(
      "Give getSteeringMessages or steering$, not both",
    );
    expect(() => agentLoop([user("go")], { messages: [] }, { model, followUp$: NEVER, getFollowUpMessages: () => [] }, undefined, fauxProvider([]))).toThrow(
      "Give getFollowUpMessages or followUp$, not both",
    );
    expect(() => agentLoop([user("go")], { messages: [] }, { model, steering$: [] as never }, undefined, fauxProvider([]))).toThrow("steering$ must be an Observable");
  });
});

describe("Q3: nothing the run received is lost", () => {
  it("Q3 L6: a run that ends on an error answer hands back the steering it had not taken, on agent_end", () => {
    const scheduler = newScheduler();
    const events: AgentEvent[] = [];
    scheduler.run(({ hot }) => {
      const steering$ = hot<AgentMessage>("--s", messages);
      const provider = fauxProvider([{ content: "partial", stopReason: "error", errorMessage: "overloaded" }], { scheduler, delay: 1 });
      agentLoop([user("go")], { messages: [] }, { model, scheduler, steering$ }, undefined, provider).subscribe((e) => events.push(e));
    });
    const end = agentEnd(events);
    expect(end.untaken).toEqual({ steering: [messages.s], followUp: [] });
    expect(end.messages.map(textOf)).not.toContain("steer");
  });

  it("Q3 L6: finishTurn ending the run hands back follow-up that arrived", () => {
    const scheduler = newScheduler();
    const events: AgentEvent[] = [];
    scheduler.run(({ hot }) => {
      const followUp$ = hot<AgentMessage>("-f", messages);
      const provider = fauxProvider([{ content: "done" }], { scheduler, delay: 1 });
      agentLoop([user("go")], { messages: [] }, { model, scheduler, followUp$, finishTurn: () => ({ action: "end" }) }, undefined, provider).subscribe((e) => events.push(e));
    });
    expect(agentEnd(events).untaken).toEqual({ steering: [], followUp: [messages.f] });
  });

  it("Q3 A10 L15: a run aborted while the answer streams hands back the steering and follow-up it had received, on agent_end", () => {
    const scheduler = newScheduler();
    const events: AgentEvent[] = [];
    const controller = new AbortController();
    scheduler.run(({ hot }) => {
      const steering$ = hot<AgentMessage>("-s", messages);
      const followUp$ = hot<AgentMessage>("--f", messages);
      scheduler.schedule(() => controller.abort(), 3);
      const provider = fauxProvider([{ content: "a long answer that streams for a while" }], { scheduler, delay: 1 });
      agentLoop([user("go")], { messages: [] }, { model, scheduler, steering$, followUp$ }, controller.signal, provider).subscribe((e) => events.push(e));
    });
    const end = agentEnd(events);
    expect(end.outcome).toBe("aborted");
    expect(end.untaken).toEqual({ steering: [messages.s], followUp: [messages.f] });
    expect(end.messages.map(textOf)).not.toContain("follow");
  });

  it("Q3: a run that took everything has no untaken field (pi's agent_end shape)", () => {
    const events = collectSync(agentLoop([user("go")], { messages: [] }, { model, steering$: NEVER }, undefined, fauxProvider([{ content: "ok" }])));
    expect(agentEnd(events)).not.toHaveProperty("untaken");
  });

  it("Q3 L12: every message of a long stream is taken exactly once, in order", () => {
    const source = new Subject<AgentMessage>();
    const sent = Array.from({ length: 20 }, (_, i) => user(`m${i}`));
    const replies = Array.from({ length: 21 }, (_, i) => ({ content: `r${i}` }));
    const provider = fauxProvider(replies);
    let i = 0;
    const streamFn: StreamFn = (m, c, o) => {
      if (i < sent.length) source.next(sent[i++]!);
      return provider(m, c, o);
    };
    const events = collectSync(agentLoop([user("go")], { messages: [] }, { model, followUp$: source, followUpMode: "one-at-a-time" }, undefined, streamFn));
    const users = agentEnd(events).messages.filter((m) => (m as { role: string }).role === "user").map(textOf);
    expect(users).toEqual(["go", ...sent.map(textOf)]);
  });
});

describe("Q1: routing any stream into steering is an operator away", () => {
  it("Q1: a burst of typing routed in with operators (take, map) lands as one steering batch in all mode", () => {
    const scheduler = newScheduler();
    const events: AgentEvent[] = [];
    scheduler.run(({ hot }) => {
      const typing = hot("-abc", { a: "h", b: "he", c: "hel" }).pipe(
        take(3),
        map((text) => user(text)),
      );
      const provider = fauxProvider([{ content: "first" }, { content: "second" }, { content: "third" }, { content: "fourth" }], { scheduler, delay: 2 });
      agentLoop([user("go")], { messages: [] }, { model, scheduler, steering$: typing, steeringMode: "all" }, undefined, provider).subscribe((e) => events.push(e));
    });
    expect(transcript(events)).toEqual(["go", "first", "h", "he", "hel", "second"]);
  });
});
