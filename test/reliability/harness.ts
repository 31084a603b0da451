/**
 * Runs a {@link Scenario} in virtual time (`TestScheduler.run`) and records everything the
 * invariants need: the events as the consumer saw them (per frame), every call into a tool,
 * the provider and the hooks, every AbortSignal handed out, and every subscription the library
 * opened on an Observable we gave it (counted on subscribe and on teardown).
 *
 * Nothing here uses a promise: tools, hooks, listeners and the provider are plain values or
 * Observables on the TestScheduler, so one scenario is one synchronous, deterministic flush.
 */
import { getEventListeners } from "node:events";
import { config as rxConfig, filter, map, mergeMap, NEVER, Observable, of, ReplaySubject, Subscriber, type Subscription, tap, throwError, timer } from "rxjs";
import { TestScheduler } from "rxjs/testing";
import { Agent } from "../../src/agent/agent.js";
import type { AgentStateSnapshot } from "../../src/agent/agent-state.js";
import { agentLoop, agentLoopContinue, runAgentLoop } from "../../src/loop/agent-loop.js";
import type {
  AgentEvent,
  AgentLoopConfig,
  AgentMessage,
  AgentTool,
  AgentToolResult,
  AssistantMessageEvent,
  Message,
  StreamFn,
  ToolApprovalDecision,
  ToolApprovalRequest,
  UserMessage,
} from "../../src/index.js";
import { fauxProvider, type FauxReply } from "../../src/testing/index.js";
import { contextWith, model } from "../helpers/fixtures.js";
import { label as eventLabel } from "../helpers/marbles.js";
import type { ArgsKind, Block, HookName, Scenario, ToolBehaviour } from "./scenario.js";

export const TOOL_SCHEMA = {
  type: "object",
  properties: { n: { type: "number" }, note: { type: "string" } },
  required: ["n"],
  additionalProperties: false,
} as const;

export const ARGS: Record<ArgsKind, Record<string, unknown>> = {
  valid: { n: 1 },
  numericString: { n: "2" },
  wrongType: { n: "abc" },
  missing: {},
  extra: { n: 1, extra: true },
  nullOptional: { n: 1, note: null },
};
/** Argument kinds the validator accepts (after coercion). */
export const VALID_ARGS = new Set<ArgsKind>(["valid", "numericString", "nullOptional"]);

export interface Stamp {
  seq: number;
  frame: number;
}

export interface Trace {
  scenario: Scenario;
  /** Every event in order, as the loop's emit / the Agent's listener saw it (loop: the subscriber). */
  events: (Stamp & { event: AgentEvent })[];
  /** What the run's subscriber (agentLoop / prompt$) received. */
  subscriberEvents: AgentEvent[];
  /** Events the listener (the waiting emit) was called with while its call for an earlier event was still running. */
  listenerReentries: AgentEvent[];
  completed: boolean;
  error: unknown;
  unhandled: unknown[];
  cancel: (Stamp & { kind: "abort" | "unsubscribe" }) | undefined;
  /** When the subscriber left before the run's Observable completed. */
  unsubscribed: Stamp | undefined;
  executes: (Stamp & { id: string })[];
  providerCalls: Stamp[];
  hookCalls: (Stamp & { hook: HookName })[];
  blocked: Set<string>;
  signals: AbortSignal[];
  /** The sequence number at which each signal was first seen. */
  signalSeqs: number[];
  /** Agent, second run: where it started (sequence number and index in `events`), what it did. */
  second?: { seq: number; index: number; error: unknown; completed: boolean; subscriberEvents: AgentEvent[]; expectError: boolean };
  opened: number;
  closed: number;
  /** Abort listeners still registered at the end on the signals handed out. */
  retainedListeners: number;
  /** Labels of subscriptions still open at the end. */
  stillOpen: string[];
  /** Messages handed to the loop by the steering / follow-up polls or delivered by its streams (loop), or queued (Agent). */
  steering: AgentMessage[];
  followUps: AgentMessage[];
  prepared: AgentMessage[];
  /** Messages still in the queues at the end. */
  leftInQueues: AgentMessage[];
  /** Loop only: the run's state at each queue poll. */
  polls: (Stamp & { kind: "steering" | "followUp"; openTools: number; openMessage: boolean; unanswered: number })[];
  initialMessages: AgentMessage[];
  /** Agent only. */
  finalState?: { messages: AgentMessage[]; isStreaming: boolean; pendingToolCalls: number; streamingMessage: unknown; errorMessage: string | undefined };
  /** Agent: what `state$` and `events$` showed, and prompts attempted during a run. */
  stateSnapshots: AgentStateSnapshot[];
  hotEvents: AgentEvent[];
  busyPrompts: { error: unknown; events: number; whileStreaming: boolean }[];
  /** Run control: the approval requests seen, and answers the Agent refused (nothing waited any more). */
  approvalRequests: (Stamp & { id: string })[];
  refusedAnswers: string[];
}

const FINAL_TURN = { blocks: [{ t: "text" as const, text: "done" }], stop: "natural" as const, fault: "none" as const };

function replyOf(turn: Scenario["turns"][number]): FauxReply {
  const content = turn.blocks.map((block) =>
    block.t === "text"
      ? { type: "text" as const, text: block.text }
      : block.t === "thinking"
        ? { type: "thinking" as const, thinking: block.text }
        : { type: "toolCall" as const, id: block.id, name: block.tool, arguments: structuredClone(ARGS[block.args]) },
  );
  const reply: FauxReply = { content };
  if (turn.stop !== "natural") reply.stopReason = turn.stop;
  if (turn.fault === "error" || turn.fault === "incomplete" || turn.fault === "hang") reply.fault = turn.fault;
  return reply;
}

/**
 * A promise-like settled by the TestScheduler: promise-returning tools and hooks, in virtual
 * time and without a microtask. `then` chains like a promise (enough for rxjs's `from`).
 */
export function virtualPromise<T>(executor: (resolve: (value: T) => void, reject: (error: unknown) => void) => void): PromiseLike<T> {
  let state: "pending" | "fulfilled" | "rejected" = "pending";
  let result: unknown;
  const waiting: (() => void)[] = [];
  const settle = (next: "fulfilled" | "rejected", value: unknown): void => {
    if (state !== "pending") return;
    state = next;
    result = value;
    for (const callback of waiting.splice(0)) callback();
  };
  executor(
    (value) => settle("fulfilled", value),
    (error) => settle("rejected", error),
  );
  return {
    then<A = T, B = never>(onFulfilled?: ((value: T) => A | PromiseLike<A>) | null, onRejected?: ((error: unknown) => B | PromiseLike<B>) | null): PromiseLike<A | B> {
      return virtualPromise<A | B>((resolve, reject) => {
        const run = (): void => {
          try {
            if (state === "fulfilled") resolve(onFulfilled ? (onFulfilled(result as T) as A) : (result as A));
            else if (onRejected) resolve(onRejected(result) as B);
            else reject(result);
          } catch (error) {
            reject(error);
          }
        };
        if (state === "pending") waiting.push(run);
        else run();
      });
    },
  };
}

/** Tracks brackets live, so a queue poll can be checked against the run's state at that moment. */
class LiveState {
  openTools = new Set<string>();
  openMessage = false;
  calls: string[] = [];
  answered = new Set<string>();
  track(event: AgentEvent): void {
    if (event.type === "tool_execution_start") this.openTools.add(event.toolCallId);
    else if (event.type === "tool_execution_end") this.openTools.delete(event.toolCallId);
    else if (event.type === "message_start") this.openMessage = true;
    else if (event.type === "message_end") {
      this.openMessage = false;
      const message = event.message as Message;
      if (message.role === "assistant") {
        this.calls = message.stopReason === "error" || message.stopReason === "aborted" ? [] : message.content.flatMap((b) => (b.type === "toolCall" ? [b.id] : []));
        this.answered.clear();
      } else if (message.role === "toolResult") this.answered.add(message.toolCallId);
    }
  }
  unanswered(): number {
    return this.calls.filter((id) => !this.answered.has(id)).length;
  }
}

/** Runs one scenario to the end of virtual time. */
export function runScenario(scenario: Scenario): Trace {
  const scheduler = new TestScheduler(() => undefined);
  const trace: Trace = {
    scenario,
    events: [],
    subscriberEvents: [],
    listenerReentries: [],
    completed: false,
    error: undefined,
    unhandled: [],
    cancel: undefined,
    unsubscribed: undefined,
    executes: [],
    providerCalls: [],
    hookCalls: [],
    blocked: new Set(),
    signals: [],
    signalSeqs: [],
    opened: 0,
    closed: 0,
    retainedListeners: 0,
    stillOpen: [],
    steering: [],
    followUps: [],
    prepared: [],
    leftInQueues: [],
    polls: [],
    initialMessages: [],
    stateSnapshots: [],
    hotEvents: [],
    busyPrompts: [],
    approvalRequests: [],
    refusedAnswers: [],
  };
  let seq = 0;
  const stamp = (): Stamp => ({ seq: seq++, frame: scheduler.now() });
  const open = new Map<number, string>();
  let nextSub = 0;
  /** Counts subscriptions to an Observable we hand to the library. */
  const counted = <T>(label: string, source: Observable<T>): Observable<T> =>
    new Observable<T>((subscriber) => {
      const id = nextSub++;
      trace.opened++;
      open.set(id, label);
      const inner = source.subscribe(subscriber);
      return () => {
        trace.closed++;
        open.delete(id);
        inner.unsubscribe();
      };
    });
  const seeSignal = (signal: AbortSignal | undefined): void => {
    if (signal && !trace.signals.includes(signal)) {
      trace.signals.push(signal);
      trace.signalSeqs.push(seq++);
    }
  };

  // ── hooks ──────────────────────────────────────────────────────────────────
  const { hooks } = scenario;
  const calls = new Map<HookName, number>();
  const enter = (hook: HookName, signal?: AbortSignal): number => {
    const n = calls.get(hook) ?? 0;
    calls.set(hook, n + 1);
    trace.hookCalls.push({ ...stamp(), hook });
    seeSignal(signal);
    return n;
  };
  const scriptedError = (hook: HookName): Error => new Error(`${hook} failed (scripted)`);
  /** A promise-like settled `delay` frames from now. */
  const later = <T>(delay: number, outcome: () => T): PromiseLike<T> =>
    virtualPromise<T>((resolve, reject) => {
      scheduler.schedule(() => {
        try {
          resolve(outcome());
        } catch (error) {
          reject(error);
        }
      }, delay);
    });
  /** The hook's decision, possibly thrown, possibly delivered later (an Observable or a promise-like). */
  const deliver = <T>(hook: HookName, n: number, value: T, delay = hooks.hookDelay): T | Observable<T> | PromiseLike<T> => {
    const fault = hooks.throwIn;
    if (fault && fault.hook === hook && fault.at === n) {
      if (fault.how === "sync") throw scriptedError(hook);
      if (fault.how === "promise") return later<T>(delay, () => {
        throw scriptedError(hook);
      });
      return counted(`${hook}#${n}`, timer(delay, scheduler).pipe(mergeMap(() => throwError(() => scriptedError(hook)))));
    }
    if (delay === 0) return value;
    if (hooks.hookAsync === "promise") return later(delay, () => value);
    return counted(`${hook}#${n}`, timer(delay, scheduler).pipe(map(() => value)));
  };
  const userMessage = (text: string): UserMessage => ({ role: "user", content: text, timestamp: scheduler.now() });

  const hookConfig: Partial<AgentLoopConfig> = {};
  if (hooks.before || hooks.throwIn?.hook === "beforeToolCall") {
    hookConfig.beforeToolCall = (context, signal) => {
      const n = enter("beforeToolCall", signal);
      const decision = hooks.before?.[n] ?? "allow";
      if (decision !== "allow") trace.blocked.add(context.toolCall.id);
      return deliver("beforeToolCall", n, decision === "allow" ? undefined : { block: true, reason: `blocked #${n}`, terminate: decision === "blockTerminate" });
    };
  }
  if (hooks.after || hooks.throwIn?.hook === "afterToolCall") {
    hookConfig.afterToolCall = (_context, signal) => {
      const n = enter("afterToolCall", signal);
      const decision = hooks.after?.[n] ?? "keep";
      const override =
        decision === "keep"
          ? undefined
          : decision === "override"
            ? { content: [{ type: "text" as const, text: `overridden #${n}` }] }
            : decision === "overrideError"
              ? { isError: true, details: { overridden: n } }
              : { terminate: true };
      return deliver("afterToolCall", n, override);
    };
  }
  if (hooks.finishTurn || hooks.throwIn?.hook === "finishTurn") {
    hookConfig.finishTurn = (_turn, signal) => {
      const n = enter("finishTurn", signal);
      const decision = hooks.finishTurn?.[n] ?? "none";
      return deliver("finishTurn", n, decision === "none" ? undefined : { action: decision });
    };
  }
  if (hooks.prepareNextTurn || hooks.throwIn?.hook === "prepareNextTurn") {
    hookConfig.prepareNextTurn = (_turn, signal) => {
      const n = enter("prepareNextTurn", signal);
      const count = hooks.prepareNextTurn?.[n] ?? 0;
      const messages = Array.from({ length: count }, (_, i) => userMessage(`prepared ${n}.${i}`));
      trace.prepared.push(...messages);
      return deliver("prepareNextTurn", n, count > 0 ? { messages } : undefined);
    };
  }
  if (hooks.throwIn?.hook === "prepareRequest" || hooks.rewrite) {
    hookConfig.prepareRequest = (request, signal) => {
      const n = enter("prepareRequest", signal);
      // `copy`: the run goes on with a new context object (same messages); `model`: another model.
      const update =
        hooks.rewrite === "copy" ? { context: { ...request.context, messages: request.context.messages.slice() } } : hooks.rewrite === "model" ? { model: { ...model, id: `other-${n}` } } : undefined;
      return deliver("prepareRequest", n, update);
    };
  }
  if (hooks.throwIn?.hook === "transformContext" || hooks.rewrite === "prune") {
    // `prune`: the model sees the system prompt and the last four messages only.
    hookConfig.transformContext = (messages, signal) =>
      deliver("transformContext", enter("transformContext", signal), hooks.rewrite === "prune" && messages.length > 5 ? [messages[0]!, ...messages.slice(-4)] : messages);
  }
  if (hooks.throwIn?.hook === "convertToLlm") {
    hookConfig.convertToLlm = (messages) => deliver("convertToLlm", enter("convertToLlm"), messages.filter((m) => ["system", "user", "assistant", "toolResult"].includes((m as Message).role)) as Message[]);
  }
  if (hooks.throwIn?.hook === "getApiKey") {
    hookConfig.getApiKey = () => deliver("getApiKey", enter("getApiKey"), "key");
  }

  // ── tools ──────────────────────────────────────────────────────────────────
  const behaviours = new Map<string, ToolBehaviour>();
  for (const turn of scenario.turns) for (const block of turn.blocks) if (block.t === "call") behaviours.set(block.id, block.behaviour);
  const resultOf = (id: string, b: ToolBehaviour): unknown => {
    switch (b.outcome) {
      case "ok":
      case "errorObservable":
      case "emptyObservable":
        return { content: [{ type: "text", text: `ok ${id}` }], details: { id } };
      case "isError":
        return { content: [{ type: "text", text: `failed ${id}` }], isError: true };
      case "terminate":
        return { content: [{ type: "text", text: `stop ${id}` }], terminate: true };
      case "undefined":
        return undefined;
      case "nonObject":
        return 42;
      case "badContent":
        return { content: 7 };
      default:
        return undefined;
    }
  };
  const throwOf = (id: string, b: ToolBehaviour): unknown =>
    b.outcome === "throw" ? new Error(`tool ${id} threw`) : b.outcome === "throwString" ? `tool ${id} threw a string` : b.outcome === "throwUndefined" ? undefined : null;
  const throws = (b: ToolBehaviour): boolean => b.outcome === "throw" || b.outcome === "throwString" || b.outcome === "throwUndefined";
  const progress = (id: string, k: number): AgentToolResult => ({ content: [{ type: "text", text: `progress ${id} ${k}` }] });

  const execute: AgentTool["execute"] = (id, _params, signal, onUpdate) => {
    trace.executes.push({ ...stamp(), id });
    seeSignal(signal);
    const b = behaviours.get(id) ?? { kind: "plain", frames: 0, updates: 0, outcome: "ok" };
    if (b.kind === "plain") {
      for (let k = 0; k < b.updates; k++) onUpdate(progress(id, k));
      if (throws(b)) throw throwOf(id, b);
      return resultOf(id, b) as AgentToolResult;
    }
    if (b.kind === "promise") {
      // Progress on the way, then the result; the signal is ignored (the loop waits, SPEC L10).
      for (let k = 0; k < b.updates; k++) scheduler.schedule(() => onUpdate(progress(id, k)), k);
      return later(b.frames, () => {
        if (throws(b)) throw throwOf(id, b);
        if (b.outcome === "errorObservable") throw new Error(`tool ${id} rejected`);
        return resultOf(id, b) as AgentToolResult;
      });
    }
    // One progress report before the Observable is even returned.
    if (b.updates > 0 && b.kind === "observable") onUpdate(progress(id, -1));
    const steps = b.updates + 1;
    const every = Math.max(0, Math.floor(b.frames / steps));
    return counted(
      `tool:${id}`,
      new Observable<AgentToolResult>((subscriber) => {
        let k = 0;
        const tick = (): void => {
          if (k < b.updates) {
            // Progress both ways: a callback update, and an emission before the last.
            if (k % 2 === 0) onUpdate(progress(id, k));
            else subscriber.next(progress(id, k));
            k++;
            return;
          }
          if (throws(b)) subscriber.error(throwOf(id, b));
          else if (b.outcome === "errorObservable") subscriber.error(new Error(`tool ${id} errored`));
          else if (b.outcome === "emptyObservable") subscriber.complete();
          else {
            subscriber.next(resultOf(id, b) as AgentToolResult);
            subscriber.complete();
          }
          // A late progress report after the result: dropped (no update after tool_execution_end).
          if (b.updates > 0) scheduler.schedule(() => onUpdate(progress(id, 99)), 1);
        };
        // On the TestScheduler itself, not asyncScheduler: rxjs 7.8's run-mode interval delegate
        // can throw "Expected a due immediate or interval" when intervals due in one frame are cleared.
        const subscription = timer(every, every === 0 ? 1 : every, scheduler).subscribe(() => {
          tick();
          if (subscriber.closed) subscription.unsubscribe();
        });
        return subscription;
      }),
    );
  };
  const tool = (name: string, extra: Partial<AgentTool> = {}): AgentTool => ({ name, label: name, description: `${name} tool`, parameters: TOOL_SCHEMA, execute, ...extra });
  const control = scenario.control;
  const approvals = control?.approvals ?? {};
  const tools = [
    tool("t0"),
    tool("t1", control ? { needsApproval: (_args, { toolCall }) => toolCall.id in approvals } : {}),
    tool("slow", control?.keyed ? { concurrencyKey: () => "slow" } : {}),
    tool("seq", { executionMode: "sequential" }),
  ];
  const decisionOf = (id: string): ToolApprovalDecision | undefined => {
    const answer = approvals[id];
    return answer === "approve" ? { approved: true } : answer === "deny" ? { approved: false, reason: `denied ${id}` } : undefined;
  };
  /** The loop's approver: the drawn answer after `approvalDelay` frames (a plain value at 0); never for `never`. */
  const requestApproval = (request: ToolApprovalRequest): ToolApprovalDecision | Observable<ToolApprovalDecision> => {
    trace.approvalRequests.push({ ...stamp(), id: request.toolCallId });
    const decision = decisionOf(request.toolCallId);
    if (!decision) return counted(`approval:${request.toolCallId}`, NEVER);
    if (control!.approvalDelay === 0) return decision;
    return counted(`approval:${request.toolCallId}`, timer(control!.approvalDelay, scheduler).pipe(map(() => decision)));
  };
  const controlConfig: Partial<AgentLoopConfig> = control
    ? { ...(control.limits ? { limits: control.limits } : {}), ...(control.maxConcurrency ? { maxConcurrency: control.maxConcurrency } : {}) }
    : {};

  // ── provider ───────────────────────────────────────────────────────────────
  let played = 0;
  const streamFn: StreamFn = (requestModel, context, options) => {
    trace.providerCalls.push(stamp());
    seeSignal(options.signal);
    const turn = scenario.turns[played++] ?? FINAL_TURN;
    if (turn.fault === "throw") throw new Error("scripted provider throw");
    if (turn.fault === "reject") {
      // A promise that rejects, without a microtask: a synchronous thenable.
      return { then: (_resolve: unknown, reject: (error: unknown) => void) => reject(new Error("scripted provider rejection")) } as unknown as PromiseLike<AssistantMessageEvent[]>;
    }
    const faux = fauxProvider([replyOf(turn)], scenario.providerDelay === "sync" ? {} : { scheduler, delay: scenario.providerDelay });
    let played$ = faux(requestModel, context, options) as Observable<AssistantMessageEvent>;
    if (turn.fault === "noise") played$ = played$.pipe(mergeMap((event) => [{ type: "vendor_ping" } as unknown as AssistantMessageEvent, event]));
    if (turn.fault === "noStart") played$ = played$.pipe(filter((event) => event.type !== "start"));
    // Events after the final one (a second `done`, a stray delta): nobody may see them.
    if (turn.fault === "trailing")
      played$ = played$.pipe(
        mergeMap((event) => (event.type === "done" || event.type === "error" ? [event, { ...event }, { type: "text_delta", contentIndex: 0, delta: "late", partial: (event as { message?: unknown }).message } as unknown as AssistantMessageEvent] : [event])),
      );
    const events = counted("provider", played$);
    if (turn.fault === "thenable") return { then: (resolve: (value: unknown) => void) => resolve(events) } as unknown as PromiseLike<Observable<AssistantMessageEvent>>;
    return events;
  };

  // ── queues (loop) ──────────────────────────────────────────────────────────
  const steerQueue: AgentMessage[] = [];
  const followQueue: AgentMessage[] = [];
  // As streams (SPEC Q1): what was sent before the run subscribed is replayed; what reaches the run is recorded.
  const steerStream = new ReplaySubject<AgentMessage>();
  const followStream = new ReplaySubject<AgentMessage>();
  const delivered = (source: ReplaySubject<AgentMessage>, kind: "steering" | "followUp"): Observable<AgentMessage> =>
    source.pipe(tap((message) => (kind === "steering" ? trace.steering : trace.followUps).push(message)));
  const live = new LiveState();
  const poll = (kind: "steering" | "followUp"): AgentMessage[] => {
    trace.polls.push({ ...stamp(), kind, openTools: live.openTools.size, openMessage: live.openMessage, unanswered: live.unanswered() });
    const queue = kind === "steering" ? steerQueue : followQueue;
    const mode = kind === "steering" ? scenario.steeringMode : scenario.followUpMode;
    const taken = queue.splice(0, mode === "all" ? queue.length : 1);
    (kind === "steering" ? trace.steering : trace.followUps).push(...taken);
    return taken;
  };

  const record = (event: AgentEvent): void => {
    trace.events.push({ ...stamp(), event });
    live.track(event);
  };
  /** The listener (Agent) or waiting emit (loop-emit): records, may throw, may hold the loop. */
  let listening = false;
  let abortFromListener: (() => void) | undefined;
  const listen = (event: AgentEvent, signal?: AbortSignal): void | Observable<unknown> | PromiseLike<unknown> => {
    if (listening) trace.listenerReentries.push(event);
    listening = true;
    try {
      record(event);
      const n = enter("listener", signal);
      if (scenario.abortInListenerAt === trace.events.length - 1) abortFromListener?.();
      const result = deliver("listener", n, undefined, hooks.listenerDelay);
      return result === undefined ? undefined : (result as Observable<unknown> | PromiseLike<unknown>);
    } finally {
      listening = false;
    }
  };

  const previousUnhandled = rxConfig.onUnhandledError;
  rxConfig.onUnhandledError = (error) => trace.unhandled.push(error);
  let agent: Agent | undefined;
  let userSignal: AbortSignal | undefined;
  const stateFeeds: Subscription[] = [];
  try {
    scheduler.run(() => {
      let subscription: Subscription | undefined;
      const controller = new AbortController();
      userSignal = controller.signal;
      let active = true;
      const observer = {
        next: (event: AgentEvent) => {
          if (scenario.via === "loop") record(event);
          trace.subscriberEvents.push(event);
          const index = trace.subscriberEvents.length - 1;
          const at = scenario.cancelAtEvent;
          if (at && index === at.index) cancel(at.kind);
          for (const action of scenario.eventActions ?? []) {
            if (action.index !== index) continue;
            if (action.kind === "steer" || action.kind === "followUp") queue(action.kind);
            else if (action.kind === "prompt") busyPrompt();
            else cancel(action.kind);
          }
        },
        error: (error: unknown) => {
          trace.error = error ?? new Error("errored with undefined");
          if (scenario.via !== "agent") active = false;
        },
        complete: () => {
          trace.completed = true;
          if (scenario.via !== "agent") active = false;
          if (scenario.via === "agent" && scenario.secondRun) startSecondRun(scenario.secondRun);
        },
      };
      /** Re-entrant: from inside the first run's `complete`, when the Agent just went idle. */
      const startSecondRun = (kind: "prompt" | "continue"): void => {
        const last = agent!.state.messages[agent!.state.messages.length - 1] as Message | undefined;
        const second: NonNullable<Trace["second"]> = {
          ...stamp(),
          index: trace.events.length,
          error: undefined,
          completed: false,
          subscriberEvents: [],
          // continue() after an assistant message needs a queued message (SPEC A3).
          expectError: kind === "continue" && last?.role === "assistant" && !agent!.hasQueuedMessages(),
        };
        trace.second = second;
        const sink2 = new Subscriber<AgentEvent>({
          next: (event) => second.subscriberEvents.push(event),
          error: (error: unknown) => (second.error = error ?? new Error("undefined")),
          complete: () => (second.completed = true),
        });
        // Later user actions (unsubscribe) apply to the run in progress.
        subscription = sink2;
        unsubscribed = false;
        (kind === "prompt" ? agent!.prompt$("again") : agent!.continue$()).subscribe(sink2);
      };
      let queued = 0;
      const queue = (kind: "steer" | "followUp"): void => {
        const message = userMessage(`${kind} ${queued++}`);
        if (scenario.via === "agent") {
          (kind === "steer" ? trace.steering : trace.followUps).push(message);
          if (kind === "steer") agent!.steer(message);
          else agent!.followUp(message);
        } else if (scenario.queueStreams) (kind === "steer" ? steerStream : followStream).next(message);
        else (kind === "steer" ? steerQueue : followQueue).push(message);
      };
      const isActive = (): boolean => (scenario.via === "agent" ? agent!.state.isStreaming : active);

      if (scenario.via === "agent") {
        agent = new Agent({
          initialState: { systemPrompt: "You are a test agent.", model, tools },
          streamFn,
          steeringMode: scenario.steeringMode,
          followUpMode: scenario.followUpMode,
          toolExecution: scenario.toolExecution,
          scheduler,
          ...(controlConfig.limits ? { limits: controlConfig.limits } : {}),
          ...(controlConfig.maxConcurrency ? { maxConcurrency: controlConfig.maxConcurrency } : {}),
          ...hookConfig,
        });
        if (control) {
          // The human: answers each request as drawn, from its listener at 0 frames, else later.
          const human = agent;
          human.subscribe((event) => {
            if (event.type !== "tool_approval_request") return;
            trace.approvalRequests.push({ ...stamp(), id: event.toolCallId });
            const decision = decisionOf(event.toolCallId);
            if (!decision) return;
            const answer = (): void => {
              // The run may have been aborted meanwhile: then nothing waits and the answer is refused.
              try {
                if (decision.approved) human.approve(event.toolCallId);
                else human.deny(event.toolCallId, decision.reason);
              } catch (error) {
                trace.refusedAnswers.push(String((error as Error).message));
              }
            };
            if (control.approvalDelay === 0) answer();
            else scheduler.schedule(answer, control.approvalDelay);
          });
        }
        const leading = scenario.leadingListener;
        const waitsOn = new Set(["message_update", "tool_execution_update", "tool_execution_start"]);
        if (leading) agent.subscribe((event) => (!waitsOn.has(event.type) ? undefined : leading === "promise" ? later(0, () => undefined) : of(undefined)));
        agent.subscribe((event, signal) => listen(event, signal));
        stateFeeds.push(agent.state$.subscribe((snapshot) => trace.stateSnapshots.push(snapshot)));
        stateFeeds.push(agent.events$.subscribe((event) => trace.hotEvents.push(event)));
        trace.initialMessages = agent.state.messages.slice();
        for (let i = 0; i < scenario.steerBeforeStart; i++) queue("steer");
      } else {
        for (let i = 0; i < scenario.steerBeforeStart; i++) queue("steer");
      }

      /** Only while a run is active: `prompt$` must error at once and change nothing (SPEC A2). */
      const busyPrompt = (): void => {
        if (scenario.via !== "agent" || !agent!.state.isStreaming) return;
        const attempt = { error: undefined as unknown, events: 0, whileStreaming: true };
        trace.busyPrompts.push(attempt);
        agent!.prompt$("while busy").subscribe({ next: () => attempt.events++, error: (error: unknown) => (attempt.error = error ?? "undefined") });
      };
      const cancel = (kind: "abort" | "unsubscribe"): void => {
        if (isActive() && !trace.cancel) trace.cancel = { ...stamp(), kind };
        if (kind === "abort") return scenario.via === "agent" ? agent!.abort() : controller.abort();
        if (scenario.via !== "agent") active = false;
        if (!unsubscribed && !trace.unsubscribed) trace.unsubscribed = stamp();
        unsubscribed = true;
        subscription?.unsubscribe();
      };
      abortFromListener = () => cancel("abort");
      let unsubscribed = false;
      // A Subscriber, not a plain observer: unsubscribing from inside `next` works even while a
      // synchronous run is still inside `subscribe` (what `take(n)` does).
      const sink = new Subscriber<AgentEvent>(observer);
      subscription = sink;
      for (const action of scenario.actions) {
        scheduler.schedule(() => {
          if (action.kind === "steer" || action.kind === "followUp") return queue(action.kind);
          if (action.kind === "prompt") return busyPrompt();
          // Leaving after the run completed is no cancellation.
          if (action.kind === "unsubscribe" && (subscription?.closed ?? true)) return;
          return cancel(action.kind);
        }, action.frame);
      }

      if (scenario.via === "agent") {
        agent!.prompt$("go").subscribe(sink);
      } else {
        const prompt = userMessage("go");
        // `continueLoop`: the prompt is already in the transcript and the run continues from it.
        const context = contextWith(tools, scenario.continueLoop ? [prompt] : []);
        trace.initialMessages = context.messages.slice();
        const config: AgentLoopConfig = {
          model,
          scheduler,
          toolExecution: scenario.toolExecution,
          ...controlConfig,
          ...(control ? { requestApproval } : {}),
          ...(scenario.queueStreams
            ? { steering$: delivered(steerStream, "steering"), followUp$: delivered(followStream, "followUp"), steeringMode: scenario.steeringMode, followUpMode: scenario.followUpMode }
            : { getSteeringMessages: () => poll("steering"), getFollowUpMessages: () => poll("followUp") }),
          ...hookConfig,
        };
        if (scenario.abortBeforeStart) cancel("abort");
        const run$ =
          scenario.via === "loop"
            ? scenario.continueLoop
              ? agentLoopContinue(context, config, controller.signal, streamFn)
              : agentLoop([prompt], context, config, controller.signal, streamFn)
            : runAgentLoop({ prompts: [prompt], context, config, signal: controller.signal, streamFn, emit: (event) => listen(event) });
        run$.subscribe(sink);
      }
    });
  } finally {
    rxConfig.onUnhandledError = previousUnhandled;
  }
  for (const feed of stateFeeds) feed.unsubscribe();
  trace.stillOpen = [...open.values()];
  // Abort listeners left on any signal handed out (or on the loop's own `signal` argument).
  trace.retainedListeners = [...trace.signals, ...(userSignal && scenario.via !== "agent" ? [userSignal] : [])].reduce(
    (count, signal) => count + getEventListeners(signal, "abort").length,
    0,
  );
  if (agent) {
    const state = agent.state;
    trace.finalState = {
      messages: state.messages.slice(),
      isStreaming: state.isStreaming,
      pendingToolCalls: state.pendingToolCalls.size,
      streamingMessage: state.streamingMessage,
      errorMessage: state.errorMessage,
    };
    // Read both queues whole through the public API.
    agent.steeringMode = "all";
    agent.followUpMode = "all";
    if (agent.hasQueuedMessages()) {
      trace.leftInQueues.push(...agent.peekQueuedMessages());
      agent.clearSteeringQueue();
      trace.leftInQueues.push(...agent.peekQueuedMessages());
    }
  } else {
    trace.leftInQueues.push(...steerQueue, ...followQueue);
    // Streams: what the run received but did not take is on agent_end (SPEC Q3).
    for (const e of trace.events) if (e.event.type === "agent_end" && e.event.untaken) trace.leftInQueues.push(...e.event.untaken.steering, ...e.event.untaken.followUp);
  }
  return trace;
}

/** A short name for an event; assistant messages carry their stop reason. */
export function label(event: AgentEvent): string {
  return eventLabel(event, (message) => (message.role === "assistant" ? message.stopReason : undefined));
}

function withoutTimestamps(key: string, value: unknown): unknown {
  return key === "timestamp" ? undefined : value;
}

/** What must be identical when the same scenario runs twice. */
export function fingerprint(trace: Trace): string {
  return JSON.stringify(
    {
      events: trace.events.map((e) => `${e.frame}:${label(e.event)}`),
      committed: trace.events.flatMap((e) => (e.event.type === "message_end" ? [e.event.message] : [])),
      executes: trace.executes.map((e) => `${e.frame}:${e.id}`),
      providerCalls: trace.providerCalls.map((e) => e.frame),
      cancel: trace.cancel,
      opened: trace.opened,
      closed: trace.closed,
    },
    withoutTimestamps,
  );
}

export type { Block };
