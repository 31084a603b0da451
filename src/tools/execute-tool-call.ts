/**
 * Executing one prepared tool call (SPEC T1, T3, L10): progress updates, then exactly one result.
 *
 * @module
 */
import { isObservable, Observable, type Subscriber, type TeardownLogic } from "rxjs";
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
 *
 * ```text
 * Observable tool:  -p-q-r|       (every emission but the last is progress)
 * result:           ---u-u(R|)    (update p at q's frame, update q at r's, then the result r)
 * ```
 */
export function executeToolCall(prepared: PreparedToolCall, env: ToolCallEnvironment): Observable<ToolExecutionNote> {
  return new Observable<ToolExecutionNote>((subscriber) => new ToolExecution(prepared, env, subscriber).start());
}

/** One execution of a tool: whatever `execute` returns, exactly one result. */
class ToolExecution {
  private readonly startedAt: number;
  private open = true;
  private teardown: (() => void) | undefined;

  constructor(
    private readonly prepared: PreparedToolCall,
    private readonly env: ToolCallEnvironment,
    private readonly subscriber: Subscriber<ToolExecutionNote>,
  ) {
    this.startedAt = env.now();
  }

  /** Calls the tool. Returns the teardown. */
  start(): TeardownLogic {
    const { tool, toolCall, args } = this.prepared;
    let returned: unknown;
    try {
      returned = tool.execute(toolCall.id, args, this.env.signal, this.onUpdate);
    } catch (error) {
      this.fail(error);
      return undefined;
    }
    if (isObservable(returned)) return this.follow(returned as Observable<unknown>);
    if (isThenable(returned)) {
      returned.then((value) => this.finish(normalizeToolResult(tool.name, value)), (error: unknown) => this.fail(error));
      return () => {
        this.open = false;
      };
    }
    this.finish(normalizeToolResult(tool.name, returned));
    return undefined;
  }

  /** An Observable tool: progress, then its last value; an abort unsubscribes it at once. */
  private follow(returned: Observable<unknown>): TeardownLogic {
    const { env } = this;
    const toolName = this.prepared.tool.name;
    let latest: unknown;
    let hasValue = false;
    const onAbort = (): void => this.finish({ result: errorToolResult(ABORTED_TOOL_TEXT), isError: true });
    const subscription = returned.subscribe({
      next: (value) => {
        if (hasValue) this.onUpdate(latest as AgentToolResult);
        latest = value;
        hasValue = true;
      },
      error: (error: unknown) => this.fail(error),
      complete: () => (hasValue ? this.finish(normalizeToolResult(toolName, latest)) : this.fail(new Error(`Tool "${toolName}" completed without a result.`))),
    });
    if (this.open) {
      env.signal.addEventListener("abort", onAbort);
      this.teardown = () => {
        env.signal.removeEventListener("abort", onAbort);
        subscription.unsubscribe();
      };
      if (env.signal.aborted) onAbort();
    }
    return () => {
      this.open = false;
      this.teardown?.();
    };
  }

  private readonly onUpdate = (partialResult: AgentToolResult): void => {
    if (this.open) this.subscriber.next({ type: "update", partialResult });
  };

  private finish(outcome: { result: AgentToolResult; isError: boolean }): void {
    if (!this.open) return;
    this.open = false;
    this.teardown?.();
    this.subscriber.next({ type: "result", result: outcome.result, isError: outcome.isError, durationMs: Math.max(0, this.env.now() - this.startedAt) });
    this.subscriber.complete();
  }

  private fail(error: unknown): void {
    this.finish({ result: errorToolResult(describeError(error)), isError: true });
  }
}
