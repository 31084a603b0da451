/**
 * One tool call through the pipeline (SPEC T2, T3, T5): find the tool → `prepareArguments` →
 * validate → `beforeToolCall` → execute (progress updates) → `afterToolCall`. Every failure
 * becomes an `isError` result the model reads; nothing here errors the Observable.
 *
 * @module
 */
import { catchError, concatMap, defer, EMPTY, isObservable, map, Observable, of } from "rxjs";
import { describeError } from "./assistant-message.js";
import type { AssistantMessage, ToolCall, ToolResultMessage } from "./messages.js";
import { fromMaybeAsync, isThenable, thenMaybe } from "./internal/maybe-async.js";
import type { AgentContext, AgentTool, AgentToolResult, ToolCallOutcome, ToolHooks } from "./types.js";
import { validateToolArguments } from "./validation.js";

/** The text of a tool result that was stopped by an abort. */
export const ABORTED_TOOL_TEXT = "Operation aborted";

/** What a tool call runs against. */
export interface ToolCallEnvironment extends ToolHooks {
  tools: readonly AgentTool[];
  context: AgentContext;
  assistantMessage: AssistantMessage;
  signal: AbortSignal;
  /** Clock for durations and timestamps. */
  now: () => number;
}

/** A call ready to execute, or one already decided (unknown tool, invalid arguments, blocked, aborted). */
export type ToolCallPreparation =
  | { kind: "immediate"; outcome: ToolCallOutcome }
  | { kind: "prepared"; toolCall: ToolCall; tool: AgentTool; args: unknown };

/** What an executing tool reports: progress updates, then one result. */
export type ToolExecutionNote =
  | { type: "update"; partialResult: AgentToolResult }
  | { type: "result"; result: AgentToolResult; isError: boolean; durationMs: number };

/** A result the model reads as an error. */
export function errorToolResult(text: string): AgentToolResult {
  return { content: [{ type: "text", text }], details: {} };
}

function immediate(toolCall: ToolCall, text: string, terminate?: boolean): ToolCallPreparation {
  const result = errorToolResult(text);
  if (terminate) result.terminate = true;
  return { kind: "immediate", outcome: { toolCall, result, isError: true } };
}

/**
 * Everything before execution, in order. Synchronous when `beforeToolCall` returns a plain
 * value (SPEC L12).
 */
export function prepareToolCall(toolCall: ToolCall, env: ToolCallEnvironment): Observable<ToolCallPreparation> {
  return defer(() => {
    if (env.signal.aborted) return of(immediate(toolCall, ABORTED_TOOL_TEXT));
    const tool = env.tools.find((candidate) => candidate.name === toolCall.name);
    if (!tool) {
      const available = env.tools.map((t) => t.name).join(", ") || "none";
      return of(immediate(toolCall, `Tool "${toolCall.name}" not found. Available tools: ${available}.`));
    }
    let args: unknown;
    try {
      const prepared = tool.prepareArguments ? { ...toolCall, arguments: tool.prepareArguments(toolCall.arguments) as ToolCall["arguments"] } : toolCall;
      args = validateToolArguments(tool.name, tool.parameters, prepared);
    } catch (error) {
      return of(immediate(toolCall, describeError(error)));
    }
    const ready: ToolCallPreparation = { kind: "prepared", toolCall, tool, args };
    if (!env.beforeToolCall) return of(ready);
    const { beforeToolCall } = env;
    return defer(() => fromMaybeAsync(beforeToolCall({ assistantMessage: env.assistantMessage, toolCall, args, context: env.context }, env.signal))).pipe(
      map((decision): ToolCallPreparation => {
        if (env.signal.aborted) return immediate(toolCall, ABORTED_TOOL_TEXT);
        if (decision && decision.block) return immediate(toolCall, decision.reason || "Tool execution was blocked", decision.terminate === true);
        return ready;
      }),
      catchError((error) => of(immediate(toolCall, `beforeToolCall failed: ${describeError(error)}`))),
    );
  });
}

/** A tool's return value as a well-formed result, or a description of what is wrong with it. */
function normalizeResult(toolName: string, value: unknown): { result: AgentToolResult; isError: boolean } {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    const got = value === undefined ? "undefined" : Array.isArray(value) ? "an array" : value === null ? "null" : `a ${typeof value}`;
    return { result: errorToolResult(`Tool "${toolName}" returned ${got} instead of a result object ({ content: [...] }).`), isError: true };
  }
  const result = value as AgentToolResult;
  const content: unknown = result.content;
  if (content === undefined || content === null) return { result: { ...result, content: [] }, isError: result.isError === true };
  if (typeof content === "string") return { result: { ...result, content: [{ type: "text", text: content }] }, isError: result.isError === true };
  if (!Array.isArray(content)) {
    return { result: errorToolResult(`Tool "${toolName}" returned a result whose content is not an array of text or image blocks.`), isError: true };
  }
  return { result, isError: result.isError === true };
}

/**
 * Runs a prepared call. Promise tools get the signal and are awaited; Observable tools are
 * unsubscribed at once when the signal fires (their result is then "Operation aborted"), and
 * whenever the returned Observable is unsubscribed. Updates reported after the result are dropped.
 */
export function executeToolCall(prepared: Extract<ToolCallPreparation, { kind: "prepared" }>, env: ToolCallEnvironment): Observable<ToolExecutionNote> {
  const { tool, toolCall, args } = prepared;
  return new Observable<ToolExecutionNote>((subscriber) => {
    const startedAt = env.now();
    let open = true;
    let teardown: (() => void) | undefined;
    const finish = (outcome: { result: AgentToolResult; isError: boolean }): void => {
      if (!open) return;
      open = false;
      teardown?.();
      subscriber.next({ type: "result", ...outcome, durationMs: Math.max(0, env.now() - startedAt) });
      subscriber.complete();
    };
    const fail = (error: unknown): void => finish({ result: errorToolResult(describeError(error)), isError: true });
    const onUpdate = (partialResult: AgentToolResult): void => {
      if (open) subscriber.next({ type: "update", partialResult });
    };

    let returned: unknown;
    try {
      returned = tool.execute(toolCall.id, args, env.signal, onUpdate);
    } catch (error) {
      fail(error);
      return;
    }
    if (isObservable(returned)) {
      let latest: unknown;
      let hasValue = false;
      const onAbort = (): void => finish({ result: errorToolResult(ABORTED_TOOL_TEXT), isError: true });
      const subscription = (returned as Observable<AgentToolResult>).subscribe({
        next: (value) => {
          if (hasValue) onUpdate(latest as AgentToolResult);
          latest = value;
          hasValue = true;
        },
        error: fail,
        complete: () => (hasValue ? finish(normalizeResult(tool.name, latest)) : fail(new Error(`Tool "${tool.name}" completed without a result.`))),
      });
      if (open) {
        env.signal.addEventListener("abort", onAbort);
        teardown = () => {
          env.signal.removeEventListener("abort", onAbort);
          subscription.unsubscribe();
        };
        if (env.signal.aborted) onAbort();
      }
      return () => {
        open = false;
        teardown?.();
      };
    }
    if (isThenable(returned)) {
      (returned as PromiseLike<unknown>).then((value) => finish(normalizeResult(tool.name, value)), fail);
      return () => {
        open = false;
      };
    }
    finish(normalizeResult(tool.name, returned));
    return undefined;
  });
}

/** Applies `afterToolCall` field by field; a throwing hook turns the result into an error. */
export function finalizeToolCall(
  prepared: Extract<ToolCallPreparation, { kind: "prepared" }>,
  executed: Extract<ToolExecutionNote, { type: "result" }>,
  env: ToolCallEnvironment,
): Observable<ToolCallOutcome> {
  const base: ToolCallOutcome = { toolCall: prepared.toolCall, result: executed.result, isError: executed.isError, durationMs: executed.durationMs };
  const { afterToolCall } = env;
  if (!afterToolCall) return of(base);
  return defer(() =>
    fromMaybeAsync(
      afterToolCall(
        { assistantMessage: env.assistantMessage, toolCall: prepared.toolCall, args: prepared.args, result: executed.result, isError: executed.isError, context: env.context },
        env.signal,
      ),
    ),
  ).pipe(
    map((override): ToolCallOutcome => {
      if (!override) return base;
      const result: AgentToolResult = { ...executed.result };
      if (override.content !== undefined) result.content = override.content;
      if (override.details !== undefined) result.details = override.details;
      if (override.usage !== undefined) result.usage = override.usage;
      if (override.terminate !== undefined) result.terminate = override.terminate;
      return { ...base, result, isError: override.isError ?? executed.isError };
    }),
    catchError((error) => of({ ...base, result: errorToolResult(`afterToolCall failed: ${describeError(error)}`), isError: true })),
  );
}

/** The tool-result message for an outcome. */
export function toolResultMessage(outcome: ToolCallOutcome, timestamp: number): ToolResultMessage {
  // The common shape (an executed call without usage) as one literal: properties added after
  // creation are stored outside the object, about 20 bytes more per result kept in a long
  // transcript (issue 6 memory benchmark). Same properties, same order.
  if (outcome.durationMs !== undefined && outcome.result.usage === undefined) {
    const { toolCall, result } = outcome;
    return { role: "toolResult", toolCallId: toolCall.id, toolName: toolCall.name, content: result.content ?? [], details: result.details, isError: outcome.isError, timestamp, durationMs: outcome.durationMs };
  }
  const message: ToolResultMessage = {
    role: "toolResult",
    toolCallId: outcome.toolCall.id,
    toolName: outcome.toolCall.name,
    content: outcome.result.content ?? [],
    details: outcome.result.details,
    isError: outcome.isError,
    timestamp,
  };
  if (outcome.result.usage !== undefined) message.usage = outcome.result.usage;
  if (outcome.durationMs !== undefined) message.durationMs = outcome.durationMs;
  return message;
}

/** Options of {@link runToolCall}. */
export interface RunToolCallOptions extends ToolHooks {
  tools: readonly AgentTool[];
  context: AgentContext;
  /** The message that asked for the call (hooks see it). */
  assistantMessage: AssistantMessage;
  signal?: AbortSignal;
  onUpdate?: (partialResult: AgentToolResult) => void;
  now?: () => number;
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
  const env: ToolCallEnvironment = { ...options, signal: options.signal ?? new AbortController().signal, now: options.now ?? Date.now };
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
