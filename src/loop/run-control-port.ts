/**
 * The seam between the loop and run control (SPEC R1–R3): approvals, budgets and breakers,
 * concurrency slots and keyed lanes. The loop knows only this interface; `runControl` brings the
 * code. `rxagent`'s entry points always have it; `rxagent/core`'s take it as the `runControl`
 * option, so a bundle whose runs use none of it does not carry it.
 *
 * @module
 */
import type { Observable, Subscription } from "rxjs";
import type { Usage } from "../model/messages.js";
import type { AgentEvent, LimitReached } from "../model/types.js";
import type { CallBudget } from "../tools/call-budget.js";
import type { PreparedToolCall, ToolCallEnvironment, ToolCallPreparation } from "../tools/prepare-tool-call.js";
import type { AgentTool, ToolCallOutcome } from "../tools/tool-types.js";
import type { Emitter } from "./emitter.js";
import type { AgentLoopConfig } from "./loop-config.js";
import type { RunLimits } from "./run-limits.js";

/** The run-control options of a loop config (and of an Agent). */
export type RunControlOptions = Pick<AgentLoopConfig, "limits" | "maxConcurrency" | "requestApproval">;

/**
 * What run control does inside a run. Pass `runControl`, never an object of your own: the
 * members are the loop's internals and change with it.
 */
export interface RunControl {
  /** Throws a `TypeError` naming an option that cannot mean anything. @internal */
  checkConfig(config: RunControlOptions): void;
  /** The run's time limit on its scheduler: `expired` is called when it passes. @internal */
  deadline(limits: RunLimits | undefined, scheduler: AgentLoopConfig["scheduler"], now: () => number, expired: (limit: LimitReached) => void): Subscription | undefined;
  /** The run's call limits, when it has any. @internal */
  budget(limits: RunLimits | undefined): CallBudget | undefined;
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

/**
 * Checks the run-control options with `control`, or, without it, throws a `TypeError` for any
 * option or tool that would need it: nothing that asks for a limit or an approval runs unchecked.
 */
export function assertRunControl(config: RunControlOptions, tools: readonly AgentTool[] | undefined, control: RunControl | undefined): void {
  if (control) return control.checkConfig(config);
  const option = (["limits", "maxConcurrency", "requestApproval"] as const).find((key) => config[key] !== undefined);
  const tool = option ? undefined : tools?.find(usesRunControl);
  if (!option && !tool) return;
  const what = option ? `\`${option}\`` : `Tool "${tool!.name}" (needsApproval or concurrencyKey)`;
  throw new TypeError(`${what} needs run control: pass \`runControl\` (import { runControl } from "rxagent/core") in the options, or import from "rxagent", which has it.`);
}
