/**
 * Values, promises and Observables accepted alike, without leaving the synchronous path when a
 * hook, listener or `emit` returns a plain value (SPEC L12: no microtask of our own under
 * `TestScheduler.run`).
 *
 * @module
 */
import { concatMap, isObservable, Observable, of, type Subscriber } from "rxjs";
import { ignoreOutcome, promiseInVirtualRunError, stallsVirtualRun } from "./virtual-run.js";

/**
 * A value, a promise of it, or an Observable whose last value is it. Hooks may return any of
 * the three; a plain value keeps the loop synchronous (SPEC L12).
 */
export type MaybeAsync<T> = T | PromiseLike<T> | Observable<T>;

/**
 * What becomes of a call that throws, rejects or errors: `"error"` passes the failure on as the
 * Observable's error (a synchronous throw too, so the caller has one place to handle it); a
 * function turns it into the value the call stands for.
 */
export type OnFailure<T> = "error" | ((error: unknown) => T);

/** A failure kept as a value, for callers that decide later what it means. */
export class Failure {
  constructor(readonly error: unknown) {}
}

/** The {@link OnFailure} policy that keeps the failure as a value: `maybeAsync(call, asFailure)`. */
export function asFailure(error: unknown): Failure {
  return new Failure(error);
}

/** Whether `value` is a promise (or any thenable). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === "object" || typeof value === "function") && typeof (value as PromiseLike<unknown>).then === "function";
}

/**
 * Calls `call` and settles what it returns. A plain value comes back as it is: nothing is
 * allocated, nothing waits. A promise or an Observable comes back as an Observable of exactly one
 * value (the promise's value, the Observable's last value, or `undefined` when it completes
 * empty). A failure is handled by `onFailure`.
 *
 * ```text
 * call returns 1           →  1
 * call returns --a--b--|   →  --------(b|)
 * call throws / --#        →  # (onFailure "error")  or  f(error) (onFailure f)
 * ```
 *
 * A native promise returned inside `TestScheduler.run()` is refused as a failure (see
 * `stallsVirtualRun`): waiting on it would stall the run.
 *
 * @example
 * ```ts
 * const settled = maybeAsync(() => hook(context), "error");
 * const next = isObservable(settled) ? settled.pipe(concatInPlace(go)) : go(settled);
 * ```
 */
export function maybeAsync<T>(call: () => MaybeAsync<T>, onFailure: OnFailure<T>): T | Observable<T> {
  let value: MaybeAsync<T>;
  try {
    value = call();
  } catch (error) {
    return failedWith(error, onFailure);
  }
  return settle(value, onFailure);
}

/**
 * What a call that threw stands for under `onFailure`: an Observable of the error, or the
 * value `onFailure` makes of it. For callers on a per-event path that call without a closure.
 *
 * @example
 * ```ts
 * try { value = listener(event); } catch (error) { return failedWith(error, asFailure); }
 * ```
 */
export function failedWith<T>(error: unknown, onFailure: OnFailure<T>): T | Observable<T> {
  return onFailure === "error" ? new Observable<T>((subscriber) => subscriber.error(error)) : onFailure(error);
}

/**
 * {@link maybeAsync} for a value already returned: plain comes back as it is, a promise or an
 * Observable as an Observable of its one settled value, a failure as `onFailure` says.
 *
 * @example
 * ```ts
 * const settled = settle(listener(event, signal), asFailure);
 * ```
 */
export function settle<T>(value: MaybeAsync<T>, onFailure: OnFailure<T>): T | Observable<T> {
  if (isObservable(value)) return lastOf(value as Observable<T>, onFailure);
  if (!isThenable(value)) return value as T;
  if (stallsVirtualRun(value)) {
    ignoreOutcome(value);
    return failedWith(promiseInVirtualRunError(), onFailure);
  }
  return outcomeOf(value as PromiseLike<T>, onFailure);
}

/**
 * {@link settle}, with a throw while the value is read (a `then` getter that throws) taken as
 * the failure `onFailure` says, as a throwing call is.
 *
 * @example
 * ```ts
 * if (returned !== undefined) outcome = settleOrFail(returned, asFailure);
 * ```
 */
export function settleOrFail<T>(value: MaybeAsync<T>, onFailure: OnFailure<T>): T | Observable<T> {
  try {
    return settle(value, onFailure);
  } catch (error) {
    return failedWith(error, onFailure);
  }
}

/**
 * Hands a failure to `onFailure` for a settled Observable: its error, or the value it makes of
 * the error (an `onFailure` that throws errors the Observable with what it threw).
 */
function failInto<T>(subscriber: Subscriber<T>, error: unknown, onFailure: OnFailure<T>): void {
  if (onFailure === "error") return subscriber.error(error);
  let value: T;
  try {
    value = onFailure(error);
  } catch (thrown) {
    return subscriber.error(thrown);
  }
  end(subscriber, value);
}

/** The one value a settled Observable stands for, then its completion. */
function end<T>(subscriber: Subscriber<T>, value: T): void {
  subscriber.next(value);
  subscriber.complete();
}

/** The last value of `source` (`undefined` when it completes empty), once it completes. */
function lastOf<T>(source: Observable<T>, onFailure: OnFailure<T>): Observable<T> {
  return new Observable<T>((subscriber) => {
    let latest = undefined as T;
    return source.subscribe({
      next: (value) => {
        latest = value;
      },
      error: (error: unknown) => failInto(subscriber, error, onFailure),
      complete: () => end(subscriber, latest),
    });
  });
}

/** The promise's value, or its rejection as `onFailure` says; nothing after unsubscribe. */
function outcomeOf<T>(promise: PromiseLike<T>, onFailure: OnFailure<T>): Observable<T> {
  return new Observable<T>((subscriber) => {
    // A promise cannot be cancelled: once unsubscribed, what it settles to goes nowhere (rxjs
    // would hand it to `config.onStoppedNotification`).
    promise.then(
      (value) => {
        if (!subscriber.closed) end(subscriber, value);
      },
      (error: unknown) => {
        if (!subscriber.closed) failInto(subscriber, error, onFailure);
      },
    );
  });
}

/**
 * Goes on with the value `maybeAsync` settled: at once when it is plain, after it settles when
 * it is an Observable.
 *
 * @example
 * ```ts
 * andThen(maybeAsync(() => poll(), "error"), (messages) => turnWith(messages));
 * ```
 */
export function andThen<T, R>(settled: T | Observable<T>, next: (value: T) => Observable<R>): Observable<R> {
  return isObservable(settled) ? (settled as Observable<T>).pipe(concatMap(next)) : next(settled as T);
}

/**
 * Like {@link andThen} for a step that may itself answer with a plain value: a chain of plain
 * values stays plain (nothing is subscribed, SPEC L12); once a step is an Observable, the rest
 * runs after it.
 *
 * @example
 * ```ts
 * const opened = andThenValue(maybeAsync(() => store.acquire(id, request), "error"), (lease) => use(lease));
 * ```
 */
export function andThenValue<T, R>(settled: T | Observable<T>, next: (value: T) => R | Observable<R>): R | Observable<R> {
  if (!isObservable(settled)) return next(settled as T);
  return (settled as Observable<T>).pipe(
    concatMap((value) => {
      const result = next(value);
      return isObservable(result) ? (result as Observable<R>) : of(result);
    }),
  );
}
