/**
 * After a tool ran: `afterToolCall` overrides its result field by field (SPEC T2, T3).
 *
 * @module
 */
import { map, type Observable, of } from "rxjs";
import { describeError } from "../model/describe-error.js";
import { Failure } from "../rx/maybe-async.js";
import { fromHook, orFailure } from "../rx/from-hook.js";
import type { ToolExecutionNote } from "./execute-tool-call.js";
import type { PreparedToolCall, ToolCallEnvironment } from "./prepare-tool-call.js";
import { errorToolResult } from "./tool-result.js";
import type { AfterToolCallResult, AgentToolResult, ToolCallOutcome } from "../model/tool-types.js";

/** The result a tool reported, as `executeToolCall` ends with it. */
export type ExecutedToolCall = Extract<ToolExecutionNote, { type: "result" }>;

/**
 * The outcome of an executed call after `afterToolCall`: omitted fields of its answer keep the
 * executed values; a throwing, rejecting or erroring hook turns the result into an error the
 * model reads (SPEC T3). Synchronous when the hook returns a plain value (SPEC L12).
 */
export function finalizeToolCall(prepared: PreparedToolCall, executed: ExecutedToolCall, env: ToolCallEnvironment): Observable<ToolCallOutcome> {
  const base: ToolCallOutcome = { toolCall: prepared.toolCall, result: executed.result, isError: executed.isError, durationMs: executed.durationMs };
  if (executed.cancellation !== undefined) base.cancellation = executed.cancellation;
  const { afterToolCall } = env;
  if (!afterToolCall) return of(base);
  return fromHook(() =>
    afterToolCall(
      { assistantMessage: env.assistantMessage, toolCall: prepared.toolCall, args: prepared.args, result: executed.result, isError: executed.isError, context: env.context },
      env.signal,
    ),
  ).pipe(
    orFailure(),
    map((answer) => applyOverride(base, answer)),
  );
}

function applyOverride(base: ToolCallOutcome, override: AfterToolCallResult | undefined | void | Failure): ToolCallOutcome {
  if (override instanceof Failure) return { ...base, result: errorToolResult(`afterToolCall failed: ${describeError(override.error)}`), isError: true };
  if (!override) return base;
  const result: AgentToolResult = { ...base.result };
  if (override.content !== undefined) result.content = override.content;
  if (override.details !== undefined) result.details = override.details;
  if (override.usage !== undefined) result.usage = override.usage;
  if (override.terminate !== undefined) result.terminate = override.terminate;
  return { ...base, result, isError: override.isError ?? base.isError };
}
