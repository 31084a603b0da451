/**
 * Where the loop's events leave it: through the optional waiting `emit` (SPEC L11) that the
 * `Agent` uses as its listener barrier, one at a time (SPEC A5).
 *
 * @module
 */
import { from, isObservable, type Observable } from "rxjs";
import { OneAtATime } from "./one-at-a-time.js";
import { told, type WaitFor } from "./told.js";
import type { AgentEvent } from "../model/types.js";
import type { ToolCall } from "../model/messages.js";
import { failedWith, type OnFailure, settleOrFail } from "../rx/maybe-async.js";

/**
 * Called with every event before the loop goes on; the loop waits for what it returns
 * (a promise or an Observable) — the `Agent` uses this as its listener barrier (SPEC L11).
 */
export type AgentEmit = (event: AgentEvent) => void | PromiseLike<unknown> | Observable<unknown>;

/**
 * Emits events, each one through `emit` first: `emit` is called (the `Agent` reduces its state
 * before anyone sees the event), the event is emitted, and what `emit` returned is waited for
 * before the next event. A failing `emit` is handled by `onFailure`: `"error"` lets the event
 * out, then errors (the run's failure recovery takes over); a function swallows it. Without
 * `emit`, `one` is `of` and `all` is `from`.
 *
 * ```text
 * emit(a) waits --|:  all([a, b]):  a-(b|)
 * ```
 */
export class Emitter {
  /**
   * `emit` as the events' producers call it, before each event goes out: what it returns is
   * waited for before the next one. `undefined` when there is nothing to wait for.
   */
  readonly wait: WaitFor<AgentEvent> | undefined;
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
          let returned: unknown;
          try {
            returned = emit(event);
          } catch (error) {
            return waitOn(failedWith(error, onFailure));
          }
          // Nothing returned, the common case on the per-event path: nothing to settle (settling
          // `undefined` gives nothing too, through two calls and a try).
          return returned === undefined ? undefined : waitOn(settleOrFail(returned, onFailure));
        }
      : undefined;
    this.turn = emit ? (turn ?? new OneAtATime()) : undefined;
  }

  /** One event. */
  one(event: AgentEvent): Observable<AgentEvent> {
    return this.tell([event]);
  }

  /** Several events in order, each told after the one before was waited for. */
  all(events: readonly AgentEvent[]): Observable<AgentEvent> {
    return this.tell(events);
  }

  /**
   * Events in order, then `next` (the step the loop takes after them: not an event, never told).
   *
   * ```text
   * emit(a) waits --|:  tell([a, b], s):  a-(bs|)
   * ```
   */
  tell<S = never>(events: readonly AgentEvent[], ...next: S[]): Observable<AgentEvent | S> {
    const wait = this.wait;
    if (wait) return told<AgentEvent, S>(events, wait, this.turn, next);
    return from([...events, ...next]);
  }
}

/** What `emit` came to, as the wait: an Observable to wait on, or nothing. */
function waitOn(settled: unknown): Observable<unknown> | undefined {
  return isObservable(settled) ? settled : undefined;
}
