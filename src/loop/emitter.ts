/**
 * Where the loop's events leave it: through the optional waiting `emit` (SPEC L11) that the
 * `Agent` uses as its listener barrier, one at a time (SPEC A5), then out of the step.
 *
 * @module
 */
import { isObservable, type Observable } from "rxjs";
import { OneAtATime } from "../rx/one-at-a-time.js";
import { Values, type WaitFor } from "../rx/values.js";
import type { AgentEvent } from "../model/types.js";
import type { ToolCall } from "../model/messages.js";
import { failedWith, type OnFailure, settleOrFail } from "../rx/maybe-async.js";
import type { AgentEmit } from "./loop-config.js";

/**
 * Emits events, each one through `emit` first: `emit` is called (the `Agent` reduces its state
 * before anyone sees the event), the event is emitted, and what `emit` returned is waited for
 * before the next event. A failing `emit` is handled by `onFailure`: `"error"` lets the event
 * out, then errors (the run's failure recovery takes over); a function swallows it.
 */
export class Emitter {
  /**
   * `emit` as the events' producers call it, before each event goes out: what it returns is
   * waited for before the next one. `undefined` when there is nothing to wait for.
   */
  readonly wait: ((event: AgentEvent) => Observable<unknown> | undefined) | undefined;
  /** With `emit`: one event told at a time, though a listener's abort makes a tool answer at once. */
  readonly turn: OneAtATime | undefined;

  /**
   * @param executing Told when a tool is about to execute; the tool waits for what it returns
   *   (see `runPrepared`).
   */
  constructor(
    emit: AgentEmit | undefined,
    onFailure: OnFailure<unknown> = "error",
    turn?: OneAtATime,
    readonly executing?: (toolCall: ToolCall) => void | Observable<unknown>,
  ) {
    this.wait = emit
      ? (event) => {
          // Called here, not in a closure for `maybeAsync`: this is once per event. The rest are
          // functions of their own, so this one stays small enough to inline into the per-delta path.
          let returned: unknown;
          try {
            returned = emit(event);
          } catch (error) {
            return waitOn(failedWith(error, onFailure));
          }
          // Nothing returned, the common case: nothing to settle.
          return returned === undefined ? undefined : waitOn(settleOrFail(returned, onFailure));
        }
      : undefined;
    this.turn = emit ? (turn ?? new OneAtATime()) : undefined;
  }

  /** Whether events go through an `emit` (else they pass straight through). */
  get waits(): boolean {
    return this.wait !== undefined;
  }

  /** One event. */
  one(event: AgentEvent): Observable<AgentEvent> {
    return this.allThen([event], undefined);
  }

  /** Several events in order. */
  all(events: readonly AgentEvent[]): Observable<AgentEvent> {
    return this.allThen(events, undefined);
  }

  /**
   * One event, then what `next()` returns, made once the event was waited for: it is
   * `concat(one(event), defer(next))`, done in place by the loop's operators, without a
   * subscription of its own (the loop does this several times per turn and per tool call).
   *
   * ```text
   * emit(e) waits:  --|
   * next():           -x|
   * result:         e---x|
   * ```
   */
  oneThen<T>(event: AgentEvent, next: () => Observable<T>): Observable<AgentEvent | T> {
    return this.allThen([event], next);
  }

  /** Several events in order, then what `next()` returns (see {@link Emitter.oneThen}); just the events without `next`. */
  allThen<T>(events: readonly AgentEvent[], next: (() => Observable<T>) | undefined): Observable<AgentEvent | T> {
    // Known values, each after its wait: the loop's operators emit them in place.
    return new Values<AgentEvent | T>(events, next, this.wait as WaitFor<AgentEvent | T> | undefined, 0, this.turn);
  }
}

/** What `emit` came to, as the wait: an Observable to wait on, or nothing. */
function waitOn(settled: unknown): Observable<unknown> | undefined {
  return isObservable(settled) ? settled : undefined;
}
