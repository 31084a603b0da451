/**
 * Everything before a tool call executes (SPEC T2, T3): find the tool → `prepareArguments` →
 * validate → `beforeToolCall`. A call that may not run is decided here, with the error result
 * the model reads.
 *
 * @module
 */
import { defer, map, type Observable, of } from "rxjs";
import { describeError } from "../model/describe-error.js";
import type { ToolCall } from "../model/messages.js";
import { Failure } from "../rx/maybe-async.js";
import { fromHook, orFailure } from "../rx/from-hook.js";
import { ABORTED_TOOL_TEXT, errorToolResult } from "./tool-result.js";
import type { PreparedToolCall, ToolCallEnvironment, ToolCallPreparation } from "./run-control-port.js";
import type { BeforeToolCallResult, ToolCallOutcome } from "../model/tool-types.js";
import { checkToolArguments } from "./validation.js";

export type { PreparedToolCall, ToolCallEnvironment, ToolCallPreparation } from "./run-control-port.js";

function immediate(toolCall: ToolCall, text: string, terminate?: boolean): ToolCallPreparation {
  const result = errorToolResult(text);
  if (terminate) result.terminate = true;
  return { kind: "immediate", outcome: { toolCall, result, isError: true } };
}

/** A call the abort reached before it executed (SPEC R4). */
export function notStarted(toolCall: ToolCall): ToolCallOutcome {
  return { toolCall, result: errorToolResult(ABORTED_TOOL_TEXT), isError: true, cancellation: "not_started" };
}

/**
 * Everything before execution, in order, on subscription: synchronous when `beforeToolCall` is
 * absent or returns a plain value (SPEC L12), else once the hook settled.
 *
 * ```text
 * beforeToolCall answers at 2:  --(p|)   (p: the preparation)
 * ```
 *
 * @example
 * ```ts
 * prepareToolCall(call, env).pipe(concatMap((preparation) => (preparation.kind === "prepared" ? run(preparation) : report(preparation.outcome))));
 * ```
 */
export function prepareToolCall(toolCall: ToolCall, env: ToolCallEnvironment): Observable<ToolCallPreparation> {
  return defer(() => {
    const checked = checkToolCall(toolCall, env);
    return checked.kind === "prepared" && env.beforeToolCall ? beforeToolCall(checked, env) : of(checked);
  });
}

/**
 * The part of preparation that needs no hook: the abort, the tool, `prepareArguments`, the
 * arguments' validation. A call that passes is ready for `beforeToolCall` (see {@link beforeToolCall}).
 */
export function checkToolCall(toolCall: ToolCall, env: ToolCallEnvironment): ToolCallPreparation {
  if (env.signal.aborted) return { kind: "immediate", outcome: notStarted(toolCall) };
  const tool = env.tools.find((candidate) => candidate.name === toolCall.name);
  if (!tool) {
    const available = env.tools.map((t) => t.name).join(", ") || "none";
    return immediate(toolCall, `Tool "${toolCall.name}" not found. Available tools: ${available}.`);
  }
  let args: unknown;
  try {
    const prepared = tool.prepareArguments ? { ...toolCall, arguments: tool.prepareArguments(toolCall.arguments) as ToolCall["arguments"] } : toolCall;
    args = checkToolArguments(tool.name, tool.parameters, prepared, tool.validator ?? env.validator);
  } catch (error) {
    return immediate(toolCall, describeError(error));
  }
  return { kind: "prepared", toolCall, tool, args };
}

/** `beforeToolCall` on a checked call (SPEC T2): what it decided, once it settled. */
export function beforeToolCall(ready: PreparedToolCall, env: ToolCallEnvironment): Observable<ToolCallPreparation> {
  const hook = env.beforeToolCall!;
  const { toolCall, args } = ready;
  return fromHook(() => hook({ assistantMessage: env.assistantMessage, toolCall, args, context: env.context }, env.signal)).pipe(
    orFailure(),
    map((decided) => decide(ready, decided, env)),
  );
}

/** What `beforeToolCall` decided, checked against the abort that may have come meanwhile. */
function decide(ready: PreparedToolCall, decision: BeforeToolCallResult | undefined | void | Failure, env: ToolCallEnvironment): ToolCallPreparation {
  const { signal } = env;
  const { toolCall } = ready;
  // A failed hook wins over an abort that came meanwhile: the model reads what went wrong.
  if (decision instanceof Failure) return immediate(toolCall, `beforeToolCall failed: ${describeError(decision.error)}`);
  if (signal.aborted) return { kind: "immediate", outcome: notStarted(toolCall) };
  if (decision && decision.block) return immediate(toolCall, decision.reason || "Tool execution was blocked", decision.terminate === true);
  if (decision && decision.needsApproval === true) return env.control ? env.control.needingApproval(ready, env) : noApprover(toolCall);
  return ready;
}

/** A call that needs approval in a run where nothing can give it: an error result at once, no request event. */
export function noApprover(toolCall: ToolCall): ToolCallPreparation {
  return immediate(toolCall, `Tool call "${toolCall.name}" needs approval, and nothing in this run can give it (no requestApproval).`);
}
