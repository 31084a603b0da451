/**
 * `just` and `values`: `of` for the loop, without the scheduler overload. rxjs's `of` carries
 * `from` and its scheduled variants (an app bundle pays for them even when no scheduler is ever
 * passed), and spreads its arguments into an array on each call.
 *
 * @module
 */
import { Observable } from "rxjs";

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
  return new Observable<T>((subscriber) => {
    subscriber.next(value);
    subscriber.complete();
  });
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
  return new Observable<T>((subscriber) => {
    for (let i = 0; i < items.length && !subscriber.closed; i++) subscriber.next(items[i]!);
    subscriber.complete();
  });
}
