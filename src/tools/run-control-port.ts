/**
 * The seam between the loop and run control (SPEC R1–R3): approvals, budgets and breakers,
 * concurrency slots and keyed lanes. The loop knows only this interface; `runControl` brings the
 * code; a `runControl` in the options replaces it.
 *
 * @module
 */
import type { Observable, SchedulerLike, Subscription } from "rxjs";
import type { AssistantMessage, ToolCall, Usage } from "../model/messages.js";
import type { ArgumentValidator } from "../model/argument-validator.js";
import type { AgentEvent, LimitReached } from "../model/types.js";
import type { AgentContext, AgentTool, ToolCallOutcome, ToolHooks } from "../model/tool-types.js";
import type { Emitter } from "../engine/emitter.js";
import type { ToolApprovalDecision, ToolApprovalRequest } from "../model/tool-types.js";
import type { MaybeAsync } from "../rx/maybe-async.js";
import type { RunLimits } from "../model/run-limits.js";

/** The run-control options of a loop config (and of an Agent). */
export interface RunControlOptions {
  limits?: RunLimits | undefined;
  maxConcurrency?: number | undefined;
  requestApproval?: ((request: ToolApprovalRequest, signal: AbortSignal) => MaybeAsync<ToolApprovalDecision>) | undefined;
}

/** A run's call limits as a batch sees them (SPEC R2): each call is admitted or refused. */
export interface CallAdmission {
  /** Counts the call; the refusal the model reads when a limit refuses it, else `undefined`. */
  admit(call: ToolCall, args: unknown): string | undefined;
  /** The limit that ends the run once this turn is over, when one in "end" mode was reached. */
  readonly reached: LimitReached | undefined;
}

/** What a tool call runs against. */
export interface ToolCallEnvironment extends ToolHooks {
  tools: readonly AgentTool[];
  context: AgentContext;
  assistantMessage: AssistantMessage;
  signal: AbortSignal;
  /** Clock for durations and timestamps. */
  now: () => number;
  /** Checks arguments for tools without a `validator` of their own. */
  validator: ArgumentValidator;
  /** Where an Observable tool's standing progress is shown from (see `executeToolCall`); asap when absent. */
  scheduler?: SchedulerLike;
  /** Calls already decided, by id: they are not run, their outcome is this (a resumed turn, SPEC S5). */
  settled?: ReadonlyMap<string, ToolCallOutcome>;
  /** Answers calls that need approval (SPEC R1). */
  requestApproval?: (request: ToolApprovalRequest, signal: AbortSignal) => MaybeAsync<ToolApprovalDecision>;
  /** The most calls of a parallel batch executing at once (SPEC R3). */
  maxConcurrency?: number;
  /** Each call's time limit when its tool names none (SPEC R2). */
  toolTimeoutMs?: number;
  /** How long a promise tool is waited for after an abort (SPEC R4). */
  abortGraceMs?: number;
  /** The run's call limits, counted as calls pass preflight (SPEC R2). */
  budget?: CallAdmission;
  /** Approvals, call limits and scheduling, when the run has them (SPEC R1–R3). */
  control?: RunControl;
}

/** A call ready to execute: its tool and its validated arguments. */
export interface PreparedToolCall {
  kind: "prepared";
  toolCall: ToolCall;
  tool: AgentTool;
  args: unknown;
  /** Waits for approval before it executes (SPEC R1). */
  approval?: boolean;
  /** Its tool's `concurrencyKey` for these arguments (SPEC R3). */
  key?: string;
}

/** A call ready to execute, or one already decided (unknown tool, invalid arguments, blocked, aborted). */
export type ToolCallPreparation = { kind: "immediate"; outcome: ToolCallOutcome } | PreparedToolCall;

/**
 * What run control does inside a run. Pass `runControl`, never an object of your own: the
 * members are the loop's internals and change with it.
 */
export interface RunControl {
  /** Throws a `TypeError` naming an option that cannot mean anything. @internal */
  checkConfig(config: RunControlOptions): void;
  /** The run's time limit on its scheduler: `expired` is called when it passes. @internal */
  deadline(limits: RunLimits | undefined, scheduler: SchedulerLike | undefined, now: () => number, expired: (limit: LimitReached) => void): Subscription | undefined;
  /** The run's call limits, when it has any. @internal */
  budget(limits: RunLimits | undefined): CallAdmission | undefined;
  /** The run limit reached before one more request, if any. @internal */
  requestLimit(limits: RunLimits, turns: number, usage: Usage): LimitReached | undefined;
  /** A prepared call through the call limits, its concurrency key and its approval rule; synchronous unless it waits. @internal */
  admit(prepared: PreparedToolCall, env: ToolCallEnvironment): Observable<ToolCallPreparation>;
  /** A call `beforeToolCall` asked a human for. @internal */
  needingApproval(prepared: PreparedToolCall, env: ToolCallEnvironment): ToolCallPreparation;
  /** Waits for the call's approval, then `run`s it, or `complete`s it with the refusal. @internal */
  awaitApproval(
    prepared: PreparedToolCall,
    env: ToolCallEnvironment,
    emitter: Emitter,
    run: (prepared: PreparedToolCall) => Observable<AgentEvent>,
    complete: (outcome: ToolCallOutcome) => Observable<AgentEvent>,
  ): Observable<AgentEvent>;
  /** The executions of a parallel batch through approvals, lanes and slots. @internal */
  schedule(
    preparations: readonly ToolCallPreparation[],
    env: ToolCallEnvironment,
    emitter: Emitter,
    completeAt: (index: number) => (outcome: ToolCallOutcome) => Observable<AgentEvent>,
  ): Observable<AgentEvent>;
}

/** Whether a tool asks for run control: an approval rule or a concurrency key. */
export function usesRunControl(tool: AgentTool): boolean {
  return (tool.needsApproval !== undefined && tool.needsApproval !== false) || tool.concurrencyKey !== undefined;
}
