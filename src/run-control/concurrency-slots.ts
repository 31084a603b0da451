/**
 * A fixed number of slots for work that runs side by side (SPEC R3): `maxConcurrency` of a
 * tool batch, as the concurrency argument of `mergeAll`.
 *
 * @module
 */
import { mergeAll, Observable, Subject, type Subscription } from "rxjs";
import { LinkedObserver } from "../engine/linked-observer.js";

/**
 * Work waits, first come first served, for one of `size` slots; it holds the slot until it
 * completes, errors or is unsubscribed. The slots are `mergeAll(size)` over the requests: a
 * request waits in its buffer, and a freed slot subscribes the next one in the same frame, so
 * marble tests see exact frames. Each request is the hold of a slot, not the work itself: the
 * work's values go to the one who took it, and the slot is freed before the taker hears the
 * work's end (the next work starts first, as a freed slot's does).
 *
 * ```text
 * size 2, three works of 3 frames subscribed at 0:
 * a:  ---|
 * b:  ---|
 * c:     ---|     (starts when a slot frees, at 3)
 * ```
 *
 * @internal
 */
export class ConcurrencySlots {
  private readonly requests = new Subject<Observable<never>>();
  private readonly slots: Subscription;

  constructor(size: number) {
    // The run's options are checked before (SPEC R3); this is the slots' own precondition.
    if (!(Number.isInteger(size) && size >= 1)) throw new RangeError(`ConcurrencySlots needs a whole number of slots, at least 1: got ${String(size)}.`);
    this.slots = this.requests.pipe(mergeAll(size)).subscribe();
  }

  /** Starts nothing more: the work that holds a slot is being torn down with its batch. */
  close(): void {
    this.slots.unsubscribe();
  }

  /** `work`, once a slot is free. */
  take<T>(work: Observable<T>): Observable<T> {
    return new Observable<T>((subscriber) => {
      // Closed: nothing starts any more, and nothing waits for a slot that will never come.
      if (this.slots.closed) return subscriber.complete();
      let free: (() => void) | undefined;
      let linked: LinkedObserver<T> | undefined;
      const hold = new Observable<never>((slot) => {
        // Left while it waited: the slot goes to the next request at once. (Until then the
        // request stays in mergeAll's buffer, at most until the batch closes the slots.)
        if (subscriber.closed) return slot.complete();
        const release = (): void => slot.complete();
        free = release;
        // Linked to the subscriber before the work runs: when a synchronous work's own events make
        // the taker leave (inside this subscribe, or inside a slot freed by another's end), the
        // work stops there — no hook or tool after the unsubscribe.
        linked = new LinkedObserver<T>({
          next: (value) => subscriber.next(value),
          // The taker hears an error first: its batch closes the slots then, so no waiting call
          // starts after the run failed (a slot freed by an end, below, starts the next first).
          error: (error: unknown) => {
            subscriber.error(error);
            release();
          },
          complete: () => {
            release();
            subscriber.complete();
          },
        });
        subscriber.add(linked);
        work.subscribe(linked);
        return undefined;
      });
      this.requests.next(hold);
      // Leaving while holding the slot: the work stops, then the slot is freed (leaving while
      // waiting: see above).
      return () => {
        linked?.unsubscribe();
        free?.();
      };
    });
  }
}
