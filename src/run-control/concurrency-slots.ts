/**
 * A fixed number of slots for work that runs side by side (SPEC R3): `maxConcurrency` of a
 * tool batch.
 *
 * @module
 */
import { Observable } from "rxjs";
import { LinkedObserver } from "../engine/linked-observer.js";

/**
 * Work waits, first come first served, for one of `size` slots; it holds the slot until it
 * completes, errors or is unsubscribed. Synchronous: a slot freed in one frame starts the next
 * work in that frame, so marble tests see exact frames.
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
  private free: number;
  private readonly waiting: (() => void)[] = [];
  /** Set when the batch is torn down: a slot freed then starts nothing (no tool runs after an unsubscribe). */
  private closed = false;

  constructor(size: number) {
    this.free = size;
  }

  /** Starts nothing more: the work that holds a slot is being torn down with its batch. */
  close(): void {
    this.closed = true;
  }

  /** `work`, once a slot is free. */
  take<T>(work: Observable<T>): Observable<T> {
    return new Observable<T>((subscriber) => {
      let holding = false;
      let inner: { unsubscribe(): void } | undefined;
      const release = (): void => {
        if (!holding) return;
        holding = false;
        this.free++;
        if (this.closed) return;
        const next = this.waiting.shift();
        if (next) {
          this.free--;
          next();
        }
      };
      const start = (): void => {
        holding = true;
        // Linked to the subscriber before the work runs: when a synchronous work's own events make
        // the consumer leave (inside this subscribe, or inside a slot freed by another's end), the
        // work stops there — no hook or tool after the unsubscribe.
        const linked = new LinkedObserver<T>({
          next: (value) => subscriber.next(value),
          error: (error: unknown) => {
            release();
            subscriber.error(error);
          },
          complete: () => {
            release();
            subscriber.complete();
          },
        });
        inner = linked;
        subscriber.add(linked);
        work.subscribe(linked);
      };
      if (this.free > 0) {
        this.free--;
        start();
      } else this.waiting.push(start);
      return () => {
        const index = this.waiting.indexOf(start);
        if (index >= 0) this.waiting.splice(index, 1);
        inner?.unsubscribe();
        release();
      };
    });
  }
}
