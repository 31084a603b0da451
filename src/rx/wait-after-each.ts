/**
 * `waitAfterEach`: mirror the source, and after each value wait for what `wait(value)` returns
 * before the next one.
 *
 * @module
 */
import { type MonoTypeOperatorFunction, Observable, type Subscription } from "rxjs";
import { LinkedObserver } from "./linked-observer.js";

/**
 * Calls `wait(value)` for each value, emits the value, then holds the values behind it until
 * the Observable `wait` returned completes; `undefined` means there is nothing to wait for, and
 * the value goes straight through. An error of that Observable errors the result (a throw of
 * `wait` too, before the value). Values that arrive while waiting are buffered, in order.
 *
 * ```text
 * source:   -ab-c---|
 * wait(a):   ---|
 * wait(b):      -|
 * wait(c):       (undefined)
 * result:   -a--bc--|
 * ```
 *
 * It is `concatMap((v) => { const w = wait(v); return w ? concat(of(v), w.pipe(ignoreElements())) : of(v); })`
 * without an inner subscription per value: with a listener that returns nothing (the common
 * case), that inner subscription was the largest cost of an `Agent` run. `wait` is called before
 * the value is emitted: the `Agent` reduces its state there before any observer sees the event.
 *
 * @example
 * ```ts
 * events.pipe(waitAfterEach((event) => listenersOf(event)));
 * ```
 */
export function waitAfterEach<T>(wait: (value: T) => Observable<unknown> | undefined): MonoTypeOperatorFunction<T> {
  return (source) =>
    new Observable<T>((subscriber) => {
      const queued: T[] = [];
      let waiting: Subscription | undefined;
      let draining = false;
      let sourceDone = false;

      const deliver = (value: T): void => {
        let held: Observable<unknown> | undefined;
        try {
          held = wait(value);
        } catch (error) {
          subscriber.error(error);
          return;
        }
        subscriber.next(value);
        if (!held || subscriber.closed) return;
        const settled = new LinkedObserver<unknown>({
          error: (error) => subscriber.error(error),
          complete: () => {
            waiting = undefined;
            drain();
          },
        });
        waiting = settled;
        subscriber.add(settled);
        held.subscribe(settled);
        if (settled.closed && waiting === settled) waiting = undefined;
      };
      const drain = (): void => {
        if (draining) return;
        draining = true;
        while (!waiting && queued.length > 0 && !subscriber.closed) deliver(queued.shift()!);
        draining = false;
        if (!waiting && queued.length === 0 && sourceDone) subscriber.complete();
      };

      const upstream = new LinkedObserver<T>({
        next: (value) => {
          if (waiting || queued.length > 0) queued.push(value);
          else deliver(value);
        },
        error: (error) => subscriber.error(error),
        complete: () => {
          sourceDone = true;
          if (!waiting && queued.length === 0) subscriber.complete();
        },
      });
      subscriber.add(upstream);
      source.subscribe(upstream);
    });
}
