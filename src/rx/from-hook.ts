/**
 * A hook's answer — a value, a promise or an Observable — lifted once into an Observable, so
 * the loop composes every hook the same way, with `concatMap`.
 *
 * @module
 */
import { catchError, concatMap, defaultIfEmpty, defer, isObservable, Observable, of, type OperatorFunction, takeLast, throwError } from "rxjs";
import { Failure, isThenable, type MaybeAsync } from "./maybe-async.js";
import { ignoreOutcome, promiseInVirtualRunError, stallsVirtualRun } from "./virtual-run.js";

/**
 * `value` as an Observable of one value: a plain value at once (`of`, so a synchronous hook
 * keeps the run synchronous: SPEC L12), a promise when it settles, an Observable's last value
 * when it completes (`undefined` when it completed without one). A promise inside
 * `TestScheduler.run` would never settle there: it is an error at once.
 *
 * ```text
 * lift(a):          (a|)
 * lift(-a-b|):      ----(b|)
 * lift(promise→a):  (when it resolves) (a|)
 * ```
 *
 * @example
 * ```ts
 * lift(hook(context)).pipe(concatMap((answer) => next(answer)));
 * ```
 */
export function lift<T>(value: MaybeAsync<T>): Observable<T> {
  if (isObservable(value)) return (value as Observable<T>).pipe(takeLast(1), defaultIfEmpty(undefined as T));
  if (!isThenable(value)) return of(value as T);
  if (stallsVirtualRun(value)) {
    ignoreOutcome(value);
    return throwError(() => promiseInVirtualRunError());
  }
  return settled(value as PromiseLike<T>);
}

/**
 * A promise's outcome, as `from(promise)` has it, for any thenable: only its `then(onValue,
 * onError)` is called (a thenable need not return a promise from it). Once unsubscribed, what it
 * settles to goes nowhere.
 */
function settled<T>(promise: PromiseLike<T>): Observable<T> {
  return new Observable<T>((subscriber) => {
    promise.then(
      // Nothing reaches a closed subscriber: rxjs would report it to config.onStoppedNotification.
      (value) => {
        if (subscriber.closed) return;
        subscriber.next(value);
        subscriber.complete();
      },
      (error: unknown) => {
        if (!subscriber.closed) subscriber.error(error);
      },
    );
  });
}

/**
 * The hook called on subscription, its answer lifted: `defer(() => lift(call()))`. A hook that
 * throws is the result's error.
 *
 * ```text
 * fromHook(() => a):       (a|)
 * fromHook(() => throw e): #
 * ```
 *
 * @example
 * ```ts
 * fromHook(() => config.prepareRequest(context, signal)).pipe(concatMap((update) => respond(update)));
 * ```
 */
export function fromHook<T>(call: () => MaybeAsync<T>): Observable<T> {
  return defer(() => lift(call()));
}

/**
 * `lift(value).pipe(concatMap(project))`, with `project(value)` itself for a plain value: the
 * common synchronous answer costs no operator and no subscription of its own (SPEC L12).
 *
 * ```text
 * liftConcatMap(a, f):      f(a)
 * liftConcatMap(-a|, f):    -f(a)
 * ```
 *
 * @example
 * ```ts
 * liftConcatMap(config.getSteeringMessages(), (messages) => nextTurn(messages));
 * ```
 */
export function liftConcatMap<T, R>(value: MaybeAsync<T>, project: (value: T) => Observable<R>): Observable<R> {
  if (!isObservable(value) && !isThenable(value)) return project(value as T);
  return lift(value).pipe(concatMap(project));
}

/**
 * A failure as a value: the source's error becomes one {@link Failure}, for hooks whose failure
 * the model reads instead of failing the run.
 *
 * ```text
 * source:  --#
 * result:  --(F|)
 * ```
 */
export function orFailure<T>(): OperatorFunction<T, T | Failure> {
  return catchError((error: unknown) => of(new Failure(error)));
}
