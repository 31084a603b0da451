/**
 * `deferred`: rxjs's `defer` for the loop's steps, which the loop's own operators make in place.
 *
 * @module
 */
import type { Observable, Subscriber } from "rxjs";
import { InPlace } from "./in-place.js";

/** An Observable made by `make` on each subscription; in place, `make` is called instead. */
export class Deferred<T> extends InPlace<T> {
  constructor(private readonly make: () => Observable<T>) {
    super();
  }

  emitInPlace(_subscriber: Subscriber<T>): Observable<T> {
    return this.make();
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
