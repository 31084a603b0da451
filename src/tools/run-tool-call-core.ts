/**
 * `runToolCall` as `rxagent/core` exports it: `options.validator` is required (no default), so
 * a bundle that never names ajv does not carry it.
 *
 * @module
 */
import type { Observable } from "rxjs";
import type { ToolCall } from "../model/messages.js";
import { type RunToolCallOptions, runToolCallWith } from "./run-tool-call.js";
import type { ToolCallOutcome } from "../model/tool-types.js";

/**
 * One call through the loop's pipeline without events (SPEC T5), validated by
 * `options.validator`. Throws without one.
 *
 * @example
 * ```ts
 * runToolCall(call, { tools, context, assistantMessage, validator: interpretingValidator });
 * ```
 */
export function runToolCall(toolCall: ToolCall, options: RunToolCallOptions): Observable<ToolCallOutcome> {
  return runToolCallWith(toolCall, options, undefined);
}
