/**
 * `continueWith`: mirror the source, then go on with an Observable made from its last value.
 *
 * @module
 */
import { concat, defer, EmptyError, type Observable, type OperatorFunction, tap, throwError } from "rxjs";

/**
 * Mirrors the source; when it completes, subscribes to `project(last)`, where `last` is the
 * source's last value, and mirrors that too. A source that completes without a value errors
 * with `EmptyError`, as `last()` does. `project` is only called once the value exists.
 *
 * ```text
 * source:          -a--b-|
 * project(b):             --x-|
 * result:          -a--b----x-|
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
    defer(() => {
      let seen = false;
      let last: T;
      const mirrored = source.pipe(
        tap((value) => {
          seen = true;
          last = value;
        }),
      );
      return concat(
        mirrored,
        defer(() => (seen ? project(last) : throwError(() => new EmptyError()))),
      );
    });
}
