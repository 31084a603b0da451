/**
 * Executing one prepared tool call (SPEC T1, T3, L10): progress updates, then exactly one result.
 *
 * @module
 */
import { isObservable, Observable } from "rxjs";
import { describeError } from "../model/describe-error.js";
import { isThenable } from "../rx/maybe-async.js";
import type { PreparedToolCall, ToolCallEnvironment } from "./prepare-tool-call.js";
import { ABORTED_TOOL_TEXT, errorToolResult, normalizeToolResult } from "./tool-result.js";
import type { AgentToolResult } from "./tool-types.js";

/** What an executing tool reports: progress updates, then one result. */
export type ToolExecutionNote =
  | { type: "update"; partialResult: AgentToolResult }
  | { type: "result"; result: AgentToolResult; isError: boolean; durationMs: number };

/**
 * Runs a prepared call. Promise tools get the signal and are awaited; Observable tools are
 * unsubscribed at once when the signal fires (their result is then "Operation aborted"), and
 * whenever the returned Observable is unsubscribed. Updates reported after the result are dropped.
 */
export function executeToolCall(prepared: PreparedToolCall, env: ToolCallEnvironment): Observable<ToolExecutionNote> {
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
        complete: () => (hasValue ? finish(normalizeToolResult(tool.name, latest)) : fail(new Error(`Tool "${tool.name}" completed without a result.`))),
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
      (returned as PromiseLike<unknown>).then((value) => finish(normalizeToolResult(tool.name, value)), fail);
      return () => {
        open = false;
      };
    }
    finish(normalizeToolResult(tool.name, returned));
    return undefined;
  });
}

