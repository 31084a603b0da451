/**
 * `LinkedObserver`: an observer that is also the subscription, for operators that must be able
 * to stop a synchronous source while it is still emitting.
 *
 * @module
 */
import { type Observer, Subscription } from "rxjs";

/** The callbacks of a {@link LinkedObserver}. Each is called at most as rxjs's own subscribers call theirs. */
export interface LinkedHandlers<T> {
  next?: (value: T) => void;
  /** Required: an observer that swallowed errors would hide a failed source. */
  error: (error: unknown) => void;
  complete?: () => void;
}

/**
 * An observer that rxjs subscribes as it is. An object that is both an `Observer` and a
 * `Subscription` is used directly as the subscriber (the duck typing rxjs uses for subscribers
 * of another copy of rxjs), so the source's teardown is added to it from the start, and
 * unsubscribing it stops a synchronous source in the middle of its emissions. A plain observer
 * object is wrapped in a subscriber that `subscribe` only hands back once such a source is done.
 * rxjs's own operators get the same from the internal `createOperatorSubscriber`; this is the
 * public-API way, without the deprecated `new Subscriber()`.
 *
 * After `error` or `complete` it is stopped (nothing more is delivered) and unsubscribed, after
 * the handler ran, as rxjs's subscribers do.
 *
 * @example
 * ```ts
 * const inner = new LinkedObserver<number>({ next: (v) => subscriber.next(v), complete: () => goOn() });
 * subscriber.add(inner);   // linked before the source emits
 * source.subscribe(inner); // stops at once when `subscriber` is unsubscribed inside `next`
 * ```
 */
export class LinkedObserver<T> extends Subscription implements Observer<T> {
  private stopped = false;

  constructor(private readonly handlers: LinkedHandlers<T>) {
    super();
  }

  next(value: T): void {
    if (!this.stopped && !this.closed) this.handlers.next?.(value);
  }

  error(error: unknown): void {
    if (this.stopped || this.closed) return;
    this.stopped = true;
    try {
      this.handlers.error(error);
    } finally {
      this.unsubscribe();
    }
  }

  complete(): void {
    if (this.stopped || this.closed) return;
    this.stopped = true;
    try {
      this.handlers.complete?.();
    } finally {
      this.unsubscribe();
    }
  }
}
