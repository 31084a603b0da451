/**
 * What an `Agent` holds between runs (SPEC A1, A2, A5, A7): its settings as properties, its
 * state and the ways to observe it (`state$`, `usage$`, `events$`, listeners), and its steering
 * and follow-up queues. `Agent` (`agent-core.ts`) adds what starts, answers and journals runs.
 *
 * @module
 */
import { defer, distinctUntilChanged, map, type Observable, type SchedulerLike, type Subscription } from "rxjs";
import { checkRunOptions } from "../loop/agent-loop.js";
import { LOOP_HOOKS, type LoopHooks, type QueueMode } from "../loop/loop-config.js";
import type { RunLimits } from "../model/run-limits.js";
import type { RunControl } from "../tools/run-control-port.js";
import { runControl } from "../run-control/run-control.js";
import type { StreamFn, ThinkingBudgets, Usage } from "../model/messages.js";
import type { AgentEvent, AgentMessage } from "../model/types.js";
import type { ToolExecutionMode } from "../model/tool-types.js";
import type { ArgumentValidator } from "../model/argument-validator.js";
import type { AgentOptions } from "./agent-options.js";
import { AgentQueues } from "./agent-queues.js";
import { AgentRunner } from "./agent-runner.js";
import { AgentStateStore, type AgentState, type AgentStateSnapshot } from "./agent-state.js";
import { type AgentListener, ListenerBarrier } from "./listener-barrier.js";
import { toMessage } from "./prompt-input.js";
import type { AgentSession } from "./session-port.js";

// The hooks, as properties: declared by merging with the list they come from (LOOP_HOOKS).
export interface AgentBase extends LoopHooks {}

/** The settings, state, listeners and queues of an `Agent`, which extends this with its runs. */
export abstract class AgentBase {
  streamFn: StreamFn | undefined;
  toolExecution: ToolExecutionMode;
  sessionId: string | undefined;
  thinkingBudgets: ThinkingBudgets | undefined;
  temperature: number | undefined;
  maxTokens: number | undefined;
  providerOptions: Record<string, unknown> | undefined;
  validator: ArgumentValidator | undefined;
  limits: RunLimits | undefined;
  runControl: RunControl | undefined;
  maxConcurrency: number | undefined;
  abortGraceMs: number | undefined;

  /** @internal */
  protected readonly store: AgentStateStore;
  /** @internal */
  protected readonly queues: AgentQueues;
  /** @internal */
  protected readonly runner: AgentRunner;
  /** @internal */
  protected readonly session: AgentSession | undefined;
  private readonly listeners = new ListenerBarrier();

  // `state$` and `usage$` are made on first read (the same Observable on every read after): an
  // Agent that nobody observes holds neither.
  private stateStream: Observable<AgentStateSnapshot> | undefined;
  private usageStream: Observable<Usage> | undefined;

  /**
   * Every event of every run, as it happens (hot). Subscribe before `prompt()` to see a run
   * from `agent_start`.
   */
  get events$(): Observable<AgentEvent> {
    return this.runner.events$;
  }

  /**
   * The state now, then after every change, as frozen snapshots (SPEC A7). Works with
   * Angular's `async` pipe and `toSignal`.
   */
  get state$(): Observable<AgentStateSnapshot> {
    // The store's `scan`, as snapshots. The newest is read when a value reaches the subscriber:
    // one that acts inside a value (starts a run) makes later subscribers see the newer state
    // first, and the older one after it would take the transcript back; it is left out instead.
    return (this.stateStream ??= defer(() => this.store.states.pipe(map(() => this.store.snapshot()), distinctUntilChanged())));
  }

  /**
   * The usage totals (SPEC R5): now, then each time an assistant message adds to them.
   *
   * ```text
   * runs:    --a----a-----|   (a: an assistant message committed)
   * usage$:  u-u----u----     (u: the totals; never the same totals twice in a row)
   * ```
   */
  get usage$(): Observable<Usage> {
    return (this.usageStream ??= defer(() => this.state$.pipe(map((snapshot) => snapshot.usage), distinctUntilChanged())));
  }

  constructor(options: AgentOptions = {}) {
    this.store = new AgentStateStore(options.initialState);
    for (const hook of LOOP_HOOKS) (this as LoopHooks as Record<string, unknown>)[hook] = options[hook];
    this.streamFn = options.streamFn;
    this.toolExecution = options.toolExecution ?? "parallel";
    this.sessionId = options.sessionId;
    this.thinkingBudgets = options.thinkingBudgets;
    this.temperature = options.temperature;
    this.maxTokens = options.maxTokens;
    this.providerOptions = options.providerOptions;
    this.validator = options.validator;
    this.scheduler = options.scheduler;
    this.limits = options.limits;
    this.runControl = options.runControl;
    this.maxConcurrency = options.maxConcurrency;
    this.abortGraceMs = options.abortGraceMs;
    checkRunOptions(options, this.control());
    const session = options.session;
    if (session !== undefined && typeof (session as Partial<AgentSession> | null)?.resume$ !== "function") {
      throw new TypeError('session must be built by agentSession() from "rxagent/session": `session: agentSession({ store, id })`.');
    }
    this.session = session;
    this.runner = new AgentRunner(this.store, this.listeners);
    this.queues = new AgentQueues(options.steeringMode ?? "one-at-a-time", options.followUpMode ?? "one-at-a-time", this.store);
  }

  /** Clock and scheduler of the runs (a `TestScheduler` in marble tests); `Date.now` when unset. */
  get scheduler(): SchedulerLike | undefined {
    return this.store.scheduler;
  }
  set scheduler(scheduler: SchedulerLike | undefined) {
    this.store.scheduler = scheduler;
  }

  /** The current state. Assigning `messages` or `tools` copies the array. */
  get state(): AgentState {
    return this.store;
  }

  /** How a steering poll drains the queue. */
  get steeringMode(): QueueMode {
    return this.queues.steering.mode;
  }
  set steeringMode(mode: QueueMode) {
    this.queues.steering.mode = mode;
  }

  /** How a follow-up poll drains the queue. */
  get followUpMode(): QueueMode {
    return this.queues.followUp.mode;
  }
  set followUpMode(mode: QueueMode) {
    this.queues.followUp.mode = mode;
  }

  /**
   * Adds a listener, awaited in registration order on every event (SPEC A5).
   * @return A function that removes it.
   */
  subscribe(listener: AgentListener): () => void {
    return this.listeners.add(listener);
  }

  /** Queues a message for after the current turn (never inside a tool batch). */
  steer(message: AgentMessage | string): void {
    this.queues.steer(this.toMessage(message));
  }

  /** Queues a message for when the agent would otherwise stop. */
  followUp(message: AgentMessage | string): void {
    this.queues.queueFollowUp(this.toMessage(message));
  }

  /**
   * Routes a stream into steering (Q4): every message it emits is queued as `steer()` would
   * queue it, until the returned subscription is unsubscribed. Coalescing a burst is an operator
   * on the way in (`debounceTime`, `bufferTime`), not an option here. A stream that errors stops
   * routing; its error is in `state.errorMessage`, and `state.outcome` is `failed` when no run
   * goes then (SPEC A9; the messages it had sent stay queued).
   *
   * @example
   * ```ts
   * const typing = agent.steerFrom(input$.pipe(debounceTime(500)));
   * // later: typing.unsubscribe();
   * ```
   */
  steerFrom(messages: Observable<AgentMessage | string>): Subscription {
    return this.queues.steerFrom(messages.pipe(map((message) => this.toMessage(message))));
  }

  /** Routes a stream into follow-up (Q4), like {@link Agent.steerFrom}. */
  followUpFrom(messages: Observable<AgentMessage | string>): Subscription {
    return this.queues.followUpFrom(messages.pipe(map((message) => this.toMessage(message))));
  }

  clearSteeringQueue(): void {
    this.queues.clearQueue("steering");
  }

  clearFollowUpQueue(): void {
    this.queues.clearQueue("followUp");
  }

  clearAllQueues(): void {
    this.queues.clear();
  }

  /** Whether either queue holds a message. */
  hasQueuedMessages(): boolean {
    return this.queues.hasMessages();
  }

  /** What the next poll would take: steering first, else follow-up. */
  peekQueuedMessages(): AgentMessage[] {
    return this.queues.peek();
  }

  /** The run control in use: `runControl`, else rxagent's. @internal */
  protected control(): RunControl {
    return this.runControl ?? runControl;
  }

  /** The time now, on the Agent's scheduler if it has one. @internal */
  protected now(): number {
    return this.store.now();
  }

  private toMessage(message: AgentMessage | string): AgentMessage {
    return toMessage(message, this.now());
  }
}
