/**
 * `concatInPlace`: `concatMap` for the loop's per-call steps, with each projected Observable run
 * in place as far as it goes (see `in-place.ts`).
 *
 * @module
 */
import { Observable, type OperatorFunction } from "rxjs";
import { inPlace } from "./in-place.js";
import { LinkedObserver } from "./linked-observer.js";

/**
 * For each source value, `project(value)`, each one started when the one before completed:
 * `concatMap(project)`. What a projected Observable does in place (known values, deferred
 * steps) is done at once, with no inner subscription; only what is left is subscribed. Values
 * that arrive while one is running wait, in order. Completes when the source and the last
 * projected Observable did; an error of either, or a throwing `project`, is the result's.
 *
 * ```text
 * source:        -a---b-|
 * project(a):     --x|
 * project(b):         (y|)
 * result:        ---x-y-|
 * ```
 *
 * @example
 * ```ts
 * executeToolCall(prepared, env).pipe(concatInPlace((note) => eventsOf(note)));
 * ```
 * @see concatMap
 */
export function concatInPlace<T, R>(project: (value: T) => Observable<R>): OperatorFunction<T, R> {
  return (source) =>
    new Observable<R>((subscriber) => {
      const waiting: T[] = [];
      let running = false;
      let draining = false;
      let sourceDone = false;
      const drain = (): void => {
        if (draining) return;
        draining = true;
        while (!running && waiting.length > 0 && !subscriber.closed) {
          let projected: Observable<R>;
          try {
            projected = project(waiting.shift()!);
          } catch (error) {
            subscriber.error(error);
            break;
          }
          // In place: it emits to `subscriber` (and may error it), never completes it.
          const left = inPlace(projected, subscriber);
          if (!left) continue;
          running = true;
          const inner: LinkedObserver<R> = new LinkedObserver<R>({
            next: (value) => subscriber.next(value),
            error: (error) => subscriber.error(error),
            complete: () => {
              // Torn down before the next one starts, as in `concatMap`.
              inner.unsubscribe();
              running = false;
              drain();
            },
          });
          subscriber.add(inner);
          left.subscribe(inner);
        }
        draining = false;
        if (!running && waiting.length === 0 && sourceDone && !subscriber.closed) subscriber.complete();
      };
      const outer = new LinkedObserver<T>({
        next: (value) => {
          waiting.push(value);
          drain();
        },
        error: (error) => subscriber.error(error),
        complete: () => {
          sourceDone = true;
          drain();
        },
      });
      subscriber.add(outer);
      source.subscribe(outer);
    });
}
