/**
 * What one subscription to the loop owns: the transcript it appends to, the config hooks may
 * replace, the queues, the memo of converted messages, and the state its events describe.
 * State of a run lives here and nowhere else; the phases read it and hand their results on.
 *
 * @module
 */
import type { Observable } from "rxjs";
import type { AssistantMessage, StreamFn, StreamOptions, ThinkingLevel, ToolCall, ToolResultMessage } from "../model/messages.js";
import { IncrementalLlmMessages } from "../model/llm-context.js";
import { unwatched, WatchedTranscript } from "../model/watched-transcript.js";
import { ToolDeclarations } from "../model/tool-declarations.js";
import type { AgentContext, AgentEvent, AgentMessage, CallCancellation, LimitReached, RunOutcome, UntakenMessages } from "../model/types.js";
import type { Usage } from "../model/messages.js";
import { emptyUsage } from "../model/assistant-message.js";
import { addUsage, copyUsage } from "../model/usage-totals.js";
import type { CallAdmission } from "../tools/run-control-port.js";
import type { RunControl } from "../tools/run-control-port.js";
import { Emitter } from "../engine/emitter.js";
import { type AgentEmit, type AgentLoopConfig, type AgentRequestUpdate, type AgentTurnContext, isLoopKey } from "./loop-config.js";
import { QueuePoll } from "./queue-poll.js";
import { initialRunState, reduceRunState, repeatsUpdate, resumedRunState, type RunState } from "./run-state.js";
import type { ToolCallOutcome } from "../model/tool-types.js";
import type { ArgumentValidator } from "../model/argument-validator.js";
import { assertToolSet } from "../tools/tool-set.js";
import type { OneAtATime } from "../engine/one-at-a-time.js";

/** Input of `runAgentLoop`. */
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
  /** Open with the rest of a turn a stopped process left open, instead of a request (SPEC S5). */
  resume?: ResumedTurn;
}

/**
 * A turn to finish: its assistant message is the transcript's last assistant message, some of
 * its calls may have results already; the others run, unless `settled` decides them.
 */
export interface ResumedTurn {
  message: AssistantMessage;
  settled: ReadonlyMap<string, ToolCallOutcome>;
  /** Ids of the calls answered before the stop whose results asked the loop to stop (SPEC L6); none when absent. */
  terminated?: ReadonlySet<string>;
}

/** A run with its tool-argument validator and its run control decided: the config's, else rxagent's. */
export interface ValidatedLoopRun extends AgentLoopRun {
  validator: ArgumentValidator;
  /** Approvals, limits and scheduling (SPEC R1–R3). */
  control: RunControl;
  /**
   * The turn the run's events are told in (with `emit`): the Agent calls its later listeners in
   * it too, so none of them is called from inside its own call.
   */
  turn?: OneAtATime;
  /**
   * Told when a call's tool is about to execute, after preflight and approval; the tool is called
   * once what it returns completes (the Agent's session puts the moment on record, SPEC S5).
   * Internal: no event of the public union.
   */
  executing?: (toolCall: ToolCall) => void | Observable<unknown>;
}


/** The provider's share of the config: everything that is not read by the loop itself. */
function streamOptionsOf(config: AgentLoopConfig): StreamOptions {
  const options: StreamOptions = {};
  for (const key of Object.keys(config)) if (!isLoopKey(key)) options[key] = (config as unknown as Record<string, unknown>)[key];
  return options;
}

/** The tool results after `message` in `messages`, by tool call id: its calls already answered. */
export function resultsAfter(messages: readonly AgentMessage[], message: AssistantMessage): Map<string, ToolResultMessage> {
  const results = new Map<string, ToolResultMessage>();
  for (let i = messages.lastIndexOf(message) + 1; i < messages.length; i++) {
    const m = messages[i] as ToolResultMessage;
    if (m.role === "toolResult") results.set(m.toolCallId, m);
  }
  return results;
}

/** One run's state. */
export class Run {
  /** The context hooks see: `messages` is the watched view of the transcript (I2). */
  context: AgentContext;
  /** The transcript behind `context.messages`, and the count of writes hooks made to it. */
  private watched: WatchedTranscript;
  config: AgentLoopConfig;
  streamOptions: StreamOptions;
  /** What this run added to the transcript, for `agent_end`. */
  readonly newMessages: AgentMessage[] = [];
  readonly declarations = new ToolDeclarations();
  readonly llmMessages = new IncrementalLlmMessages();
  readonly now: () => number;
  readonly emitter: Emitter;
  readonly steering: QueuePoll;
  readonly followUp: QueuePoll;
  /** What the run's events so far say: open brackets, the streaming message, unanswered calls. */
  state: RunState = initialRunState;
  /**
   * Messages taken from the prompts, a queue poll or `prepareNextTurn` and not committed yet. A
   * failure commits them: a polled steering or follow-up message is never dropped.
   */
  waiting: AgentMessage[] = [];
  /** What this run's assistant messages used (SPEC R5). */
  readonly usage: Usage = emptyUsage();
  /** Model requests made so far (SPEC R2). */
  turns = 0;
  /** The run's call limits; absent when it has none (SPEC R2). */
  readonly budget: CallAdmission | undefined;
  /** The limit that ends this run, once one is reached (SPEC R2). */
  limit: LimitReached | undefined;
  /** What became of the calls an abort reached (SPEC R4). */
  cancellation: CallCancellation[] | undefined;
  /**
   * The run failed (SPEC A6, L15): it ended with the normalized failure of an error that was not
   * its abort's own, or a hard-exit answer failed it (`error`, or `aborted` nobody asked for).
   */
  failed = false;

  constructor(
    readonly input: ValidatedLoopRun,
    readonly signal: AbortSignal,
  ) {
    const { config } = input;
    this.watched = new WatchedTranscript(input.context.messages.slice());
    this.context = { ...input.context, messages: this.watched.view };
    this.config = config;
    this.streamOptions = streamOptionsOf(config);
    const scheduler = config.scheduler;
    this.now = scheduler ? () => scheduler.now() : Date.now;
    this.emitter = new Emitter(input.emit, "error", input.turn, input.executing);
    this.steering = new QueuePoll("getSteeringMessages", config.getSteeringMessages, config.steering$, config.steeringMode);
    this.followUp = new QueuePoll("getFollowUpMessages", config.getFollowUpMessages, config.followUp$, config.followUpMode);
    this.steering.start();
    this.followUp.start();
    this.budget = input.control.budget(config.limits);
    const resume = input.resume;
    if (resume) this.state = resumedRunState(resume.message, [...resultsAfter(this.watched.raw, resume.message).keys()]);
  }

  /** Every event on its way out: the state is reduced, and `message_end` commits its message. */
  observe(event: AgentEvent): void {
    // The rest is a method of its own, so this one stays small enough to inline into the per-delta path.
    if (!repeatsUpdate(this.state, event)) this.observeChange(event);
  }

  private observeChange(event: AgentEvent): void {
    this.state = reduceRunState(this.state, event);
    if (event.type === "message_end") {
      this.append(event.message);
      if (failedAnswer(event.message, this.signal)) this.failed = true;
    }
    else if (event.type === "tool_execution_end" && event.cancellation !== undefined) {
      (this.cancellation ??= []).push({ toolCallId: event.toolCallId, toolName: event.toolName, status: event.cancellation });
    }
  }

  /**
   * The transcript itself (not the hooks' view), re-watched when a hook put another array in its
   * place (`context.messages = …`).
   */
  transcript(): AgentMessage[] {
    const current = this.context.messages;
    if (current !== this.watched.view) this.watch(current);
    return this.watched.raw;
  }

  /** How many times hooks wrote to the transcript in place: a new count means convert afresh (I2). */
  get writes(): number {
    return this.watched.writes;
  }

  private watch(messages: AgentMessage[]): void {
    this.watched = new WatchedTranscript(unwatched(messages) as AgentMessage[]);
    this.context.messages = this.watched.view;
  }

  /** A message joins the transcript: at its `message_end`, or when a failure commits it. */
  append(message: AgentMessage): void {
    this.transcript().push(message);
    if ((message as { role?: string }).role === "assistant") addUsage(this.usage, (message as AssistantMessage).usage);
    this.newMessages.push(message);
    const index = this.waiting.indexOf(message);
    if (index >= 0) this.waiting.splice(index, 1);
  }

  /** Polled or prepared messages wait for their turn; a failure before it commits them. */
  took(messages: AgentMessage[]): AgentMessage[] {
    this.waiting.push(...messages);
    return messages;
  }

  /**
   * One poll of `queue`, then what `project` makes of it (as `concatMap` would): what it took
   * now waits for its turn. Synchronous when the poll is (SPEC L12).
   */
  poll<T>(queue: QueuePoll, project: (messages: AgentMessage[]) => Observable<T>): Observable<T> {
    return queue.take((messages) => project(this.took(messages)));
  }

  /** Replacements from `prepareRequest` or `prepareNextTurn`, for this and later requests. */
  update(update: AgentRequestUpdate): void {
    if (update.context) {
      // New tools get the checks the run's first ones got (SPEC T1): a mistake fails the run (A6).
      if (update.context.tools !== this.context.tools) {
        assertToolSet(update.context.tools, this.input.validator);
      }
      // A context of the hook's own: watched from now on (its array is the transcript, as in pi).
      this.context = { ...update.context };
      this.watch(update.context.messages);
    }
    // A context alone leaves the config object as it was given (a copy would drop inherited hooks).
    if (!update.model && update.thinkingLevel === undefined) return;
    const next: AgentLoopConfig = { ...this.config };
    if (update.model) next.model = update.model;
    if (update.thinkingLevel !== undefined) next.reasoning = update.thinkingLevel === "off" ? undefined : update.thinkingLevel;
    this.config = next;
    this.streamOptions = streamOptionsOf(next);
  }

  get thinkingLevel(): ThinkingLevel {
    return this.config.reasoning ?? "off";
  }

  turnContext(message: AssistantMessage, toolResults: ToolResultMessage[]): AgentTurnContext {
    return { message, toolResults, context: this.context, newMessages: this.newMessages };
  }

  /**
   * `agent_end`: the queue streams are unsubscribed, and what they sent that no poll took rides
   * on the event (Q3).
   */
  endEvent(): AgentEvent {
    const untaken = this.stopQueues();
    // A failure ends the run before a limit does: its limit is not reported.
    const limit = this.failed ? undefined : (this.limit ?? this.budget?.reached);
    const outcome = limit ? "limit" : this.outcome();
    const event: Extract<AgentEvent, { type: "agent_end" }> = { type: "agent_end", messages: this.newMessages, usage: copyUsage(this.usage), outcome };
    if (untaken) event.untaken = untaken;
    if (limit) event.limit = limit;
    if (this.cancellation) event.cancellation = this.cancellation;
    return event;
  }

  /**
   * How a run that no limit ended ended (SPEC L15): a failure (checked before the limit); else a
   * user's abort (the signal fired, whatever the answer said then); else it completed.
   */
  private outcome(): RunOutcome {
    if (this.failed) return "failed";
    return this.signal.aborted ? "aborted" : "completed";
  }

  /** Whether messages wait in the queues, without taking them (streams' buffers, or `hasQueuedMessages`). */
  hasQueued(): boolean {
    return this.steering.hasWaiting() || this.followUp.hasWaiting() || this.config.hasQueuedMessages?.() === true;
  }

  /** Unsubscribes the queue streams; what they held, or `undefined` when nothing. */
  stopQueues(): UntakenMessages | undefined {
    const steering = this.steering.stop();
    const followUp = this.followUp.stop();
    return steering.length > 0 || followUp.length > 0 ? { steering, followUp } : undefined;
  }
}

/**
 * Whether a committed message is a hard-exit answer that fails the run (SPEC L6, L15): `error`,
 * or `aborted` while the run's signal had not fired (the provider gave up unasked). Noted when
 * it is committed, so an abort or a time limit that comes later does not change what it was.
 */
function failedAnswer(message: AgentMessage, signal: AbortSignal): boolean {
  const { role, stopReason } = message as Partial<AssistantMessage>;
  return role === "assistant" && (stopReason === "error" || (stopReason === "aborted" && !signal.aborted));
}
