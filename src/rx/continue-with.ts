/**
 * `continueWith`: mirror the source, then go on with an Observable made from its last value.
 *
 * @module
 */
import { EmptyError, Observable, type OperatorFunction } from "rxjs";
import { subscribeInPlace } from "./in-place.js";
import { LinkedObserver } from "./linked-observer.js";

/**
 * Mirrors the source; when it completes, subscribes to `project(last)`, where `last` is the
 * source's last value, and mirrors that too. A source that completes without a value errors
 * with `EmptyError`, as `last()` does. `project` is only called once the value exists.
 *
 * ```text
 * source:          -a--b-|
 * project(b):            --x-|
 * result:          -a--b---x-|
 * ```
 *
 * It is `connect((s) => merge(s, s.pipe(last(), concatMap(project))))` without the multicast.
 *
 * @example
 * ```ts
 * response$.pipe(continueWith((end) => runToolsOf(end.message)));
 * ```
 */
export function continueWith<T, R>(project: (last: T) => Observable<R>): OperatorFunction<T, T | R> {
  return (source) =>
    new Observable<T | R>((subscriber) => {
      let seen = false;
      let last: T;
      const mirror = new LinkedObserver<T>({
        next: (value) => {
          seen = true;
          last = value;
          subscriber.next(value);
        },
        error: (error) => subscriber.error(error),
        complete: () => {
          // The source is torn down before the continuation starts, as `concat` would.
          mirror.unsubscribe();
          if (!seen) return subscriber.error(new EmptyError());
          let next: Observable<R>;
          try {
            next = project(last);
          } catch (error) {
            return subscriber.error(error);
          }
          // Its in-place steps done here, only what is left subscribed.
          subscribeInPlace(next, subscriber);
        },
      });
      subscriber.add(mirror);
      source.subscribe(mirror);
    });
}
