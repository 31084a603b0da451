/**
 * `sequence`: `concat` for Observables, leaner per subscription.
 *
 * @module
 */
import { Observable } from "rxjs";
import { LinkedObserver } from "./linked-observer.js";

/**
 * Subscribes to each source when the previous one completes; values and errors pass through;
 * completes after the last. Unsubscribing stops the current source and starts no other. The
 * same contract as rxjs's `concat` for Observable sources, without its array Observable and
 * `mergeMap` buffer: the loop builds several per turn and per tool call, and they cost a third
 * of a turn in the benchmarks. Sources that complete synchronously are chained in a loop, not by
 * recursion.
 *
 * ```text
 * a:       -1-|
 * b:          --2|
 * c:             (3|)
 * result:  -1---2(3|)
 * ```
 *
 * @example
 * ```ts
 * sequence(emitter.one(turnStart), defer(() => request(run)));
 * ```
 * @see concat
 */
export function sequence<A extends readonly unknown[]>(...sources: { [K in keyof A]: Observable<A[K]> }): Observable<A[number]> {
  type T = A[number];
  return new Observable<T>((subscriber) => {
    let index = 0;
    let looping = false;
    let completedWhileLooping = false;
    const subscribeNext = (): void => {
      looping = true;
      do {
        completedWhileLooping = false;
        if (subscriber.closed) break;
        if (index === sources.length) {
          subscriber.complete();
          break;
        }
        const inner = new LinkedObserver<T>({
          next: (value) => subscriber.next(value),
          error: (error) => subscriber.error(error),
          complete: () => {
            // The finished source is torn down before the next one starts, as in rxjs's `concat`.
            inner.unsubscribe();
            if (looping) completedWhileLooping = true;
            else subscribeNext();
          },
        });
        // Linked before it is subscribed: a consumer that leaves while a synchronous source is
        // still emitting stops it at once, as rxjs's own operators do.
        subscriber.add(inner);
        (sources[index++] as Observable<T>).subscribe(inner);
      } while (completedWhileLooping);
      looping = false;
    };
    subscribeNext();
  });
}
