/**
 * `just` and `values`: `of` for the loop, without the scheduler overload. rxjs's `of` carries
 * `from` and its scheduled variants (an app bundle pays for them even when no scheduler is ever
 * passed), and spreads its arguments into an array on each call.
 *
 * @module
 */
import { Observable, type Subscriber } from "rxjs";
import { InPlace, subscribeInPlace } from "./in-place.js";
import { LinkedObserver } from "./linked-observer.js";

/** What an item waits for before the next one goes out: an Observable to wait on, or nothing. */
export type WaitFor<T> = (item: T) => Observable<unknown> | undefined;

/**
 * Values known when it is made, then optionally what `rest()` returns. With `wait`, each item
 * goes out after `wait(item)` was called, and the next one only once what that returned
 * completed (its values are ignored; its error is the result's). Done in place by the loop's
 * operators: the same notifications, without a subscriber and a teardown per step.
 */
export class Values<T> extends InPlace<T> {
  constructor(
    private readonly items: readonly T[],
    private readonly rest?: () => Observable<T>,
    private readonly wait?: WaitFor<T>,
  ) {
    super();
  }

  emitInPlace(subscriber: Subscriber<T>): Observable<T> | undefined {
    const { items, wait } = this;
    for (let i = 0; i < items.length; i++) {
      if (subscriber.closed) return undefined;
      const item = items[i]!;
      const held = wait?.(item);
      subscriber.next(item);
      if (held && !subscriber.closed) return afterWaiting(held, new Values(items.slice(i + 1), this.rest, wait));
    }
    // A consumer that left during the values: `rest` is not made.
    if (subscriber.closed || !this.rest) return undefined;
    return this.rest();
  }
}

/**
 * `next` once `held` completed, `held`'s values ignored, as `WaitGate` waits: a wait that
 * completes while it is being subscribed goes on once its own teardown ran; one that completes
 * later is torn down first.
 */
function afterWaiting<T>(held: Observable<unknown>, next: Observable<T>): Observable<T> {
  return new Observable<T>((subscriber) => {
    let subscribing = true;
    let completedThen = false;
    const waiting: LinkedObserver<unknown> = new LinkedObserver<unknown>({
      error: (error) => subscriber.error(error),
      complete: () => {
        waiting.unsubscribe();
        if (subscribing) completedThen = true;
        else subscribeInPlace(next, subscriber);
      },
    });
    subscriber.add(waiting);
    held.subscribe(waiting);
    subscribing = false;
    if (completedThen) subscribeInPlace(next, subscriber);
  });
}

/**
 * One value, then completion, on subscription: `of(value)`.
 *
 * ```text
 * just(a):  (a|)
 * ```
 *
 * @example
 * ```ts
 * just(new NextTurn([], lastTurn));
 * ```
 * @see of
 */
export function just<T>(value: T): Observable<T> {
  return new Values([value]);
}

/**
 * Each item in order, then completion, on subscription: `of(...items)`. A consumer that leaves
 * in the middle gets nothing more.
 *
 * ```text
 * values([a, b]):  (ab|)
 * ```
 *
 * @example
 * ```ts
 * values([{ type: "agent_start" }, { type: "turn_start" }]);
 * ```
 * @see of
 */
export function values<T>(items: readonly T[]): Observable<T> {
  return new Values(items);
}

/**
 * Each item in order, then what `rest()` returns, made once they are out: it is
 * `concat(of(...items), defer(rest))` in one subscription. A consumer that leaves in the middle
 * gets nothing more, and `rest` is not called.
 *
 * ```text
 * items:   [a, b]
 * rest():    -x|
 * result:  (ab)-x|
 * ```
 *
 * @example
 * ```ts
 * valuesThen([startEvent], () => runTool(call));
 * ```
 */
export function valuesThen<T>(items: readonly T[], rest: () => Observable<T>): Observable<T> {
  return new Values(items, rest);
}
