/**
 * `runToolCall`: one tool call through the loop's pipeline, without events (SPEC T5).
 *
 * @module
 */
import { concatMap, EMPTY, type Observable, of } from "rxjs";
import type { AssistantMessage, ToolCall } from "../model/messages.js";
import type { AgentContext } from "../model/types.js";
import { executeToolCall } from "./execute-tool-call.js";
import { finalizeToolCall } from "./finalize-tool-call.js";
import { prepareToolCall, type ToolCallEnvironment } from "./prepare-tool-call.js";
import type { AgentTool, AgentToolResult, ToolCallOutcome, ToolHooks } from "../model/tool-types.js";
import { interpretingValidator } from "./validators/interpreting-validator.js";
import type { ArgumentValidator } from "../model/argument-validator.js";

/** Options of {@link runToolCall}. */
export interface RunToolCallOptions extends ToolHooks {
  tools: readonly AgentTool[];
  context: AgentContext;
  /** The message that asked for the call (hooks see it). */
  assistantMessage: AssistantMessage;
  signal?: AbortSignal | undefined;
  onUpdate?: ((partialResult: AgentToolResult) => void) | undefined;
  now?: (() => number) | undefined;
  /** Checks arguments for tools without a `validator` of their own; the interpreting validator when absent. */
  validator?: ArgumentValidator | undefined;
}

/**
 * Runs one call through the same pipeline as the loop, without events (SPEC T5): tools that
 * call tools keep the permission and rewriting hooks. Emits one outcome; never errors.
 *
 * @example
 * ```ts
 * const outcome = await lastValueFrom(runToolCall(call, { tools, context, assistantMessage, beforeToolCall }));
 * ```
 */
export function runToolCall(toolCall: ToolCall, options: RunToolCallOptions): Observable<ToolCallOutcome> {
  const env: ToolCallEnvironment = { ...options, validator: options.validator ?? interpretingValidator, signal: options.signal ?? new AbortController().signal, now: options.now ?? Date.now };
  return prepareToolCall(toolCall, env).pipe(
    concatMap((preparation) => {
      if (preparation.kind === "immediate") return of(preparation.outcome);
      return executeToolCall(preparation, env).pipe(
        concatMap((note) => {
          if (note.type === "result") return finalizeToolCall(preparation, note, env);
          options.onUpdate?.(note.partialResult);
          return EMPTY;
        }),
      );
    }),
  );
}
