/**
 * The agent loop (SPEC L1–L12) as a recursive `expand` over turns.
 *
 * Read it like the pseudo-code it implements:
 *
 * ```text
 * agent_start, turn_start, prompts
 * pending = poll steering
 * loop (expand):                                   ── inner loop: tools and steering
 *   [not first] prepareNextTurn, poll steering if nothing pending, turn_start
 *   append pending messages (tool changes declared)
 *   prepareRequest → transformContext → convertToLlm → provider → message events
 *   error | aborted → finishTurn (ignored), turn_end, agent_end; stop
 *   run the tool calls (length stop: fail them all)
 *   finishTurn → turn_end; `end` → agent_end; stop
 *   pending = poll steering; tool results or steering → next turn
 *   else follow-up = poll follow-up                 ── outer loop: follow-up
 *     follow-up → next turn; `continue` decided → next turn; else agent_end
 * ```
 *
 * @module
 */
import { catchError, defer, EMPTY, expand, filter, ignoreElements, Observable, of, queueScheduler, subscribeOn, tap } from "rxjs";
import { concat } from "./internal/concat.js";
import { describeError, failedAssistantMessage } from "./assistant-message.js";
import { streamAssistantResponse } from "./assistant-stream.js";
import { Emitter } from "./internal/emitter.js";
import { settled, thenMaybe } from "./internal/maybe-async.js";
import { IncrementalLlmMessages } from "./llm-context.js";
import type { AssistantMessage, Message, StreamFn, StreamOptions, ThinkingLevel, ToolCall, ToolResultMessage } from "./messages.js";
import { executeToolBatch, failTruncatedToolCalls, type ToolBatchResult } from "./tool-batch.js";
import { errorToolResult, type ToolCallEnvironment, toolResultMessage } from "./tool-call.js";
import { ToolDeclarations } from "./transcript.js";
import type {
  AgentContext,
  AgentEmit,
  AgentEvent,
  AgentLoopConfig,
  AgentMessage,
  AgentRequestUpdate,
  AgentTurnContext,
  AgentTurnDecision,
} from "./types.js";

/**
 * Starts a run with new prompt messages. Cold: each subscription is one run, and
 * unsubscribing cancels it (provider request and running tools are aborted through their
 * signal, Observable tools are unsubscribed, nothing more is emitted).
 *
 * @param prompts Messages that open the run (usually one user message).
 * @param context The transcript so far and the executable tools; copied, never mutated.
 * @param config The model, stream options and hooks.
 * @param signal Graceful abort: the run ends with an `aborted` assistant message.
 * @param streamFn The provider.
 * @return The run's events, from `agent_start` to `agent_end`.
 *
 * @example
 * ```ts
 * import { filter, map } from "rxjs";
 * agentLoop([{ role: "user", content: "Hi", timestamp: Date.now() }], { messages: [] }, { model }, undefined, streamFn)
 *   .pipe(filter((e) => e.type === "message_update"))
 *   .subscribe((e) => render(e.message));
 * ```
 * @see agentLoopContinue
 */
export function agentLoop(
  prompts: AgentMessage[],
  context: AgentContext,
  config: AgentLoopConfig,
  signal?: AbortSignal,
  streamFn?: StreamFn,
): Observable<AgentEvent> {
  return runAgentLoop({ prompts, context, config, signal, streamFn: requireStreamFn(streamFn) });
}

/**
 * Continues from the current transcript without adding a message (retries, resumed sessions).
 * Throws at call time when the transcript is empty or ends with an assistant message.
 *
 * @see agentLoop
 */
export function agentLoopContinue(context: AgentContext, config: AgentLoopConfig, signal?: AbortSignal, streamFn?: StreamFn): Observable<AgentEvent> {
  assertCanContinue(context.messages);
  return runAgentLoop({ context, config, signal, streamFn: requireStreamFn(streamFn) });
}

/** Throws the reference's errors for a transcript the loop cannot continue from. */
export function assertCanContinue(messages: readonly AgentMessage[]): void {
  if (messages.length === 0) throw new Error("Cannot continue: no messages in context");
  const last = messages[messages.length - 1] as { role?: string };
  if (last.role === "assistant") throw new Error("Cannot continue from message role: assistant");
}

function requireStreamFn(streamFn: StreamFn | undefined): StreamFn {
  if (typeof streamFn !== "function") throw new TypeError("agentLoop needs a stream function (the provider): pass it as the last argument.");
  return streamFn;
}

/** Input of {@link runAgentLoop}. */
export interface AgentLoopRun {
  /** Absent for a continuation. */
  prompts?: AgentMessage[];
  context: AgentContext;
  config: AgentLoopConfig;
  signal?: AbortSignal;
  streamFn: StreamFn;
  /** Called with every event; the loop waits for what it returns (SPEC L11). */
  emit?: AgentEmit;
  /** Skip the steering poll at run start (the Agent's `continue()` already drained a batch). */
  skipInitialSteeringPoll?: boolean;
}

/**
 * The loop with a waiting `emit`: the entry the `Agent` builds on (SPEC L11).
 *
 * @internal
 */
export function runAgentLoop(input: AgentLoopRun): Observable<AgentEvent> {
  return new Observable<AgentEvent>((subscriber) => {
    const controller = new AbortController();
    const outer = input.signal;
    const forwardAbort = (): void => controller.abort(outer?.reason);
    if (outer?.aborted) controller.abort(outer.reason);
    else outer?.addEventListener("abort", forwardAbort);
    let settledRun = false;
    // Subscribed with `subscriber` itself, so both are linked from the first event: a consumer
    // that leaves inside `next` while a synchronous run is still inside `subscribe` (`take(n)`)
    // stops it there — no tool or provider call after that (issue 7 cancellation sweep).
    runEvents(input, controller)
      .pipe(tap({ error: () => (settledRun = true), complete: () => (settledRun = true) }))
      .subscribe(subscriber);
    // Added after the run's subscription: torn down first, aborted second, so nothing reacts to
    // the abort by emitting (SPEC L10). Runs at once when the consumer already left.
    subscriber.add(() => {
      outer?.removeEventListener("abort", forwardAbort);
      if (!settledRun) controller.abort(new DOMException("The run was unsubscribed", "AbortError"));
    });
  });
}

/** The next turn, as it travels through `expand`. */
class NextTurn {
  constructor(
    readonly pending: AgentMessage[],
    readonly lastTurn: AgentTurnContext | undefined,
  ) {}
}

type Step = AgentEvent | NextTurn;

const LOOP_KEYS = new Set<string>([
  "model",
  "convertToLlm",
  "transformContext",
  "getApiKey",
  "getSteeringMessages",
  "getFollowUpMessages",
  "toolExecution",
  "prepareRequest",
  "prepareNextTurn",
  "finishTurn",
  "beforeToolCall",
  "afterToolCall",
]);

/** The provider's share of the config: everything that is not a loop hook. */
function streamOptionsOf(config: AgentLoopConfig): StreamOptions {
  const options: StreamOptions = {};
  for (const key of Object.keys(config)) if (!LOOP_KEYS.has(key)) options[key] = (config as unknown as Record<string, unknown>)[key];
  return options;
}

/** What one subscription to the loop owns. State lives here, nowhere else. */
class Run {
  context: AgentContext;
  config: AgentLoopConfig;
  streamOptions: StreamOptions;
  readonly newMessages: AgentMessage[] = [];
  readonly declarations = new ToolDeclarations();
  readonly llmMessages = new IncrementalLlmMessages();
  readonly now: () => number;
  readonly tracker = new RunTracker((message) => this.append(message));
  readonly emitter: Emitter;
  /**
   * Without `emit`: where streamed `message_update` events go, straight to the run's subscriber
   * past the turn's operators (issue 6 benchmarks: about a third of the per-delta time). Only
   * when nothing waits on events, so the order is the same.
   */
  sink: ((event: AgentEvent) => void) | undefined;
  /** Set when the run failed and `failure()` took over the events. */
  failing = false;

  constructor(
    readonly input: AgentLoopRun,
    readonly signal: AbortSignal,
  ) {
    this.context = { ...input.context, messages: input.context.messages.slice() };
    this.config = input.config;
    this.streamOptions = streamOptionsOf(this.config);
    const scheduler = input.config.scheduler;
    this.now = scheduler ? () => scheduler.now() : Date.now;
    const emit = input.emit;
    this.emitter = new Emitter(
      emit
        ? (event) => {
            // After a failure only `failure()` speaks: the abort it sends makes the provider emit
            // one more event before it is torn down, which nobody may see or commit (issue 7).
            if (this.failing) return undefined;
            this.tracker.track(event);
            return emit(event);
          }
        : undefined,
    );
  }

  /** Called when a message's `message_end` is emitted: that is when it joins the transcript. */
  append(message: AgentMessage): void {
    this.context.messages.push(message);
    this.newMessages.push(message);
    if (this.waiting.length > 0) {
      const index = this.waiting.indexOf(message);
      if (index >= 0) this.waiting.splice(index, 1);
    }
  }

  /**
   * Messages taken from the prompts, a queue poll or `prepareNextTurn` and not committed yet. A
   * failure commits them: a polled steering or follow-up message is never dropped (issue 7).
   */
  waiting: AgentMessage[] = [];

  update(update: AgentRequestUpdate): void {
    if (update.context) this.context = update.context;
    if (update.model || update.thinkingLevel !== undefined) {
      const next: AgentLoopConfig = { ...this.config };
      if (update.model) next.model = update.model;
      if (update.thinkingLevel !== undefined) next.reasoning = update.thinkingLevel === "off" ? undefined : update.thinkingLevel;
      this.config = next;
      this.streamOptions = streamOptionsOf(next);
    }
  }

  get thinkingLevel(): ThinkingLevel {
    return this.config.reasoning ?? "off";
  }

  turnContext(message: AssistantMessage, toolResults: ToolResultMessage[]): AgentTurnContext {
    return { message, toolResults, context: this.context, newMessages: this.newMessages };
  }
}

function runEvents(input: AgentLoopRun, controller: AbortController): Observable<AgentEvent> {
  return defer(() => {
    const run = new Run(input, controller.signal);
    const steps = concat(start(run), pollSteering(run, input.skipInitialSteeringPoll === true, (pending) => of(new NextTurn(pending, undefined))));
    // Only NextTurn steps go through `expand`; events leave by the side. rxjs's `expand`
    // projects every value it emits, so each streamed event cost an inner subscription to
    // EMPTY and its teardown: about half the per-event time (issue 6 benchmarks).
    // Without `emit`, the tracker sees each event here, on its way out (one operator less per event).
    const tracker = input.emit ? undefined : run.tracker;
    const events = new Observable<AgentEvent>((subscriber) => {
      if (tracker) {
        run.sink = (event) => {
          tracker.track(event);
          subscriber.next(event);
        };
      }
      const nextTurns = (source: Observable<Step>): Observable<NextTurn> =>
        source.pipe(filter((step): step is NextTurn => step instanceof NextTurn || (tracker?.track(step), subscriber.next(step), false)));
      nextTurns(steps)
        .pipe(
          // Trampolined: a synchronous turn schedules the next one instead of recursing (SPEC L4).
          expand((next) => nextTurns(turn(run, next)).pipe(subscribeOn(queueScheduler))),
          ignoreElements(),
        )
        // `subscriber` itself, not an observer object: linked from the first event, so a consumer
        // leaving inside a synchronous run stops it there (issue 7 cancellation sweep).
        .subscribe(subscriber);
    });
    return events.pipe(
      catchError((error) => {
        run.failing = true;
        if (!controller.signal.aborted && !run.tracker.ended) controller.abort(error);
        return failure(run, error);
      }),
    );
  });
}

function start(run: Run): Observable<Step> {
  const { prompts } = run.input;
  if (prompts) run.waiting = prompts.slice();
  return concat(
    run.emitter.all([{ type: "agent_start" }, { type: "turn_start" }]),
    prompts ? defer(() => appendMessages(run, prompts)) : EMPTY,
  );
}

/** Messages added before a request: the tool changes are declared, each gets start and end events. */
function appendMessages(run: Run, messages: readonly AgentMessage[]): Observable<AgentEvent> {
  const declared = run.declarations.declare(run.context.messages, messages, run.context.tools ?? [], run.now());
  if (declared.length === 0) return EMPTY;
  // What is waiting now is exactly these messages, as declared (a system message may be rewritten).
  run.waiting = declared.slice();
  const events: AgentEvent[] = [];
  for (const message of declared) {
    events.push({ type: "message_start", message }, { type: "message_end", message });
  }
  return run.emitter.all(events);
}

function messagesOrNone(value: unknown, hook: string): AgentMessage[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new TypeError(`${hook} must return an array of messages, got ${typeof value}.`);
  return value;
}

function pollSteering(run: Run, skip: boolean, then: (messages: AgentMessage[]) => Observable<Step>): Observable<Step> {
  const poll = run.config.getSteeringMessages;
  if (skip || !poll) return defer(() => then([]));
  return defer(() => thenMaybe(poll(), (messages) => then(taken(run, messagesOrNone(messages, "getSteeringMessages")))));
}

function pollFollowUp(run: Run, then: (messages: AgentMessage[]) => Observable<Step>): Observable<Step> {
  const poll = run.config.getFollowUpMessages;
  if (!poll) return defer(() => then([]));
  return defer(() => thenMaybe(poll(), (messages) => then(taken(run, messagesOrNone(messages, "getFollowUpMessages")))));
}

/** Polled messages wait for their turn; a failure before it commits them (see `Run.waiting`). */
function taken(run: Run, messages: AgentMessage[]): AgentMessage[] {
  if (messages.length > 0) run.waiting.push(...messages);
  return messages;
}

/** One turn: an assistant message and all its tool results (SPEC L3). Ends with the next step or `agent_end`. */
function turn(run: Run, next: NextTurn): Observable<Step> {
  const state = { pending: next.pending, prepared: [] as AgentMessage[] };
  return concat(
    next.lastTurn ? prepareTurn(run, next.lastTurn, state) : EMPTY,
    defer(() => appendMessages(run, state.prepared.length ? [...state.prepared, ...state.pending] : state.pending)),
    defer(() => prepareRequest(run, () => respond(run))),
  );
}

/** Between turns: `prepareNextTurn`, one more steering poll if nothing is pending (SPEC L7), `turn_start`. */
function prepareTurn(run: Run, lastTurn: AgentTurnContext, state: { pending: AgentMessage[]; prepared: AgentMessage[] }): Observable<Step> {
  const hook = run.config.prepareNextTurn;
  const afterHook = (): Observable<Step> =>
    concat(
      state.pending.length === 0
        ? pollSteering(run, false, (messages) => {
            state.pending = messages;
            return EMPTY;
          })
        : EMPTY,
      defer(() => run.emitter.one({ type: "turn_start" })),
    );
  if (!hook) return afterHook();
  return defer(() =>
    thenMaybe(hook(lastTurn, run.signal), (update) => {
      if (update) {
        run.update(update);
        state.prepared = taken(run, messagesOrNone(update.messages, "prepareNextTurn messages"));
      }
      return afterHook();
    }),
  );
}

function prepareRequest(run: Run, then: () => Observable<Step>): Observable<Step> {
  const hook = run.config.prepareRequest;
  if (!hook) return then();
  return thenMaybe(hook({ context: run.context, model: run.config.model, thinkingLevel: run.thinkingLevel }, run.signal), (update) => {
    if (update) run.update(update);
    return then();
  });
}

/** transformContext → convertToLlm → getApiKey → provider; then the turn goes on with the final message. */
function respond(run: Run): Observable<Step> {
  const { config } = run;
  const transformed = config.transformContext ? config.transformContext(run.context.messages, run.signal) : run.context.messages;
  return thenMaybe(transformed, (messages) => {
    if (!Array.isArray(messages)) throw new TypeError(`transformContext must return an array of messages, got ${typeof messages}.`);
    const converted = config.convertToLlm ? config.convertToLlm(messages) : run.llmMessages.convert(messages);
    return thenMaybe(converted, (llmMessages) => {
      if (!Array.isArray(llmMessages)) throw new TypeError(`convertToLlm must return an array of messages, got ${typeof llmMessages}.`);
      const apiKey = config.getApiKey ? config.getApiKey(config.model.provider) : undefined;
      return thenMaybe(apiKey, (key) => streamResponse(run, llmMessages, key || config.apiKey));
    });
  });
}

function streamResponse(run: Run, messages: Message[], apiKey: string | undefined): Observable<Step> {
  let final: AssistantMessage | undefined;
  const options: StreamOptions & { signal: AbortSignal } = { ...run.streamOptions, signal: run.signal };
  if (apiKey !== undefined) options.apiKey = apiKey;
  const response = streamAssistantResponse({ model: run.config.model, messages, options, streamFn: run.input.streamFn, now: run.now, onUpdate: run.sink });
  return concat(
    run.emitter.stream(response).pipe(
      tap((event) => {
        if (event.type === "message_end") final = event.message as AssistantMessage;
      }),
    ),
    defer(() => {
      const message = final!;
      return message.stopReason === "error" || message.stopReason === "aborted" ? hardExit(run, message) : runTools(run, message);
    }),
  );
}

/** An error or aborted response ends the run; `finishTurn` is told but cannot keep it going (SPEC L6). */
function hardExit(run: Run, message: AssistantMessage): Observable<Step> {
  const finishTurn = run.config.finishTurn;
  const close = (): Observable<Step> =>
    run.emitter.all([
      { type: "turn_end", message, toolResults: [] },
      { type: "agent_end", messages: run.newMessages },
    ]);
  if (!finishTurn) return close();
  return thenMaybe(finishTurn(run.turnContext(message, []), run.signal), close);
}

function toolEnvironment(run: Run, message: AssistantMessage): ToolCallEnvironment {
  const { config } = run;
  return {
    tools: run.context.tools ?? [],
    context: run.context,
    assistantMessage: message,
    signal: run.signal,
    now: run.now,
    beforeToolCall: config.beforeToolCall,
    afterToolCall: config.afterToolCall,
  };
}

function runTools(run: Run, message: AssistantMessage): Observable<Step> {
  const calls = message.content.filter((block): block is ToolCall => block.type === "toolCall");
  const batch: ToolBatchResult = { messages: [], terminate: false };
  let events: Observable<AgentEvent> = EMPTY;
  if (calls.length > 0) {
    const env = toolEnvironment(run, message);
    const tools = env.tools;
    const sequential = run.config.toolExecution === "sequential" || calls.some((call) => tools.find((t) => t.name === call.name)?.executionMode === "sequential");
    events =
      message.stopReason === "length"
        ? failTruncatedToolCalls(calls, env, run.emitter, batch)
        : executeToolBatch(calls, env, sequential ? "sequential" : "parallel", run.emitter, batch);
  }
  return concat(
    events,
    defer(() => finishTurn(run, message, batch, calls.length > 0 && !batch.terminate)),
  );
}

/** `finishTurn`, `turn_end`, then the scheduling decision (SPEC L6, L7, L8). */
function finishTurn(run: Run, message: AssistantMessage, batch: ToolBatchResult, hasMoreToolCalls: boolean): Observable<Step> {
  const lastTurn = run.turnContext(message, batch.messages);
  const hook = run.config.finishTurn;
  const decided = (decision: AgentTurnDecision | undefined | void): Observable<Step> =>
    concat(
      run.emitter.one({ type: "turn_end", message, toolResults: batch.messages }),
      defer(() => {
        if (decision && decision.action === "end") return endRun(run);
        const explicitContinue = decision?.action === "continue";
        return pollSteering(run, false, (steering) => {
          if (hasMoreToolCalls || steering.length > 0) return of(new NextTurn(steering, lastTurn));
          // The run would stop here: the outer loop asks for follow-up.
          return pollFollowUp(run, (followUp) => {
            if (followUp.length > 0) return of(new NextTurn(followUp, lastTurn));
            if (explicitContinue) return of(new NextTurn([], lastTurn));
            return endRun(run);
          });
        });
      }),
    );
  if (!hook) return decided(undefined);
  return defer(() => thenMaybe(hook(lastTurn, run.signal), decided));
}

function endRun(run: Run): Observable<Step> {
  return run.emitter.one({ type: "agent_end", messages: run.newMessages });
}

/**
 * Which brackets are open, so a failure can close them (SPEC A6, and the reliability
 * invariants): the run, the turn, an assistant message, the tool calls still without results.
 */
class RunTracker {
  constructor(private readonly commit: (message: AgentMessage) => void) {}
  started = false;
  ended = false;
  turnOpen = false;
  openMessage: AgentMessage | undefined;
  lastAssistant: AssistantMessage | undefined;
  readonly answered = new Set<string>();
  readonly executing = new Set<string>();

  track(event: AgentEvent): void {
    switch (event.type) {
      case "agent_start":
        this.started = true;
        return;
      case "agent_end":
        this.ended = true;
        return;
      case "turn_start":
        this.turnOpen = true;
        return;
      case "turn_end":
        this.turnOpen = false;
        return;
      case "message_start":
        this.openMessage = event.message;
        return;
      case "message_update":
        this.openMessage = event.message;
        return;
      case "tool_execution_start":
        this.executing.add(event.toolCallId);
        return;
      case "tool_execution_end":
        this.executing.delete(event.toolCallId);
        return;
      case "message_end": {
        this.openMessage = undefined;
        this.commit(event.message);
        const message = event.message as Message;
        if (message.role === "assistant") {
          this.lastAssistant = message;
          this.answered.clear();
        } else if (message.role === "toolResult") this.answered.add(message.toolCallId);
        return;
      }
      default:
        return;
    }
  }

  /** Tool calls of the last assistant message that have no result message yet. */
  unanswered(): ToolCall[] {
    // An error or aborted message's calls never run and get no results (SPEC L6 hard exit);
    // answering them when a later hook fails would put results after a failed message (issue 7).
    const stop = this.lastAssistant?.stopReason;
    if (stop === "error" || stop === "aborted") return [];
    const calls = this.lastAssistant?.content.filter((block): block is ToolCall => block.type === "toolCall") ?? [];
    return calls.filter((call) => !this.answered.has(call.id));
  }
}

/**
 * A hook, listener or `convertToLlm` threw: close what is open and end the run cleanly with an
 * `error` (or `aborted`) assistant message. Committed messages stay; tool calls left without a
 * result get one, so the transcript stays valid for the next request. Listener failures while
 * reporting the failure are ignored.
 */
function failure(run: Run, error: unknown): Observable<AgentEvent> {
  const { tracker } = run;
  if (tracker.ended) return EMPTY;
  const userEmit = run.input.emit;
  const quiet = new Emitter(
    userEmit
      ? (event) => {
          try {
            const result = userEmit(event);
            // Waited on through rxjs, never `Promise.resolve`: a real promise of our own would
            // leave virtual time (SPEC L12; issue 7: a failing run never ended under TestScheduler).
            return settled(result)?.pipe(catchError(() => EMPTY));
          } catch {
            return undefined;
          }
        }
      : undefined,
  );
  const reason = describeError(error);
  const events: AgentEvent[] = [];
  if (!tracker.started) events.push({ type: "agent_start" });
  if (!tracker.turnOpen) events.push({ type: "turn_start" });
  const open = tracker.openMessage as Message | undefined;
  if (open && open.role !== "assistant") {
    // A message whose start was seen is committed by its end.
    events.push({ type: "message_end", message: open });
    run.append(open);
    if (open.role === "toolResult") tracker.answered.add(open.toolCallId);
  }
  const now = run.now();
  const toolResults: ToolResultMessage[] = [];
  for (const call of open?.role === "assistant" ? [] : tracker.unanswered()) {
    const outcome = { toolCall: call, result: errorToolResult(`Tool call not completed: the run failed (${reason}).`), isError: true };
    const message = toolResultMessage(outcome, now);
    toolResults.push(message);
    run.append(message);
    if (tracker.executing.has(call.id)) {
      events.push({ type: "tool_execution_end", toolCallId: call.id, toolName: call.name, result: outcome.result, isError: true });
    }
    events.push({ type: "message_start", message }, { type: "message_end", message });
  }
  // Polled or prepared messages that never reached their turn are kept, after the batch's results.
  for (const message of run.waiting.slice()) {
    run.append(message);
    events.push({ type: "message_start", message }, { type: "message_end", message });
  }
  const aborted = run.signal.aborted && !(run.signal.reason === error);
  const partial = open?.role === "assistant" ? open : undefined;
  const failed = failedAssistantMessage(run.config.model, reason, aborted ? "aborted" : "error", now, partial);
  run.append(failed);
  if (!partial) events.push({ type: "message_start", message: failed });
  events.push({ type: "message_end", message: failed }, { type: "turn_end", message: failed, toolResults }, { type: "agent_end", messages: run.newMessages });
  return quiet.all(events);
}
