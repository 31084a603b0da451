/**
 * Executing one prepared tool call (SPEC T1, T3, L10): progress updates, then exactly one result.
 *
 * @module
 */
import { asapScheduler, asyncScheduler, isObservable, Observable, type SchedulerLike, type Subscriber, type Subscription, type TeardownLogic } from "rxjs";
import { describeError } from "../model/describe-error.js";
import { isThenable } from "../rx/maybe-async.js";
import { ignoreOutcome, promiseInVirtualRunError, stallsVirtualRun } from "../rx/virtual-run.js";
import type { PreparedToolCall, ToolCallEnvironment } from "./prepare-tool-call.js";
import { ABORTED_TOOL_TEXT, errorToolResult, normalizeToolResult } from "./tool-result.js";
import type { AgentToolResult, ToolCancellation } from "../model/tool-types.js";

/** What the model reads for a call that ran past its time limit (SPEC R2). */
export function timedOutText(toolName: string, timeoutMs: number): string {
  return `Tool "${toolName}" timed out after ${timeoutMs} ms and was stopped.`;
}

/** What an executing tool reports: progress updates, then one result. */
export type ToolExecutionNote =
  | { type: "update"; partialResult: AgentToolResult }
  | { type: "result"; result: AgentToolResult; isError: boolean; durationMs: number; cancellation?: ToolCancellation };

/**
 * Runs a prepared call. Promise tools get the signal and are awaited; Observable tools are
 * unsubscribed at once when the signal fires (their result is then "Operation aborted"), and
 * whenever the returned Observable is unsubscribed. Updates reported after the result are dropped.
 *
 * An Observable tool's emissions are progress and its last is the result. An emission becomes a
 * progress update at once when another follows in the same task, else as soon as that task ends
 * (a zero-delay action on the loop's scheduler): a value followed by `complete` in the same task
 * is the result only, and a value the tool leaves standing is on screen without waiting for the
 * next. A value that stood before the tool completed later is both an update and the result.
 *
 * ```text
 * Observable tool:  -p-q-(r|)
 * notes:            -u-u-(R|)     (p and q shown in their own frames, r is the result)
 * Observable tool:  -p-q-r--|
 * notes:            -u-u-u--(R|)  (r stood for two frames: shown, then the result)
 * ```
 */
export function executeToolCall(prepared: PreparedToolCall, env: ToolCallEnvironment): Observable<ToolExecutionNote> {
  return new Observable<ToolExecutionNote>((subscriber) => new ToolExecution(prepared, env, subscriber).start());
}

/**
 * An Observable tool's latest emission until it is known to be progress: when the next one
 * arrives, or when the task it came in ends without completion. What a synchronous tool emits
 * while it is being subscribed is held until `subscribed()`, so a tool that completes there
 * costs no scheduled action.
 */
class StandingProgress {
  private value: unknown;
  private held = false;
  private scheduled: Subscription | undefined;
  private subscribing = true;

  constructor(
    private readonly scheduler: SchedulerLike,
    private readonly show: (value: unknown) => void,
  ) {}

  next(value: unknown): void {
    if (this.held || this.scheduled) {
      this.settle();
      this.show(this.value);
    }
    this.value = value;
    if (this.subscribing) this.held = true;
    else this.later();
  }

  /** The tool's `subscribe` returned: a value it left standing is shown once this task ends. */
  subscribed(): void {
    this.subscribing = false;
    if (!this.held) return;
    this.held = false;
    this.later();
  }

  /** The tool ended (or was torn down): its last value is the result, not progress. */
  settle(): void {
    this.held = false;
    this.scheduled?.unsubscribe();
    this.scheduled = undefined;
  }

  private later(): void {
    this.scheduled = this.scheduler.schedule(() => {
      this.scheduled = undefined;
      this.show(this.value);
    });
  }
}

/**
 * A signal that aborts when either does. `AbortSignal.any` holds its sources weakly (no listener
 * left on the run's signal per call); where it is missing, a listener forwards the run's abort.
 */
function linkedSignal(run: AbortSignal, own: AbortSignal): AbortSignal {
  const any = (AbortSignal as { any?: (signals: AbortSignal[]) => AbortSignal }).any;
  if (any) return any([run, own]);
  const linked = new AbortController();
  const forward = (source: AbortSignal) => (): void => linked.abort(source.reason);
  if (run.aborted) linked.abort(run.reason);
  // A signal aborts once: the listeners need no `once`.
  run.addEventListener("abort", forward(run));
  own.addEventListener("abort", forward(own));
  return linked.signal;
}

/**
 * One execution of a tool: whatever `execute` returns, exactly one result. With a time limit
 * (SPEC R2) the tool gets a signal of its own, aborted when the limit passes or the run is; after
 * an abort a promise tool is waited for `abortGraceMs` at most (SPEC R4).
 */
class ToolExecution {
  private readonly startedAt: number;
  /** Off once the result is decided or the call was unsubscribed: nothing is sent after that. */
  private open = true;
  private teardown: (() => void) | undefined;
  /** The signal the tool gets: the run's, or its own when it has a time limit. */
  private readonly signal: AbortSignal;
  private readonly timers: Subscription[] = [];

  constructor(
    private readonly prepared: PreparedToolCall,
    private readonly env: ToolCallEnvironment,
    private readonly subscriber: Subscriber<ToolExecutionNote>,
  ) {
    this.startedAt = env.now();
    const timeoutMs = prepared.tool.timeoutMs ?? env.toolTimeoutMs;
    const scheduler = env.scheduler ?? asyncScheduler;
    if (timeoutMs === undefined) this.signal = env.signal;
    else {
      // Its own signal, so the time limit stops this call only; the run's abort still reaches it,
      // after the call ended too, as the run's signal would.
      const own = new AbortController();
      this.signal = linkedSignal(env.signal, own.signal);
      this.timers.push(
        scheduler.schedule(() => {
          own.abort(new DOMException(timedOutText(prepared.tool.name, timeoutMs), "TimeoutError"));
          // Still running this long after the run's abort: it ignored that signal (SPEC R4).
          this.finish({ result: errorToolResult(timedOutText(prepared.tool.name, timeoutMs)), isError: true }, env.signal.aborted ? "ignored" : undefined);
        }, timeoutMs),
      );
    }
    const grace = env.abortGraceMs;
    if (grace !== undefined) {
      const giveUp = (): void => {
        this.timers.push(scheduler.schedule(() => this.finish({ result: errorToolResult(ABORTED_TOOL_TEXT), isError: true }, "ignored"), grace));
      };
      env.signal.addEventListener("abort", giveUp);
      this.timers.push({ unsubscribe: () => env.signal.removeEventListener("abort", giveUp) } as Subscription);
    }
  }

  /** Calls the tool. Returns the teardown. */
  start(): TeardownLogic {
    const { tool, toolCall, args } = this.prepared;
    let returned: unknown;
    try {
      returned = tool.execute(toolCall.id, args, this.signal, this.onUpdate);
    } catch (error) {
      this.fail(error);
      return undefined;
    }
    if (isObservable(returned)) return this.follow(returned as Observable<unknown>);
    if (isThenable(returned)) {
      if (stallsVirtualRun(returned)) {
        ignoreOutcome(returned);
        this.fail(promiseInVirtualRunError());
        return undefined;
      }
      returned.then(
        (value) => this.finish(normalizeToolResult(tool.name, value), this.env.signal.aborted ? "finished" : undefined),
        (error: unknown) => this.fail(error, this.env.signal.aborted ? "stopped" : undefined),
      );
      return () => {
        this.open = false;
        this.release();
      };
    }
    this.finish(normalizeToolResult(tool.name, returned));
    return undefined;
  }

  /** Timers and the link to the run's signal, let go. */
  private release(): void {
    for (const timer of this.timers) timer.unsubscribe();
    this.timers.length = 0;
  }

  /** An Observable tool: progress, then its last value; an abort unsubscribes it at once. */
  private follow(returned: Observable<unknown>): TeardownLogic {
    const { env } = this;
    const toolName = this.prepared.tool.name;
    let latest: unknown;
    let hasValue = false;
    const progress = new StandingProgress(env.scheduler ?? asapScheduler, (value) => this.onUpdate(value as AgentToolResult));
    const onAbort = (): void => {
      if (this.env.signal.aborted) this.finish({ result: errorToolResult(ABORTED_TOOL_TEXT), isError: true }, "stopped");
    };
    const subscription = returned.subscribe({
      next: (value) => {
        latest = value;
        hasValue = true;
        progress.next(value);
      },
      error: (error: unknown) => {
        progress.settle();
        this.fail(error);
      },
      complete: () => {
        progress.settle();
        if (hasValue) this.finish(normalizeToolResult(toolName, latest));
        else this.fail(new Error(`Tool "${toolName}" completed without a result.`));
      },
    });
    // A tool that ended while it was subscribed is answered already: the teardown returned below
    // then runs at once (its subscriber is closed), removing the listener again.
    progress.subscribed();
    const signal = this.signal;
    signal.addEventListener("abort", onAbort);
    const teardown = (): void => {
      signal.removeEventListener("abort", onAbort);
      progress.settle();
      subscription.unsubscribe();
    };
    this.teardown = teardown;
    // The run may have been aborted while the tool was subscribed (onAbort looks for itself).
    onAbort();
    return () => {
      this.open = false;
      teardown();
      this.release();
    };
  }

  private readonly onUpdate = (partialResult: AgentToolResult): void => {
    if (this.open) this.subscriber.next({ type: "update", partialResult });
  };

  /**
   * The one result. Nothing is sent once the call ended or was unsubscribed (a promise settling
   * after the grace gave up on it, a tool reporting progress while it is torn down): not even a
   * notification rxjs would drop, which an app's `config.onStoppedNotification` would hear.
   */
  private finish(outcome: { result: AgentToolResult; isError: boolean }, cancellation?: ToolCancellation): void {
    if (!this.open) return;
    this.open = false;
    this.teardown?.();
    this.release();
    const durationMs = Math.max(0, this.env.now() - this.startedAt);
    this.subscriber.next(
      cancellation === undefined
        ? { type: "result", result: outcome.result, isError: outcome.isError, durationMs }
        : { type: "result", result: outcome.result, isError: outcome.isError, durationMs, cancellation },
    );
    this.subscriber.complete();
  }

  private fail(error: unknown, cancellation?: ToolCancellation): void {
    this.finish({ result: errorToolResult(describeError(error)), isError: true }, cancellation);
  }
}
