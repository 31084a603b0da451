/**
 * Values, promises and Observables accepted alike — without leaving the synchronous path when a
 * hook returns a plain value (SPEC L12: no microtask of our own under `TestScheduler.run`).
 *
 * @internal
 * @module
 */
import { from, isObservable, last, type Observable, of, concatMap, ignoreElements, defaultIfEmpty } from "rxjs";
import type { MaybeAsync } from "../types.js";

/** Whether `value` is a promise (or any thenable). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === "object" || typeof value === "function") && typeof (value as PromiseLike<unknown>).then === "function";
}

/**
 * The hook result as an Observable of exactly one value: a plain value synchronously, a
 * promise's value, or an Observable's last value (`undefined` when it completes empty).
 */
export function fromMaybeAsync<T>(value: MaybeAsync<T>): Observable<T> {
  if (isObservable(value)) return (value as Observable<T>).pipe(defaultIfEmpty(undefined as T), last());
  if (isThenable(value)) return from(value as PromiseLike<T>);
  return of(value as T);
}

/**
 * Calls `fn(value)` at once when `value` is plain, else after it settles. The synchronous branch
 * allocates nothing extra — this sits on the per-event hot path.
 */
export function thenMaybe<T, R>(value: MaybeAsync<T>, fn: (value: T) => Observable<R>): Observable<R> {
  if (!isObservable(value) && !isThenable(value)) return fn(value as T);
  return fromMaybeAsync(value).pipe(concatMap(fn));
}

/** An Observable that completes when `value` settles, or `undefined` when there is nothing to wait for. */
export function settled(value: unknown): Observable<never> | undefined {
  if (isObservable(value)) return value.pipe(ignoreElements());
  if (isThenable(value)) return from(value).pipe(ignoreElements());
  return undefined;
}
