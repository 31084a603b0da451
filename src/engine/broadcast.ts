/**
 * `Broadcast`: a hot stream that hands each value to whoever is subscribed at that moment.
 *
 * @module
 */
import { Observable, type Subscriber } from "rxjs";

// One empty list for every Broadcast nobody subscribed to.
const NONE: readonly Subscriber<never>[] = Object.freeze([]);

/**
 * The part of a `Subject` the `Agent` needs for `events$` and `state$`: `next` sends to the
 * subscribers of the moment (one subscribing during a `next` gets the values after it), and costs
 * one length check when there are none, which is the common case on the per-event path. It never
 * completes or errors. Without rxjs's `Subject`, a bundle that needs nothing else of it is smaller.
 *
 * ```text
 * next:        a   b   c
 * subscriber:    ^---------   (subscribed after a)
 * sees:            b   c
 * ```
 *
 * @example
 * ```ts
 * const changes = new Broadcast<void>();
 * const changes$ = changes.observable; // subscribe, later: changes.next()
 * ```
 */
export class Broadcast<T> {
  /** Replaced, never changed in place, so a `next` in progress keeps the list it started with. */
  private subscribers: readonly Subscriber<T>[] = NONE;
  private stream: Observable<T> | undefined;

  /** The stream (made on first read, the same one after): each subscriber gets the values sent while it is subscribed. */
  get observable(): Observable<T> {
    return (this.stream ??= new Observable<T>((subscriber) => {
      this.subscribers = [...this.subscribers, subscriber];
      return () => {
        this.subscribers = this.subscribers.filter((s) => s !== subscriber);
      };
    }));
  }

  /** Whether anyone is subscribed now. */
  get observed(): boolean {
    return this.subscribers.length > 0;
  }

  /** Sends `value` to the subscribers of this moment. */
  next(value: T): void {
    const subscribers = this.subscribers;
    for (let i = 0; i < subscribers.length; i++) subscribers[i]!.next(value);
  }
}
