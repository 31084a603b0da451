/**
 * In-place sources: Observables whose work, or its first part, the loop's own operators do in
 * their own frame instead of subscribing to them. A step of a run is often a few known events
 * and what comes after them; subscribing to each such step cost a subscriber, its teardown and
 * the nesting of every event through it.
 *
 * @module
 */
import { EMPTY, Observable, type Subscriber } from "rxjs";

/**
 * An Observable that can also be run in place: `emitInPlace` sends what it can now and hands
 * back what is left to subscribe. Subscribed the usual way, it does the same.
 */
export abstract class InPlace<T> extends Observable<T> {
  constructor() {
    super((subscriber) => subscribeInPlace(this, subscriber));
  }

  /**
   * Emits to `subscriber` what can be emitted now; returns the Observable that does the rest,
   * or `undefined` when nothing is left (or the consumer left). What it throws is an error
   * notification.
   */
  abstract emitInPlace(subscriber: Subscriber<T>): Observable<T> | undefined;
}

/**
 * Runs `source` in place as far as it goes: each in-place source's work is done, and what it
 * leaves is taken up in turn, until a source that must be subscribed is left (returned).
 * `undefined` when nothing is left: `source` completed, the consumer left, or an error was sent.
 *
 * ```text
 * source:    in place (ab), leaving  --c|
 * emitted:   (ab)
 * returned:  --c|
 * ```
 */
export function inPlace<T>(source: Observable<T>, subscriber: Subscriber<T>): Observable<T> | undefined {
  let left: Observable<T> | undefined = source;
  while (left instanceof InPlace) {
    try {
      left = (left as InPlace<T>).emitInPlace(subscriber);
    } catch (error) {
      subscriber.error(error);
      return undefined;
    }
  }
  return left === EMPTY ? undefined : left;
}

/**
 * `source.subscribe(subscriber)`, with what can be done in place done so: only what is left is
 * subscribed, with `subscriber` itself.
 */
export function subscribeInPlace<T>(source: Observable<T>, subscriber: Subscriber<T>): void {
  const left = inPlace(source, subscriber);
  if (left) left.subscribe(subscriber);
  else if (!subscriber.closed) subscriber.complete();
}
