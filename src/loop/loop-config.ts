/**
 * What one run of the loop is configured with: the model, the queues and the hooks (SPEC L3,
 * L6, L7, L8), and the list of the keys the loop reads itself.
 *
 * @module
 */
import type { Observable, SchedulerLike } from "rxjs";
import type { AssistantMessage, Message, Model, ProviderOptions, ThinkingLevel, ToolResultMessage } from "../model/messages.js";
import type { AgentContext, AgentMessage, LimitReached } from "../model/types.js";
import type { MaybeAsync } from "../rx/maybe-async.js";
import type { ToolApprovalDecision, ToolApprovalRequest, ToolExecutionMode, ToolHooks } from "../model/tool-types.js";
import type { RunLimits } from "../model/run-limits.js";
import type { RunControl } from "../tools/run-control-port.js";
import type { ArgumentValidator } from "../model/argument-validator.js";

/** How many queued messages one poll takes: the oldest only, or all of them. */
export type QueueMode = "all" | "one-at-a-time";

/** A finished turn, as `finishTurn` and `prepareNextTurn` see it. */
export interface AgentTurnContext {
  message: AssistantMessage;
  toolResults: ToolResultMessage[];
  context: AgentContext;
  /** What this run would return if it ended now. */
  newMessages: AgentMessage[];
}

/** `continue` guarantees one more request; `end` ends the run (SPEC L6, L8). */
export type AgentTurnDecision = { action: "continue" } | { action: "end" };

/** What `prepareRequest` sees. */
export interface PrepareRequestContext {
  context: AgentContext;
  model: Model;
  thinkingLevel: ThinkingLevel;
}

/** Replacements for this and later requests of the run. */
export interface AgentRequestUpdate {
  context?: AgentContext | undefined;
  model?: Model | undefined;
  thinkingLevel?: ThinkingLevel | undefined;
}

/** Replacements before the next turn, plus messages to append to it. */
export interface AgentLoopTurnUpdate extends AgentRequestUpdate {
  messages?: AgentMessage[] | undefined;
}
/**
 * Configuration of one run of the loop. Besides the hooks, every field of
 * {@link ProviderOptions} (`reasoning`, `apiKey`, `sessionId`, ...) is passed to the provider.
 */
export interface AgentLoopConfig extends ToolHooks, ProviderOptions {
  model: Model;
  /**
   * App messages → model messages, before every request (SPEC M2). Defaults to keeping the
   * four model roles, memoized over the append-only transcript (SPEC L4b).
   */
  convertToLlm?: ((messages: AgentMessage[]) => MaybeAsync<Message[]>) | undefined;
  /** Rewrites the app-level view before `convertToLlm` (pruning, injection). */
  transformContext?: ((messages: AgentMessage[], signal: AbortSignal) => MaybeAsync<AgentMessage[]>) | undefined;
  /** An API key per request, for expiring tokens. */
  getApiKey?: ((provider: string) => MaybeAsync<string | undefined>) | undefined;
  /** Steering: polled at run start, after each turn, and after `prepareNextTurn` (SPEC L7). */
  getSteeringMessages?: (() => MaybeAsync<AgentMessage[]>) | undefined;
  /** Follow-up: polled only when the run would otherwise stop (SPEC L7). */
  getFollowUpMessages?: (() => MaybeAsync<AgentMessage[]>) | undefined;
  /**
   * Steering as a stream (Q1): the run subscribes at its start, buffers what arrives and takes
   * from the buffer at the steering poll points, `steeringMode` messages at a time. Not with
   * `getSteeringMessages`.
   */
  steering$?: Observable<AgentMessage> | undefined;
  /** Follow-up as a stream (Q1), taken where follow-up is polled. Not with `getFollowUpMessages`. */
  followUp$?: Observable<AgentMessage> | undefined;
  /** How a poll drains `steering$`: the oldest message (default) or all of them. */
  steeringMode?: QueueMode | undefined;
  /** How a poll drains `followUp$`: the oldest message (default) or all of them. */
  followUpMode?: QueueMode | undefined;
  /** Default `parallel` (SPEC T4). */
  toolExecution?: ToolExecutionMode | undefined;
  /** The most calls of a parallel batch that execute at once (SPEC R3); unbounded when absent. */
  maxConcurrency?: number | undefined;
  /**
   * Answers the calls that need approval (SPEC R1): called once per such call, with the run's
   * signal; the call waits for the decision (a value, a promise, or an Observable's last value)
   * while the other calls of its batch go on. The `Agent` answers with `approve()` / `deny()`.
   * A call that needs approval in a run without this gets an error result.
   */
  requestApproval?: ((request: ToolApprovalRequest, signal: AbortSignal) => MaybeAsync<ToolApprovalDecision>) | undefined;
  /** Budgets and breakers (SPEC R2). */
  limits?: RunLimits | undefined;
  /**
   * Approvals, limits and scheduling (SPEC R1–R3, R6): built in; this replaces the built-in
   * `runControl`.
   */
  runControl?: RunControl | undefined;
  /**
   * Told the moment a limit ends the run (SPEC R2), before `agent_end`: with the time limit as
   * the run is aborted, with the others after the turn. The `Agent` journals it.
   */
  onLimitReached?: ((limit: LimitReached) => void) | undefined;
  /**
   * Whether the poll callbacks (`getSteeringMessages`, `getFollowUpMessages`) have messages
   * waiting, without taking them: a run a budget ends then says so in `agent_end.limit` although
   * it had no tool calls (SPEC R2). The `Agent` passes its own.
   */
  hasQueuedMessages?: (() => boolean) | undefined;
  /**
   * After an abort, how long a promise tool that has not settled is waited for (ms on the loop's
   * scheduler) before its call is answered "Operation aborted" and reported `ignored` (SPEC R4).
   * Absent: the run waits for it, as pi does.
   */
  abortGraceMs?: number | undefined;
  /**
   * Checks tool arguments (SPEC T2) for tools without a `validator` of their own. Default
   * `interpretingValidator` (no `eval`); `ajvValidator` is the fastest per call.
   */
  validator?: ArgumentValidator | undefined;
  /** Before every request, pending messages already appended. */
  prepareRequest?: ((request: PrepareRequestContext, signal: AbortSignal) => MaybeAsync<AgentRequestUpdate | undefined | void>) | undefined;
  /** After `turn_end` when the run goes on, before the next `turn_start`. */
  prepareNextTurn?: ((turn: AgentTurnContext, signal: AbortSignal) => MaybeAsync<AgentLoopTurnUpdate | undefined | void>) | undefined;
  /**
   * After a turn's tool results, before `turn_end` (SPEC L6, L8): `{ action: "end" }` ends the run,
   * `{ action: "continue" }` asks the model once more if nothing else does; any other value is no decision.
   */
  finishTurn?: ((turn: AgentTurnContext, signal: AbortSignal) => MaybeAsync<AgentTurnDecision | undefined | void>) | undefined;
  /**
   * Clock for timestamps and durations, and the scheduler handed to providers. Pass the
   * `TestScheduler` in marble tests for deterministic timestamps.
   */
  scheduler?: SchedulerLike | undefined;
}


/**
 * The hooks of a run, in the order of a turn (SPEC L3, T2). The `Agent` takes these names as
 * options and properties and forwards them; {@link LoopHooks} is derived from this list.
 */
export const LOOP_HOOKS = [
  "prepareRequest",
  "transformContext",
  "convertToLlm",
  "getApiKey",
  "beforeToolCall",
  "afterToolCall",
  "finishTurn",
  "prepareNextTurn",
] as const;

/** The name of a hook in {@link LOOP_HOOKS}. */
export type LoopHookName = (typeof LOOP_HOOKS)[number];

/** The hooks of {@link AgentLoopConfig}, as {@link LOOP_HOOKS} names them. */
export type LoopHooks = Pick<AgentLoopConfig, LoopHookName>;

/**
 * Every key of {@link AgentLoopConfig} the loop reads itself. The provider gets all the others
 * (SPEC M3): `reasoning`, `apiKey`, `sessionId`, `scheduler`, and any option of its own.
 */
export const LOOP_KEYS = [
  ...LOOP_HOOKS,
  "model",
  "toolExecution",
  "maxConcurrency",
  "requestApproval",
  "limits",
  "runControl",
  "onLimitReached",
  "hasQueuedMessages",
  "abortGraceMs",
  "validator",
  "getSteeringMessages",
  "getFollowUpMessages",
  "steering$",
  "followUp$",
  "steeringMode",
  "followUpMode",
] as const satisfies readonly (keyof AgentLoopConfig)[];

/** The name of a key in {@link LOOP_KEYS}. */
export type LoopKey = (typeof LOOP_KEYS)[number];

const LOOP_KEY_SET: ReadonlySet<string> = new Set(LOOP_KEYS);

/** Whether `key` is one of {@link LOOP_KEYS}: read by the loop, not passed to the provider. */
export function isLoopKey(key: string): boolean {
  return LOOP_KEY_SET.has(key);
}

export type { AgentEmit } from "../engine/emitter.js";
