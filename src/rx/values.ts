/**
 * `just` and `values`: `of` for the loop, without the scheduler overload. rxjs's `of` carries
 * `from` and its scheduled variants (an app bundle pays for them even when no scheduler is ever
 * passed), and spreads its arguments into an array on each call.
 *
 * @module
 */
import { Observable } from "rxjs";

/**
 * An Observable of values known when it is made, and optionally what comes after them (made
 * once they are out). Operators of the loop that find one emit its values in place instead of
 * subscribing to it (see `sequence`): the same notifications, without a subscriber and a
 * teardown per source.
 */
export class Values<T> extends Observable<T> {
  constructor(
    readonly items: readonly T[],
    readonly rest?: () => Observable<T>,
  ) {
    super((subscriber) => {
      for (let i = 0; i < items.length && !subscriber.closed; i++) subscriber.next(items[i]!);
      // A consumer that left during the values: `rest` is not made.
      if (subscriber.closed) return;
      if (!rest) return subscriber.complete();
      let next: Observable<T>;
      try {
        next = rest();
      } catch (error) {
        return subscriber.error(error);
      }
      // Subscribed with `subscriber` itself: linked from the start, no subscription in between.
      next.subscribe(subscriber);
    });
  }
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
