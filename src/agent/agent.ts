/**
 * The stateful shell around the loop (SPEC A1–A7): it owns the transcript, runs one prompt at
 * a time, queues steering and follow-up, awaits its listeners as a barrier, and exposes the
 * same run as promises, listeners and Observables.
 *
 * @module
 */
import { concat, defer, isObservable, map, Observable, Subject, type SchedulerLike, type Subscription } from "rxjs";
import { assertCanContinue, runAgentLoop } from "../loop/agent-loop.js";
import { type AgentLoopConfig, LOOP_HOOKS, type LoopHooks, type QueueMode } from "../loop/loop-config.js";
import { MessageQueue } from "../loop/message-queue.js";
import { describeError } from "../model/describe-error.js";
import type { ImageContent, StreamFn, TextContent, ThinkingBudgets, UserMessage } from "../model/messages.js";
import { getCurrentSystemMessage } from "../model/transcript.js";
import type { AgentEvent, AgentMessage } from "../model/types.js";
import { Failure } from "../rx/maybe-async.js";
import type { ToolExecutionMode } from "../tools/tool-types.js";
import { AgentStateStore, type AgentInitialState, type AgentState, type AgentStateSnapshot } from "./agent-state.js";
import { type AgentListener, ListenerBarrier } from "./listener-barrier.js";

export type { AgentListener } from "./listener-barrier.js";

/** Options of `new Agent(...)`, named as in pi-agent-core (SPEC A1); the hooks are {@link LOOP_HOOKS}. */
export interface AgentOptions extends LoopHooks {
  initialState?: AgentInitialState;
  /** The provider. Required before the first run. */
  streamFn?: StreamFn;
  steeringMode?: QueueMode;
  followUpMode?: QueueMode;
  toolExecution?: ToolExecutionMode;
  sessionId?: string;
  thinkingBudgets?: ThinkingBudgets;
  /** Clock and scheduler of the runs; pass a `TestScheduler` in marble tests. */
  scheduler?: SchedulerLike;
}

/** What `prompt()` accepts: text (with images), one message, or several. */
export type PromptInput = string | AgentMessage | AgentMessage[];

interface ActiveRun {
  controller: AbortController;
  idle: Promise<void>;
  resolveIdle: () => void;
  events: Subject<AgentEvent>;
  subscription?: Subscription;
}

// The hooks, as properties: declared by merging with the list they come from (LOOP_HOOKS).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface Agent extends LoopHooks {}

/**
 * A stateful agent: `prompt()` runs the loop over its transcript, listeners are awaited, and
 * the state is reduced from the events.
 *
 * @example
 * ```ts
 * const agent = new Agent({ initialState: { systemPrompt: "Be brief.", model, tools }, streamFn });
 * agent.subscribe((event) => { if (event.type === "message_update") render(event.message); });
 * await agent.prompt("What is the weather in Oslo?");
 * agent.state.messages; // the whole transcript
 * ```
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class Agent {
  streamFn: StreamFn | undefined;
  toolExecution: ToolExecutionMode;
  sessionId: string | undefined;
  thinkingBudgets: ThinkingBudgets | undefined;
  scheduler: SchedulerLike | undefined;

  private readonly store: AgentStateStore;
  private readonly listeners = new ListenerBarrier();
  /** `steer()` and `followUp()` are `next`s on these; the queues buffer them for the runs (Q4). */
  private readonly steering = new Subject<AgentMessage>();
  private readonly followUps = new Subject<AgentMessage>();
  private readonly steeringQueue: MessageQueue;
  private readonly followUpQueue: MessageQueue;
  private readonly changes = new Subject<void>();
  private readonly allEvents = new Subject<AgentEvent>();
  private activeRun: ActiveRun | undefined;

  /**
   * Every event of every run, as it happens (hot). Subscribe before `prompt()` to see a run
   * from `agent_start`.
   */
  readonly events$: Observable<AgentEvent> = this.allEvents.asObservable();

  /**
   * The state now, then after every change, as frozen snapshots (SPEC A7). Works with
   * Angular's `async` pipe and `toSignal`.
   */
  readonly state$: Observable<AgentStateSnapshot> = defer(() =>
    concat(
      [this.store.snapshot()],
      new Observable<AgentStateSnapshot>((subscriber) => this.changes.subscribe(() => subscriber.next(this.store.snapshot()))),
    ),
  );

  constructor(options: AgentOptions = {}) {
    this.store = new AgentStateStore(options.initialState, () => this.changes.next());
    for (const hook of LOOP_HOOKS) (this as LoopHooks as Record<string, unknown>)[hook] = options[hook];
    this.streamFn = options.streamFn;
    this.toolExecution = options.toolExecution ?? "parallel";
    this.sessionId = options.sessionId;
    this.thinkingBudgets = options.thinkingBudgets;
    this.scheduler = options.scheduler;
    this.steeringQueue = new MessageQueue(options.steeringMode ?? "one-at-a-time");
    this.followUpQueue = new MessageQueue(options.followUpMode ?? "one-at-a-time");
    this.steeringQueue.feed(this.steering);
    this.followUpQueue.feed(this.followUps);
  }

  /** The current state. Assigning `messages` or `tools` copies the array. */
  get state(): AgentState {
    return this.store;
  }

  /** How a steering poll drains the queue. */
  get steeringMode(): QueueMode {
    return this.steeringQueue.mode;
  }
  set steeringMode(mode: QueueMode) {
    this.steeringQueue.mode = mode;
  }

  /** How a follow-up poll drains the queue. */
  get followUpMode(): QueueMode {
    return this.followUpQueue.mode;
  }
  set followUpMode(mode: QueueMode) {
    this.followUpQueue.mode = mode;
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
    this.steering.next(this.toMessage(message));
  }

  /** Queues a message for when the agent would otherwise stop. */
  followUp(message: AgentMessage | string): void {
    this.followUps.next(this.toMessage(message));
  }

  /**
   * Routes a stream into steering (Q4): every message it emits is queued as `steer()` would
   * queue it, until the returned subscription is unsubscribed. Coalescing a burst is an operator
   * on the way in (`debounceTime`, `bufferTime`), not an option here.
   *
   * @example
   * ```ts
   * const typing = agent.steerFrom(input$.pipe(debounceTime(500)));
   * // later: typing.unsubscribe();
   * ```
   */
  steerFrom(messages: Observable<AgentMessage | string>): Subscription {
    return messages.pipe(map((message) => this.toMessage(message))).subscribe((message) => this.steering.next(message));
  }

  /** Routes a stream into follow-up (Q4), like {@link Agent.steerFrom}. */
  followUpFrom(messages: Observable<AgentMessage | string>): Subscription {
    return messages.pipe(map((message) => this.toMessage(message))).subscribe((message) => this.followUps.next(message));
  }

  clearSteeringQueue(): void {
    this.steeringQueue.clear();
  }

  clearFollowUpQueue(): void {
    this.followUpQueue.clear();
  }

  clearAllQueues(): void {
    this.clearSteeringQueue();
    this.clearFollowUpQueue();
  }

  /** Whether either queue holds a message. */
  hasQueuedMessages(): boolean {
    return this.steeringQueue.size > 0 || this.followUpQueue.size > 0;
  }

  /** What the next poll would take: steering first, else follow-up. */
  peekQueuedMessages(): AgentMessage[] {
    const steering = this.steeringQueue.peek();
    return steering.length > 0 ? steering : this.followUpQueue.peek();
  }

  /** The AbortSignal of the current run, if one is active. */
  get signal(): AbortSignal | undefined {
    return this.activeRun?.controller.signal;
  }

  /** Aborts the current run: it ends with an `aborted` assistant message (SPEC L10). */
  abort(): void {
    this.activeRun?.controller.abort();
  }

  /** Resolves when no run is active, after the last run's `agent_end` listeners settled. */
  waitForIdle(): Promise<void> {
    return this.activeRun?.idle ?? Promise.resolve();
  }

  /** Clears the transcript (keeping the replayed system baseline), the queues and the error. */
  reset(): void {
    if (this.activeRun) throw new Error("Agent is already processing. Wait for completion before resetting.");
    const baseline = getCurrentSystemMessage(this.store.transcript);
    this.clearAllQueues();
    this.store.reset(baseline ? [baseline] : []);
  }

  /**
   * Runs the loop with new input; resolves after the run's `agent_end` listeners settled.
   * Rejects while a run is active: use `steer()` or `followUp()` then.
   */
  prompt(input: PromptInput, images?: ImageContent[]): Promise<void> {
    return this.untilDone(() => this.prompt$(input, images));
  }

  /**
   * Continues from the transcript (SPEC A3): after a user or tool-result message it asks the
   * model again; after an assistant message it runs one queued steering batch, else one
   * follow-up batch, else rejects.
   */
  continue(): Promise<void> {
    return this.untilDone(() => this.continue$());
  }

  /**
   * The Observable way to run a prompt (SPEC A7): subscribing starts the run, the run's events
   * arrive as they happen, it completes when the agent is idle again, and unsubscribing aborts
   * the run. Errors at once when a run is already active.
   */
  prompt$(input: PromptInput, images?: ImageContent[]): Observable<AgentEvent> {
    return defer(() => {
      if (this.activeRun) throw new Error("Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion.");
      const messages = this.normalizePrompt(input, images);
      if (messages.length === 0) throw new Error("prompt() needs at least one message.");
      return this.run({ prompts: messages });
    });
  }

  /** {@link Agent.continue} as an Observable, like {@link Agent.prompt$}. */
  continue$(): Observable<AgentEvent> {
    return defer(() => {
      if (this.activeRun) throw new Error("Agent is already processing. Wait for completion before continuing.");
      const messages = this.store.transcript;
      const last = messages[messages.length - 1] as { role?: string } | undefined;
      if (!last || messages.every((m) => (m as { role?: string }).role === "system")) throw new Error("No messages to continue from");
      if (last.role === "assistant") {
        // Taken from a queue only once the run exists: a run that cannot start (no streamFn) loses nothing.
        const steering = this.steeringQueue.peek();
        if (steering.length > 0) return this.takeAndRun(this.steeringQueue, this.run({ prompts: steering, skipInitialSteeringPoll: true }));
        const followUp = this.followUpQueue.peek();
        if (followUp.length > 0) return this.takeAndRun(this.followUpQueue, this.run({ prompts: followUp }));
        throw new Error("Cannot continue from message role: assistant");
      }
      assertCanContinue(messages);
      return this.run({});
    });
  }

  /** Drains what `queue.peek()` showed (the run's prompts), then hands back the run. */
  private takeAndRun(queue: MessageQueue, run: Observable<AgentEvent>): Observable<AgentEvent> {
    queue.drain();
    return run;
  }

  private untilDone(start: () => Observable<AgentEvent>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      start().subscribe({ error: reject, complete: resolve });
    });
  }

  private toMessage(message: AgentMessage | string): AgentMessage {
    return typeof message === "string" ? this.userMessage(message) : message;
  }

  private userMessage(text: string, images: ImageContent[] = []): UserMessage {
    const content: (TextContent | ImageContent)[] = [{ type: "text", text }, ...images];
    return { role: "user", content, timestamp: this.now() };
  }

  private normalizePrompt(input: PromptInput, images?: ImageContent[]): AgentMessage[] {
    if (typeof input === "string") return [this.userMessage(input, images)];
    if (Array.isArray(input)) return input.slice();
    if (input === null || typeof input !== "object") throw new TypeError("prompt() takes text, a message, or an array of messages.");
    return [input];
  }

  private now(): number {
    return this.scheduler ? this.scheduler.now() : Date.now();
  }

  private loopConfig(): AgentLoopConfig {
    const config: AgentLoopConfig = {
      model: this.store.model,
      toolExecution: this.toolExecution,
      getSteeringMessages: () => this.steeringQueue.drain(),
      getFollowUpMessages: () => this.followUpQueue.drain(),
    };
    if (this.store.thinkingLevel !== "off") config.reasoning = this.store.thinkingLevel;
    if (this.sessionId !== undefined) config.sessionId = this.sessionId;
    if (this.thinkingBudgets !== undefined) config.thinkingBudgets = this.thinkingBudgets;
    if (this.scheduler !== undefined) config.scheduler = this.scheduler;
    for (const hook of LOOP_HOOKS) if (this[hook]) (config as unknown as Record<string, unknown>)[hook] = this[hook];
    return config;
  }

  /** One run, owned by the Agent: a subscriber leaving only aborts it, the run still settles. */
  private run(plan: { prompts?: AgentMessage[]; skipInitialSteeringPoll?: boolean }): Observable<AgentEvent> {
    const streamFn = this.streamFn;
    if (!streamFn) throw new Error("The Agent has no streamFn: pass one in the options or assign agent.streamFn.");
    const events = new Subject<AgentEvent>();
    let resolveIdle!: () => void;
    const idle = new Promise<void>((resolve) => (resolveIdle = resolve));
    const run: ActiveRun = { controller: new AbortController(), idle, resolveIdle, events };
    return new Observable<AgentEvent>((subscriber) => {
      const forwarding = events.subscribe(subscriber);
      // Registered before the run begins: a subscriber that leaves inside `next` while a
      // synchronous run is still in `begin` aborts it there, not after it ran to the end (issue 7).
      subscriber.add(() => {
        forwarding.unsubscribe();
        if (this.activeRun === run) run.controller.abort();
      });
      this.begin(run, streamFn, plan);
    });
  }

  private begin(run: ActiveRun, streamFn: StreamFn, plan: { prompts?: AgentMessage[]; skipInitialSteeringPoll?: boolean }): void {
    this.activeRun = run;
    this.store.beginRun();
    const loop = runAgentLoop({
      prompts: plan.prompts,
      context: { messages: this.store.transcript.slice(), tools: this.store.tools.slice() },
      config: this.loopConfig(),
      signal: run.controller.signal,
      streamFn,
      emit: (event) => this.process(event, run),
      skipInitialSteeringPoll: plan.skipInitialSteeringPoll,
    });
    run.subscription = loop.subscribe({
      next: (event) => run.events.next(event),
      // The loop normalizes failures itself (SPEC A6); an error here is a bug, reported as the run's error.
      error: (error) => {
        this.store.errorMessage = describeError(error);
        this.finish(run);
      },
      complete: () => this.finish(run),
    });
  }

  /**
   * Reduce first, then tell `events$`, then await the listeners in order (SPEC A4, A5). The first
   * listener failure fails the run (SPEC A6) once every listener has seen the event; after
   * `agent_end` the run is over, so a failure there is recorded in `errorMessage` instead.
   */
  private process(event: AgentEvent, run: ActiveRun): void | Observable<unknown> {
    this.store.reduce(event);
    this.allEvents.next(event);
    const outcome = this.listeners.notify(event, run.controller.signal);
    const settle = event.type === "agent_end" ? (failed: Failure | undefined) => this.recordEndFailure(failed) : throwFailure;
    if (!isObservable(outcome)) return settle(outcome);
    return outcome.pipe(map(settle));
  }

  private recordEndFailure(failed: Failure | undefined): void {
    if (failed) this.store.errorMessage = `A listener failed on agent_end: ${describeError(failed.error)}`;
  }

  private finish(run: ActiveRun): void {
    if (this.activeRun !== run) return;
    this.activeRun = undefined;
    this.store.endRun();
    run.events.complete();
    run.resolveIdle();
  }
}

function throwFailure(failed: Failure | undefined): void {
  if (failed) throw failed.error;
}
