/**
 * The Agent's listeners as a barrier (SPEC A5, A6): called in registration order, each after
 * the previous one settled; the loop waits for the last.
 *
 * @module
 */
import { concatMap, isObservable, type Observable, of } from "rxjs";
import type { AgentEvent } from "../model/types.js";
import { asFailure, Failure, settleOrFail } from "../rx/maybe-async.js";
import type { OneAtATime } from "../engine/one-at-a-time.js";

/**
 * A subscriber to the Agent's events. The Agent waits for what it returns — a promise or an
 * Observable (which keeps marble tests in virtual time) — before the loop goes on (SPEC A5).
 */
export type AgentListener = (event: AgentEvent, signal: AbortSignal) => void | PromiseLike<unknown> | Observable<unknown>;

/** What calling the listeners came to: the first failure, or `undefined` when none failed. */
export type BarrierOutcome = Failure | undefined;

const NO_LISTENERS: readonly AgentListener[] = Object.freeze([]);

/**
 * The registered listeners. A failing listener does not keep the event from the listeners after
 * it: every listener sees every event, and the outcome is the first failure.
 */
export class ListenerBarrier {
  /**
   * The listeners in registration order, each once (adding one again changes nothing). A new
   * array on each change, never changed in place: an event's round keeps the listeners it started with.
   */
  private ordered: readonly AgentListener[] = NO_LISTENERS;

  /** Adds a listener. @return A function that removes it. */
  add(listener: AgentListener): () => void {
    if (!this.ordered.includes(listener)) this.ordered = [...this.ordered, listener];
    return () => {
      this.ordered = this.ordered.filter((l) => l !== listener);
    };
  }

  /**
   * Calls every listener with `event`, in order. Returns the outcome as it is when every
   * listener returned a plain value (nothing allocated, no microtask: SPEC L12), else an
   * Observable of it that settles after the last one. The listeners called once an earlier one
   * settled are called in `turn`, as the first ones are (SPEC A5).
   *
   * ```text
   * listeners:  sync, async (--|), sync
   * outcome:    --(undefined|)
   * ```
   */
  notify(event: AgentEvent, signal: AbortSignal, turn?: OneAtATime): BarrierOutcome | Observable<BarrierOutcome> {
    return notifyFrom(this.ordered, 0, event, signal, undefined, turn);
  }
}

// Kept small (the rare paths are functions of their own): it runs for every event, and V8
// inlines it into the per-delta path only while that path's inlining budget lasts.
function notifyFrom(
  listeners: readonly AgentListener[],
  index: number,
  event: AgentEvent,
  signal: AbortSignal,
  failed: BarrierOutcome,
  turn: OneAtATime | undefined,
): BarrierOutcome | Observable<BarrierOutcome> {
  for (let i = index; i < listeners.length; i++) {
    // Called here, not in a closure for `maybeAsync`: this is once per listener per event.
    let returned: unknown;
    try {
      // Called as a plain function (`this` undefined), not as a method of the list.
      const listener = listeners[i]!;
      returned = listener(event, signal);
    } catch (error) {
      failed ??= new Failure(error);
      continue;
    }
    // Nothing returned, the common case: nothing to settle.
    if (returned === undefined) continue;
    const settled = settleOrFail<unknown>(returned, asFailure);
    if (isObservable(settled)) return afterSettled(settled, listeners, i + 1, event, signal, failed, turn);
    if (settled instanceof Failure) failed ??= settled;
  }
  return failed;
}

/** The listeners from `next` on, once the one before settled (its one value: a result or a Failure). */
function afterSettled(
  settled: Observable<unknown>,
  listeners: readonly AgentListener[],
  next: number,
  event: AgentEvent,
  signal: AbortSignal,
  failed: BarrierOutcome,
  turn: OneAtATime | undefined,
): Observable<BarrierOutcome> {
  return settled.pipe(
    concatMap((value) => {
      const failedSoFar = failed ?? (value instanceof Failure ? value : undefined);
      let rest: BarrierOutcome | Observable<BarrierOutcome>;
      turn?.enter();
      try {
        rest = notifyFrom(listeners, next, event, signal, failedSoFar, turn);
      } finally {
        turn?.exit();
      }
      return isObservable(rest) ? rest : of(rest);
    }),
  );
}
