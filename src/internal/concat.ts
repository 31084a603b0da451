/**
 * A leaner `concat` for the loop's internal sequencing.
 *
 * rxjs 7's `concat` is `concatAll()` over `from(sources)`: an array Observable, a `mergeMap`
 * with a buffer and an operator subscriber per source, about 0.5 µs per subscription in
 * Node (rxjs resolves to its ES5 build there). The loop builds several per turn and per tool
 * call, so it showed up in the issue 6 benchmarks. Same contract for Observable sources:
 * each source is subscribed when the previous one completes, values and errors pass through,
 * completion after the last, unsubscribing stops the current source and starts no other.
 * Sources that complete synchronously are chained in a loop, not by recursion.
 *
 * @internal
 * @module
 */
import { Observable, Subscriber } from "rxjs";

export function concat<T>(...sources: Observable<T>[]): Observable<T> {
  return new Observable<T>((subscriber) => {
    let index = 0;
    let current: Subscriber<T> | undefined;
    let looping = false;
    let completedDuringSubscribe = false;
    // Registered before any source is subscribed: a consumer that leaves while a synchronous
    // source is still emitting stops it at once (issue 7), as rxjs's own operators do.
    subscriber.add(() => current?.unsubscribe());
    const subscribeNext = (): void => {
      looping = true;
      do {
        completedDuringSubscribe = false;
        if (subscriber.closed) break;
        if (index === sources.length) {
          subscriber.complete();
          break;
        }
        // A Subscriber we hold before subscribing (not an observer object, which rxjs wraps in a
        // subscriber we only get back after a synchronous source is done).
        const inner: Subscriber<T> = new Subscriber<T>({
          next: (value) => subscriber.next(value),
          error: (error: unknown) => subscriber.error(error),
          complete: () => {
            if (current === inner) current = undefined;
            if (looping) completedDuringSubscribe = true;
            else subscribeNext();
          },
        });
        current = inner;
        sources[index++]!.subscribe(inner);
      } while (completedDuringSubscribe);
      looping = false;
    };
    subscribeNext();
  });
}
