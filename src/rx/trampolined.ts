/**
 * `trampolined`: `subscribeOn(queueScheduler)` for the loop's turns, without the queue
 * scheduler's action objects (one per subscription) in the hot path and in an app's bundle.
 *
 * @module
 */
import { Observable } from "rxjs";

/** Subscriptions asked for while another one is being made, oldest first. */
const pending: Array<() => void> = [];
let draining = false;

function drain(): void {
  draining = true;
  try {
    for (let task = pending.shift(); task; task = pending.shift()) task();
  } finally {
    draining = false;
    // A task threw (an rxjs `subscribe` reports errors to its subscriber, so this is a defect
    // elsewhere): the others still run, then the error goes on.
    if (pending.length > 0) drain();
  }
}

/**
 * `source`, subscribed at once, unless a trampolined subscription is being made on the stack
 * below: then right after that one returns. A chain of synchronous steps, each subscribing the
 * next from inside its own emission (a recursive `expand`), so runs in a loop with a flat stack
 * instead of one frame deeper per step. Values, errors and completion pass through; a consumer
 * that leaves before its turn came never subscribes `source`.
 *
 * ```text
 * source:      (a|)
 * trampolined: (a|)      subscribed on subscription, or after the one being made
 * ```
 *
 * @example
 * ```ts
 * start$.pipe(expand((next) => trampolined(turn(run, next))));
 * ```
 * @see subscribeOn
 * @see queueScheduler
 */
export function trampolined<T>(source: Observable<T>): Observable<T> {
  return new Observable<T>((subscriber) => {
    pending.push(() => {
      if (!subscriber.closed) source.subscribe(subscriber);
    });
    if (!draining) drain();
  });
}
