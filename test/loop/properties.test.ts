/**
 * Properties over random scripts, run in virtual time (SPEC L2, L6, L7, L10, T3, T4): random
 * turns of 0–4 tool calls with random behaviours (value, throw, isError, an Observable with
 * progress updates over frames, terminate, an unknown tool), parallel or sequential, a paced or
 * synchronous provider, steering typed at random frames, and sometimes an abort at a random
 * frame, sometimes through a waiting `emit` that holds each event for a few frames. Whatever happens:
 *
 * - every tool call of a completed assistant message gets exactly one result, in source order,
 *   before anything else is committed;
 * - start/end events are well bracketed (run, turn, message, tool execution);
 * - agent_end.messages is exactly what the run added: the message_end messages, and the growth of
 *   the transcript each request was sent.
 */
import fc from "fast-check";
import { finalize, timer } from "rxjs";
import { describe, expect, it } from "vitest";
import { agentLoop, runAgentLoop } from "../../src/loop/agent-loop.js";
import type { AgentEvent, AgentMessage, AgentTool, AssistantMessage, Message, StreamFn, ToolCall, ToolExecutionMode, ToolResultMessage } from "../../src/index.js";
import { fauxProvider, fauxToolCall, type FauxScriptEntry } from "../../src/testing/index.js";
import { truncatedToolCallText } from "../../src/tools/tool-result.js";
import { contextWith, model, textResult, tool, user } from "../helpers/fixtures.js";
import { newScheduler, progress } from "../helpers/marbles.js";

type Behaviour =
  | { kind: "value" }
  | { kind: "throw" }
  | { kind: "isError" }
  | { kind: "terminate" }
  | { kind: "unknown" }
  | { kind: "observable"; updates: number; every: number };

interface Scenario {
  turns: Behaviour[][];
  /** Turns whose message stops at the token limit (SPEC L9): their calls never run. */
  cut: boolean[];
  /** What finishTurn answers, turn by turn (SPEC L6, L8). */
  decisions: Array<"continue" | "end" | undefined>;
  mode: ToolExecutionMode;
  /** Frames between provider events; 0 is a synchronous provider. */
  pace: number;
  steerAt: number[];
  abortAt: number | undefined;
  /** When > 0, the run goes through a waiting `emit` that holds every event this many frames (SPEC L11). */
  emitWait: number;
}

const behaviour: fc.Arbitrary<Behaviour> = fc.oneof(
  fc.constant({ kind: "value" as const }),
  fc.constant({ kind: "throw" as const }),
  fc.constant({ kind: "isError" as const }),
  fc.constant({ kind: "terminate" as const }),
  fc.constant({ kind: "unknown" as const }),
  fc.record({ kind: fc.constant("observable" as const), updates: fc.integer({ min: 0, max: 3 }), every: fc.integer({ min: 1, max: 6 }) }),
);

const scenario: fc.Arbitrary<Scenario> = fc.record({
  turns: fc.array(fc.array(behaviour, { maxLength: 4 }), { minLength: 1, maxLength: 5 }),
  cut: fc.array(fc.integer({ min: 0, max: 3 }).map((n) => n === 0), { maxLength: 5 }),
  decisions: fc.array(fc.constantFrom<"continue" | "end" | undefined>(undefined, undefined, undefined, "continue", "end"), { maxLength: 8 }),
  mode: fc.constantFrom<ToolExecutionMode>("parallel", "sequential"),
  pace: fc.constantFrom(0, 1, 2),
  steerAt: fc.array(fc.integer({ min: 0, max: 60 }), { maxLength: 3 }),
  abortAt: fc.option(fc.integer({ min: 0, max: 60 }), { nil: undefined }),
  emitWait: fc.constantFrom(0, 0, 1, 2),
});

interface Outcome {
  events: AgentEvent[];
  /** For each request: the messages it was sent, and how many messages the run had committed by then. */
  requests: Array<{ messages: Message[]; committed: number }>;
  initial: AgentMessage[];
  subscribed: number;
  finalized: number;
  completed: boolean;
}

function play(s: Scenario): Outcome {
  const scheduler = newScheduler();
  const events: AgentEvent[] = [];
  const requests: Outcome["requests"] = [];
  let committed = 0;
  let subscribed = 0;
  let finalized = 0;
  let completed = false;
  const t: AgentTool = tool("t", (id, params) => {
    const b = params as Behaviour;
    switch (b.kind) {
      case "throw":
        throw new Error(`failed ${id}`);
      case "isError":
        return textResult(`error ${id}`, { isError: true });
      case "terminate":
        return textResult(`terminate ${id}`, { terminate: true });
      case "observable":
        subscribed++;
        // one-shot timers, not timer(d, p): see progress() in test/helpers/marbles.ts
        return progress(b.updates, b.every, (i) => textResult(i < b.updates ? `update ${i}` : `done ${id}`)).pipe(finalize(() => finalized++));
      default:
        return textResult(`value ${id}`);
    }
  });
  const context = contextWith([t], [user("earlier")]);
  const script: FauxScriptEntry[] = s.turns.map((calls, turn) =>
    calls.length === 0
      ? { content: `answer ${turn}` }
      : { content: calls.map((b, i) => fauxToolCall(b.kind === "unknown" ? "missing" : "t", { ...b }, `c${turn}_${i}`)), stopReason: s.cut[turn] ? "length" : "toolUse" },
  );
  script.push({ content: "final" });
  scheduler.run(({ cold }) => {
    const faux = fauxProvider(script, s.pace > 0 ? { scheduler, delay: s.pace } : {});
    const streamFn: StreamFn = (m, c, o) => {
      requests.push({ messages: c.messages.slice(), committed });
      return faux(m, c, o);
    };
    const steering: AgentMessage[] = [];
    for (const frame of s.steerAt) cold(`${frame}ms s`).subscribe(() => steering.push(user(`steer@${frame}`)));
    const controller = new AbortController();
    if (s.abortAt !== undefined) cold(`${s.abortAt}ms a`).subscribe(() => controller.abort());
    let turn = 0;
    const finishTurn = () => {
      const decision = s.decisions[turn++];
      return decision ? { action: decision } : undefined;
    };
    const config = { model, scheduler, toolExecution: s.mode, getSteeringMessages: () => steering.splice(0), finishTurn };
    const run$ =
      s.emitWait > 0
        ? runAgentLoop({ prompts: [user("go")], context, config, signal: controller.signal, streamFn, emit: () => timer(s.emitWait) })
        : agentLoop([user("go")], context, config, controller.signal, streamFn);
    run$.subscribe({
      next: (e) => {
        events.push(e);
        if (e.type === "message_end") committed++;
      },
      complete: () => (completed = true),
    });
  });
  return { events, requests, initial: context.messages, subscribed, finalized, completed };
}

const role = (m: AgentMessage) => (m as { role: string }).role;
const callsOf = (m: AssistantMessage) => m.content.filter((b): b is ToolCall => b.type === "toolCall");

function checkBrackets(events: readonly AgentEvent[]): void {
  expect(events[0]?.type).toBe("agent_start");
  expect(events.at(-1)?.type).toBe("agent_end");
  expect(events.filter((e) => e.type === "agent_start" || e.type === "agent_end")).toHaveLength(2);
  let turnOpen = false;
  let open: AgentMessage | undefined;
  const tools = new Map<string, "running" | "ended">();
  for (const e of events) {
    switch (e.type) {
      case "turn_start":
        expect(turnOpen).toBe(false);
        turnOpen = true;
        break;
      case "turn_end":
        expect(turnOpen).toBe(true);
        expect(open).toBeUndefined();
        expect([...tools.values()].every((state) => state === "ended")).toBe(true);
        turnOpen = false;
        break;
      case "message_start":
        expect(turnOpen).toBe(true);
        expect(open).toBeUndefined();
        open = e.message;
        break;
      case "message_update":
        expect(open).toBeDefined();
        expect(role(open!)).toBe("assistant");
        open = e.message;
        break;
      case "message_end":
        expect(open).toBeDefined();
        expect(role(e.message)).toBe(role(open!));
        open = undefined;
        break;
      case "tool_execution_start":
        expect(turnOpen).toBe(true);
        expect(tools.has(e.toolCallId)).toBe(false);
        tools.set(e.toolCallId, "running");
        break;
      case "tool_execution_update":
        expect(tools.get(e.toolCallId)).toBe("running");
        break;
      case "tool_execution_end":
        expect(tools.get(e.toolCallId)).toBe("running");
        tools.set(e.toolCallId, "ended");
        break;
      case "agent_end":
        expect(turnOpen).toBe(false);
        break;
    }
  }
}

function checkResults(messages: readonly AgentMessage[], events: readonly AgentEvent[]): void {
  let waiting: ToolCall[] = [];
  messages.forEach((m, index) => {
    if (waiting.length > 0) {
      // nothing but the next result in source order may come before the batch is complete
      expect(role(m)).toBe("toolResult");
      const result = m as ToolResultMessage;
      expect(result.toolCallId).toBe(waiting[0]!.id);
      expect(result.toolName).toBe(waiting[0]!.name);
      waiting = waiting.slice(1);
      return;
    }
    expect(role(m)).not.toBe("toolResult");
    if (role(m) !== "assistant") return;
    const assistant = m as AssistantMessage;
    if (assistant.stopReason === "error" || assistant.stopReason === "aborted") {
      // a hard exit: its calls never run, and the run ends with it
      expect(index).toBe(messages.length - 1);
      return;
    }
    waiting = callsOf(assistant);
  });
  expect(waiting).toEqual([]);
  // one tool_execution_end per result, and each end agrees with its result message
  const ends = new Map(events.flatMap((e) => (e.type === "tool_execution_end" ? [[e.toolCallId, e] as const] : [])));
  const results = messages.filter((m): m is ToolResultMessage => role(m) === "toolResult");
  expect(ends.size).toBe(results.length);
  for (const r of results) expect(ends.get(r.toolCallId)?.isError).toBe(r.isError);
}

function checkBehaviours(messages: readonly AgentMessage[], events: readonly AgentEvent[]): void {
  const calls = new Map<string, Behaviour>();
  const cut = new Set<string>();
  for (const m of messages) {
    if (role(m) !== "assistant") continue;
    for (const c of callsOf(m as AssistantMessage)) {
      calls.set(c.id, c.arguments as Behaviour);
      if ((m as AssistantMessage).stopReason === "length") cut.add(c.id);
    }
  }
  for (const m of messages) {
    if (role(m) !== "toolResult") continue;
    const r = m as ToolResultMessage;
    const b = calls.get(r.toolCallId)!;
    const text = (r.content[0] as { text?: string } | undefined)?.text;
    if (cut.has(r.toolCallId)) {
      expect([r.isError, text]).toEqual([true, truncatedToolCallText(r.toolName)]);
      expect(events.some((e) => e.type === "tool_execution_update" && e.toolCallId === r.toolCallId)).toBe(false);
      continue;
    }
    if (text === "Operation aborted") continue;
    const expected: Record<Behaviour["kind"], [boolean, string]> = {
      value: [false, `value ${r.toolCallId}`],
      throw: [true, `failed ${r.toolCallId}`],
      isError: [true, `error ${r.toolCallId}`],
      terminate: [false, `terminate ${r.toolCallId}`],
      unknown: [true, 'Tool "missing" not found. Available tools: t.'],
      observable: [false, `done ${r.toolCallId}`],
    };
    expect([r.isError, text]).toEqual(expected[b.kind]);
    if (b.kind === "observable") {
      const updates = events.filter((e) => e.type === "tool_execution_update" && e.toolCallId === r.toolCallId);
      expect(updates).toHaveLength(b.updates);
    }
  }
}

describe("properties of random runs in virtual time", () => {
  it("L2 L6 L8 L9 L10 L11 T3 T4: one result per tool call in source order, brackets hold, agent_end is exactly what the run added", () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const outcome = play(s);
        expect(outcome.completed).toBe(true);
        const { events } = outcome;
        checkBrackets(events);
        const end = events.at(-1) as Extract<AgentEvent, { type: "agent_end" }>;
        const committed = events.flatMap((e) => (e.type === "message_end" ? [e.message] : []));
        // agent_end.messages is exactly the committed messages, the same objects, in order
        expect(end.messages).toHaveLength(committed.length);
        end.messages.forEach((m, i) => expect(m).toBe(committed[i]));
        checkResults(end.messages, events);
        checkBehaviours(end.messages, events);
        // the transcript each request saw grew by exactly the messages committed before it
        for (const request of outcome.requests) {
          expect(request.messages).toEqual([...outcome.initial, ...end.messages.slice(0, request.committed)]);
        }
        // every Observable tool that was subscribed was torn down
        expect(outcome.finalized).toBe(outcome.subscribed);
        return true;
      }),
      { numRuns: 300 },
    );
  });

  it("L10: a hard cancel at a random frame emits nothing afterwards and tears down every Observable tool", () => {
    fc.assert(
      fc.property(scenario, fc.integer({ min: 0, max: 40 }), (s, cancelAt) => {
        const scheduler = newScheduler();
        let subscribed = 0;
        let finalized = 0;
        const late: AgentEvent[] = [];
        scheduler.run(({ cold }) => {
          const t = tool("t", (id, params) => {
            const b = params as Behaviour;
            if (b.kind !== "observable") return textResult(`value ${id}`);
            subscribed++;
            return progress(b.updates, b.every, () => textResult("x")).pipe(finalize(() => finalized++));
          });
          const script: FauxScriptEntry[] = s.turns.map((calls, turn) => ({ content: calls.length ? calls.map((b, i) => fauxToolCall("t", { ...b }, `c${turn}_${i}`)) : "answer" }));
          const provider = fauxProvider(script, s.pace > 0 ? { scheduler, delay: s.pace } : {});
          let cancelled = false;
          const config = { model, scheduler, toolExecution: s.mode };
          // with a waiting emit, the emit sees each event first: it must not see any after the cancel either
          const run$ =
            s.emitWait > 0
              ? runAgentLoop({ prompts: [user("go")], context: contextWith([t]), config, streamFn: provider, emit: (e) => (cancelled && late.push(e), timer(s.emitWait)) })
              : agentLoop([user("go")], contextWith([t]), config, undefined, provider);
          const subscription = run$.subscribe((e) => {
            if (cancelled) late.push(e);
          });
          cold(`${cancelAt}ms c`).subscribe(() => {
            cancelled = true;
            subscription.unsubscribe();
          });
        });
        expect(late).toEqual([]);
        expect(finalized).toBe(subscribed);
        return true;
      }),
      { numRuns: 300 },
    );
  });
});
