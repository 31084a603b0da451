/**
 * `deferred`: rxjs's `defer` for the loop's steps, which the loop's own operators unwrap in place.
 *
 * @module
 */
import { Observable } from "rxjs";

/**
 * An Observable made by `make` on each subscription. `sequence` and its kin call `make` in
 * place of subscribing to it (the same notifications, one subscription fewer per step).
 */
export class Deferred<T> extends Observable<T> {
  constructor(readonly make: () => Observable<T>) {
    super((subscriber) => {
      let made: Observable<T>;
      try {
        made = make();
      } catch (error) {
        return subscriber.error(error);
      }
      made.subscribe(subscriber);
    });
  }
}

/**
 * `defer(make)` where `make` returns an Observable: `make` runs on each subscription, and what it
 * throws is an error notification.
 *
 * ```text
 * make():    -a|
 * deferred:  -a|   (made when subscribed)
 * ```
 *
 * @example
 * ```ts
 * deferred(() => (run.signal.aborted ? stop(run) : request(run)));
 * ```
 * @see defer
 */
export function deferred<T>(make: () => Observable<T>): Observable<T> {
  return new Deferred(make);
}
