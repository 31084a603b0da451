/**
 * `continueWithLast`: mirror the source, then go on with an Observable made from its last value.
 *
 * @module
 */
import { concat, defer, type Observable, type OperatorFunction, tap } from "rxjs";

/**
 * Mirrors the source; when it completes, subscribes to `project(last)`, where `last` is the
 * source's last value, and mirrors that too. For sources that always end with a value (a
 * response ends with `message_end`): `project` is called with `undefined` otherwise.
 *
 * ```text
 * source:      -a--b-|
 * project(b):        --x-|
 * result:      -a--b---x-|
 * ```
 *
 * It is `connect((s) => merge(s, s.pipe(last(), concatMap(project))))` without the multicast:
 * `concat` with a `tap` that remembers the value, so each value crosses two operators only.
 *
 * @example
 * ```ts
 * response$.pipe(continueWithLast((end) => runToolsOf(end.message)));
 * ```
 */
export function continueWithLast<T, R>(project: (last: T) => Observable<R>): OperatorFunction<T, T | R> {
  return (source) =>
    defer(() => {
      let last: T | undefined;
      return concat(
        source.pipe(tap((value) => (last = value))),
        defer(() => project(last as T)),
      );
    });
}
