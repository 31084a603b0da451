/**
 * Approvals (SPEC R1): whether a call waits for a human, the wait itself, and what its answer
 * makes of the call. A value keeps the loop synchronous (SPEC L12); a promise or an Observable
 * is waited for, and an abort ends the wait at once.
 *
 * @module
 */
import { concat, concatMap, defer, map, type Observable, of } from "rxjs";
import { describeError } from "../model/describe-error.js";
import type { ToolCall } from "../model/messages.js";
import type { AgentEvent } from "../model/types.js";
import { Failure } from "../rx/maybe-async.js";
import { fromHook, orFailure } from "../rx/from-hook.js";
import { untilAborted } from "../tools/until-aborted.js";
import type { Emitter } from "../engine/emitter.js";
import { noApprover, notStarted, type PreparedToolCall, type ToolCallEnvironment, type ToolCallPreparation } from "../tools/prepare-tool-call.js";
import { errorOutcome } from "../tools/tool-result.js";
import type { ToolApprovalDecision, ToolCallOutcome } from "../model/tool-types.js";
import { checkToolArguments } from "../tools/validation.js";

/** The prepared call, marked when its tool's `needsApproval` asks for a human (or an error result when that check failed). */
export function withApprovalNeed(prepared: PreparedToolCall, env: ToolCallEnvironment): Observable<ToolCallPreparation> {
  const rule = prepared.tool.needsApproval;
  if (prepared.approval || rule === true) return of(needingApproval(prepared, env));
  if (rule === undefined || rule === false) return of(prepared);
  const { toolCall } = prepared;
  const needed = fromHook(() => rule(prepared.args, { toolCall, assistantMessage: env.assistantMessage, context: env.context, signal: env.signal })).pipe(orFailure());
  // A rule that answers later is not waited for past an abort (`undefined` then).
  return untilAborted(needed, env.signal).pipe(
    map((answer): ToolCallPreparation => {
      if (answer instanceof Failure) return { kind: "immediate", outcome: errorOutcome(toolCall, `needsApproval of tool "${toolCall.name}" failed: ${describeError(answer.error)}`) };
      if (env.signal.aborted) return { kind: "immediate", outcome: notStarted(toolCall) };
      return answer === true ? needingApproval(prepared, env) : prepared;
    }),
  );
}

/**
 * The call marked to wait for approval; an error result at once when nothing in the run can
 * answer, so no `tool_approval_request` is left without its `tool_approval_end`.
 */
export function needingApproval(prepared: PreparedToolCall, env: Pick<ToolCallEnvironment, "requestApproval">): ToolCallPreparation {
  if (!env.requestApproval) return noApprover(prepared.toolCall);
  return prepared.approval ? prepared : { ...prepared, approval: true };
}

/**
 * What the wait for an answer came to: `undefined` when the run was aborted first, or when the
 * approver answered nothing (the signal tells the two apart).
 */
type Answer = ToolApprovalDecision | Failure | undefined;

/**
 * Waits for the answer to a call's approval, announces it with `tool_approval_end`, then goes
 * on: approved, with the call (its edited arguments validated again); denied, aborted or failed,
 * with its error outcome.
 *
 * ```text
 * requestApproval:  ----a|            (a: { approved: true })
 * events:           ----(E)then go    (E: tool_approval_end, approved)
 * abort at 2:       --(E)then decided (approved false, reason "aborted"; the call never ran)
 * ```
 */
export function awaitApproval(
  prepared: PreparedToolCall,
  env: ToolCallEnvironment,
  emitter: Emitter,
  go: (prepared: PreparedToolCall) => Observable<AgentEvent>,
  decided: (outcome: ToolCallOutcome) => Observable<AgentEvent>,
): Observable<AgentEvent> {
  const { toolCall } = prepared;
  // Preflight sent calls without an approver their error result already (see needingApproval).
  const ask = env.requestApproval!;
  if (env.signal.aborted) return answered(prepared, undefined, env, emitter, go, decided);
  const request = { toolCallId: toolCall.id, toolName: toolCall.name, args: prepared.args };
  const answer = fromHook<Answer>(() => ask(request, env.signal)).pipe(orFailure());
  return untilAborted(answer, env.signal).pipe(concatMap((settled) => answered(prepared, settled, env, emitter, go, decided)));
}

function answered(
  prepared: PreparedToolCall,
  answer: Answer,
  env: ToolCallEnvironment,
  emitter: Emitter,
  go: (prepared: PreparedToolCall) => Observable<AgentEvent>,
  decided: (outcome: ToolCallOutcome) => Observable<AgentEvent>,
): Observable<AgentEvent> {
  const { toolCall } = prepared;
  const end = (approved: boolean, reason?: string, args?: unknown): AgentEvent => {
    const event: Extract<AgentEvent, { type: "tool_approval_end" }> = { type: "tool_approval_end", toolCallId: toolCall.id, toolName: toolCall.name, approved };
    if (reason !== undefined) event.reason = reason;
    if (args !== undefined) event.args = args;
    return event;
  };
  const then = (event: AgentEvent, next: () => Observable<AgentEvent>): Observable<AgentEvent> => concat(emitter.one(event), defer(next));
  // An abort wins over any answer but a failure, also over one that came with it (an approver that aborts the run and approves).
  if (env.signal.aborted && !(answer instanceof Failure)) return then(end(false, "aborted"), () => decided(notStarted(toolCall)));
  if (answer instanceof Failure) return then(end(false, "requestApproval failed"), () => decided(errorOutcome(toolCall, `requestApproval failed: ${describeError(answer.error)}`)));
  if (!isDecision(answer)) {
    return then(end(false, "no decision"), () => decided(errorOutcome(toolCall, `requestApproval must answer { approved: true } or { approved: false, reason }, got ${describe(answer)}.`)));
  }
  if (!answer.approved) {
    const reason = typeof answer.reason === "string" && answer.reason.length > 0 ? answer.reason : undefined;
    return then(end(false, reason), () => decided(errorOutcome(toolCall, deniedText(toolCall, reason))));
  }
  if (answer.args === undefined) return then(end(true), () => go(prepared));
  let args: unknown;
  try {
    args = checkToolArguments(prepared.tool.name, prepared.tool.parameters, { ...toolCall, arguments: answer.args as ToolCall["arguments"] }, prepared.tool.validator ?? env.validator);
  } catch (error) {
    return then(end(false, "invalid arguments"), () => decided(errorOutcome(toolCall, `The arguments given with the approval are not valid: ${describeError(error)}`)));
  }
  // The call's lane was chosen by its first arguments (SPEC R3): edits may not move it to another.
  const moved = keyChange(prepared, args);
  if (moved) return then(end(false, "concurrency key changed"), () => decided(errorOutcome(toolCall, moved)));
  return then(end(true, undefined, answer.args), () => go({ ...prepared, args }));
}

/** Why edited arguments may not run: they give the call another `concurrencyKey` than its lane's. */
function keyChange(prepared: PreparedToolCall, args: unknown): string | undefined {
  const keyOf = prepared.tool.concurrencyKey;
  if (!keyOf) return undefined;
  let key: string | undefined;
  try {
    const raw = keyOf(args);
    key = raw === undefined ? undefined : String(raw);
  } catch (error) {
    return `concurrencyKey of tool "${prepared.tool.name}" failed on the approved arguments: ${describeError(error)}`;
  }
  if (key === prepared.key) return undefined;
  return `The arguments given with the approval change the call's concurrencyKey (${JSON.stringify(prepared.key ?? null)} → ${JSON.stringify(key ?? null)}), so it was not run: ask again with the new arguments.`;
}

/** What the model reads for a denied call. */
export function deniedText(toolCall: ToolCall, reason: string | undefined): string {
  return reason ? `Tool call "${toolCall.name}" was denied: ${reason}` : `Tool call "${toolCall.name}" was denied.`;
}

function isDecision(value: unknown): value is ToolApprovalDecision {
  return value !== null && typeof value === "object" && typeof (value as { approved?: unknown }).approved === "boolean";
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
