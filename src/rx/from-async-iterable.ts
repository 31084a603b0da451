/**
 * `fromAsyncIterable`: rxjs's `from(asyncIterable)`, read with native `for await`.
 *
 * @module
 */
import { Observable } from "rxjs";
import { interopKey } from "./observable-input.js";

/**
 * An Observable of the values of an async iterable: `next` per value, `complete` at its end,
 * `error` when it throws; reading stops (and the iterator is returned) once the subscriber is
 * closed. Same contract as `from(iterable)`, without the down-levelled generator helpers rxjs 7
 * ships, which cost more per value than the rest of the loop (a pi-ai stream of 100 000 deltas).
 *
 * ```text
 * iterable yields a, b, then ends   →  -a-b-|   (each value a microtask or more apart)
 * ```
 *
 * @example
 * ```ts
 * fromAsyncIterable(streamSimple(model, context)).subscribe((event) => console.log(event.type));
 * ```
 */
export function fromAsyncIterable<T>(iterable: AsyncIterable<T>): Observable<T> {
  return new Observable<T>((subscriber) => {
    (async () => {
      for await (const value of iterable) {
        subscriber.next(value);
        if (subscriber.closed) return;
      }
      subscriber.complete();
    })().catch((error: unknown) => subscriber.error(error));
  });
}

/** An async iterable that rxjs would not read another way first (it prefers interop Observables, arrays, promises). */
export function isPlainAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    value !== null &&
    typeof value === "object" &&
    typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] === "function" &&
    typeof (value as Record<PropertyKey, unknown>)[interopKey] !== "function" &&
    typeof (value as PromiseLike<unknown>).then !== "function" &&
    !Array.isArray(value)
  );
}
