/**
 * Random sessions in virtual time (SPEC L7, L10, A2, A4, A5): replies with tool batches of
 * random durations, steering and follow-up messages sent at random frames in random modes,
 * slow listeners, sometimes an abort (`abort()` or unsubscribing from `prompt$()`). Whatever
 * happens, the invariants hold:
 *
 * - the agent ends idle, and its transcript is exactly what the events committed;
 * - every queued message is either in the transcript once or still queued (nothing lost or doubled),
 *   and each queue keeps its sending order;
 * - no user message lands inside a tool batch, and every tool call has exactly one result;
 * - a follow-up is taken only at a natural stop (after an assistant message without tool calls).
 */
import fc from "fast-check";
import { map, timer } from "rxjs";
import { describe, expect, it } from "vitest";
import type { AgentEvent, AgentMessage, AssistantMessage, Message, ToolCall } from "../../src/index.js";
import { fauxProvider, fauxToolCall, type FauxScriptEntry } from "../../src/testing/index.js";
import { agentWith, newScheduler, textOf, textResult, tool } from "./support.js";

interface Scenario {
  replies: number[][]; // each reply: durations of its tool calls ([] = a text reply)
  actions: { frame: number; kind: "steer" | "followUp" }[];
  steeringMode: "all" | "one-at-a-time";
  followUpMode: "all" | "one-at-a-time";
  listenerDelay: number; // frames a listener holds each message_end (0 = none)
  abortAt: number | undefined;
  /** `agent.abort()`, or unsubscribing from `prompt$()` (SPEC A7: that aborts the run too). */
  abortBy: "abort" | "unsubscribe";
}

const scenario: fc.Arbitrary<Scenario> = fc.record({
  replies: fc.array(fc.array(fc.integer({ min: 0, max: 15 }), { maxLength: 3 }), { maxLength: 5 }),
  actions: fc.array(fc.record({ frame: fc.integer({ min: 0, max: 120 }), kind: fc.constantFrom("steer" as const, "followUp" as const) }), { maxLength: 6 }),
  steeringMode: fc.constantFrom("all" as const, "one-at-a-time" as const),
  followUpMode: fc.constantFrom("all" as const, "one-at-a-time" as const),
  listenerDelay: fc.constantFrom(0, 0, 1, 3),
  abortAt: fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined }),
  abortBy: fc.constantFrom("abort" as const, "unsubscribe" as const),
});

const role = (m: AgentMessage | undefined): string | undefined => (m as Message | undefined)?.role;
const callsOf = (m: AgentMessage): ToolCall[] =>
  role(m) === "assistant" && !["error", "aborted"].includes((m as AssistantMessage).stopReason)
    ? (m as AssistantMessage).content.filter((b): b is ToolCall => b.type === "toolCall")
    : [];

function runScenario(sc: Scenario): void {
  const scheduler = newScheduler();
  const work = tool("work", (_id, params: { frames: number }) => timer(params.frames).pipe(map(() => textResult(`worked ${params.frames}`))));
  const script: FauxScriptEntry[] = sc.replies.map((durations, i) =>
    durations.length === 0 ? { content: `text ${i}` } : { content: durations.map((frames, j) => fauxToolCall("work", { frames }, `c${i}_${j}`)) },
  );
  // enough plain answers for every queued message afterwards
  for (let i = 0; i < 20; i++) script.push({ content: `answer ${i}` });
  const provider = fauxProvider(script, { scheduler, delay: 1 });
  const agent = agentWith({
    scheduler,
    streamFn: provider,
    steeringMode: sc.steeringMode,
    followUpMode: sc.followUpMode,
    initialState: { tools: [work] },
  });
  const events: AgentEvent[] = [];
  const endFrames = new Map<AgentMessage, number>();
  agent.subscribe((event) => {
    events.push(event);
    if (event.type === "message_end") endFrames.set(event.message, scheduler.now());
    return sc.listenerDelay > 0 && event.type === "message_end" ? timer(sc.listenerDelay) : undefined;
  });
  const sent = { steer: [] as string[], followUp: [] as string[] };
  let completed = false;
  scheduler.run(() => {
    sc.actions.forEach((action, i) => {
      const text = `${action.kind} ${i}`;
      scheduler.schedule(() => {
        sent[action.kind].push(text);
        if (action.kind === "steer") agent.steer(text);
        else agent.followUp(text);
      }, action.frame);
    });
    const subscription = agent.prompt$("go").subscribe({ complete: () => (completed = true) });
    if (sc.abortAt !== undefined) scheduler.schedule(() => (sc.abortBy === "abort" ? agent.abort() : subscription.unsubscribe()), sc.abortAt);
  });

  // idle, and the transcript is what the events committed
  expect(completed || (sc.abortBy === "unsubscribe" && sc.abortAt !== undefined)).toBe(true);
  expect(agent.state.isStreaming).toBe(false);
  expect(agent.state.pendingToolCalls.size).toBe(0);
  const messages = agent.state.messages;
  const committed = events.flatMap((e) => (e.type === "message_end" ? [e.message] : []));
  expect(messages.slice(1)).toEqual(committed);
  expect(events.filter((e) => e.type === "agent_end")).toHaveLength(1);

  // conservation: each queued message is in the transcript once, or still queued
  agent.steeringMode = "all";
  agent.followUpMode = "all";
  // peek shows steering, or follow-up when no steering is queued
  const stillSteering = agent.peekQueuedMessages().map(textOf).filter((t) => t.startsWith("steer "));
  agent.clearSteeringQueue();
  const stillFollowUp = agent.peekQueuedMessages().map(textOf);
  const texts = messages.filter((m) => role(m) === "user").map(textOf);
  for (const kind of ["steer", "followUp"] as const) {
    const still = kind === "steer" ? stillSteering : stillFollowUp;
    const taken = texts.filter((t) => t.startsWith(`${kind} `));
    expect([...taken, ...still]).toEqual(sent[kind]);
  }

  // no user message inside a batch; every call answered once, right after its message
  messages.forEach((message, index) => {
    const calls = callsOf(message);
    if (calls.length === 0) return;
    const after = messages.slice(index + 1, index + 1 + calls.length);
    expect(after.map(role)).toEqual(calls.map(() => "toolResult"));
    expect(after.map((m) => (m as { toolCallId: string }).toolCallId)).toEqual(calls.map((c) => c.id));
  });

  // a follow-up batch comes only after an assistant message that stopped without tool calls
  messages.forEach((message, index) => {
    if (!textOf(message).startsWith("followUp ")) return;
    let before = index - 1;
    while (before >= 0 && textOf(messages[before]).startsWith("followUp ")) before--;
    const previous = messages[before] as AssistantMessage;
    expect(previous.role).toBe("assistant");
    expect(previous.stopReason).toBe("stop");
  });

  const last = messages[messages.length - 1] as AssistantMessage;
  expect(last.role).toBe("assistant");
  if (sc.abortAt === undefined) {
    // without an abort, a run ends only at a natural stop
    expect(last.stopReason).toBe("stop");
  } else if (last.stopReason !== "aborted") {
    // a run that was not cut short finished its last answer before the abort came
    expect(last.stopReason).toBe("stop");
    expect(sc.abortAt).toBeGreaterThanOrEqual(endFrames.get(last)!);
  }
}

describe("L7 L10 A4 A5: random sessions in virtual time", () => {
  it("L7 L10 A4 A5: queues, tool batches, slow listeners and aborts keep the invariants", () => {
    fc.assert(fc.property(scenario, (sc) => runScenario(sc)), { numRuns: Number(process.env.AGENT_PROPERTY_RUNS ?? 300) });
  });
});

describe("A6: random sessions with a failing listener", () => {
  it("A6: a listener that throws at a random event leaves a consistent, idle agent that runs the next prompt", () => {
    const failing = fc.record({ base: scenario, failAt: fc.integer({ min: 0, max: 60 }), rejects: fc.boolean() });
    fc.assert(
      fc.property(failing, ({ base, failAt, rejects }) => {
        const scheduler = newScheduler();
        const work = tool("work", (_id, params: { frames: number }) => timer(params.frames).pipe(map(() => textResult(`worked ${params.frames}`))));
        const script: FauxScriptEntry[] = base.replies.map((durations, i) =>
          durations.length === 0 ? { content: `text ${i}` } : { content: durations.map((frames, j) => fauxToolCall("work", { frames }, `c${i}_${j}`)) },
        );
        for (let i = 0; i < 20; i++) script.push({ content: `answer ${i}` });
        const provider = fauxProvider(script, { scheduler, delay: 1 });
        const agent = agentWith({ scheduler, streamFn: provider, steeringMode: base.steeringMode, followUpMode: base.followUpMode, initialState: { tools: [work] } });
        const events: AgentEvent[] = [];
        agent.subscribe((event) => void events.push(event));
        let count = 0;
        let fired = false;
        agent.subscribe((event) => {
          if (fired || event.type === "agent_end" || count++ !== failAt) return base.listenerDelay > 0 && event.type === "message_end" ? timer(base.listenerDelay) : undefined;
          fired = true;
          if (rejects) return timer(1).pipe(map(() => { throw new Error("listener failed"); }));
          throw new Error("listener failed");
        });
        let completed = false;
        scheduler.run(() => {
          base.actions.forEach((action, i) => scheduler.schedule(() => (action.kind === "steer" ? agent.steer(`steer ${i}`) : agent.followUp(`followUp ${i}`)), action.frame));
          agent.prompt$("go").subscribe({ complete: () => (completed = true) });
        });
        expect(completed).toBe(true);
        expect(agent.state.isStreaming).toBe(false);
        expect(agent.state.pendingToolCalls.size).toBe(0);
        const messages = agent.state.messages;
        expect(messages.slice(1)).toEqual(events.flatMap((e) => (e.type === "message_end" ? [e.message] : [])));
        expect(events.filter((e) => e.type === "agent_end")).toHaveLength(1);
        expect(events[events.length - 1]!.type).toBe("agent_end");
        const last = messages[messages.length - 1] as AssistantMessage;
        expect(last.role).toBe("assistant");
        if (fired) {
          expect(last.stopReason).toBe("error");
          expect(last.errorMessage).toBe("listener failed");
          expect(agent.state.errorMessage).toBe("listener failed");
        }
        // every tool call answered once, results right after their message
        messages.forEach((message, index) => {
          const calls = callsOf(message);
          if (calls.length === 0) return;
          const after = messages.slice(index + 1, index + 1 + calls.length);
          expect(after.map((m) => (m as { toolCallId?: string }).toolCallId)).toEqual(calls.map((c) => c.id));
        });
        // nothing doubled
        const texts = messages.filter((m) => role(m) === "user").map(textOf);
        expect(new Set(texts).size).toBe(texts.length);
        // and the agent works again (the listener does not fail any more)
        fired = true;
        agent.clearAllQueues();
        let again = false;
        scheduler.run(() => agent.prompt$("again").subscribe({ complete: () => (again = true) }));
        expect(again).toBe(true);
        expect((agent.state.messages[agent.state.messages.length - 1] as AssistantMessage).stopReason).toBe("stop");
      }),
      { numRuns: Number(process.env.AGENT_PROPERTY_RUNS ?? 300) },
    );
  });
});

