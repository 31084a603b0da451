/**
 * `WaitGate`: values delivered one at a time, each after what the previous one's `wait`
 * returned completed, for a producer that is not an Observable (the provider boundary).
 *
 * @module
 */
import type { Observable, Subscriber, Subscription } from "rxjs";
import { LinkedObserver } from "./linked-observer.js";

/**
 * Hands values to `deliver` in order, each after `wait(value)` was called and before what it
 * returned completed; values pushed meanwhile are queued. `end()` completes `subscriber` once
 * every value was delivered and waited for. A throw of `wait` errors `subscriber` before the
 * value, an error of what it returned after it. What is being waited for is added to
 * `subscriber`, so unsubscribing it stops the wait.
 *
 * ```text
 * push:     a b     c   end
 * wait(a):  --|
 * deliver:  a-b-----c---|
 * ```
 *
 * @example
 * ```ts
 * const gate = new WaitGate(wait, subscriber, (value) => subscriber.next(value));
 * source.subscribe({ next: (v) => gate.push(v), error: (e) => subscriber.error(e), complete: () => gate.end() });
 * ```
 */
export class WaitGate<T> {
  private readonly queued: T[] = [];
  private waiting: Subscription | undefined;
  /**
   * A value is being passed (its `wait` called, then delivered): what is pushed meanwhile, even
   * from inside `wait`, waits behind it and its wait.
   */
  private passing = false;
  private ended = false;

  constructor(
    private readonly wait: (value: T) => Observable<unknown> | undefined,
    private readonly subscriber: Subscriber<unknown>,
    private readonly deliver: (value: T) => void,
    /** What happens once the last value was delivered and waited for after `end()`: `subscriber` completes unless told otherwise. */
    private readonly finish: () => void = () => subscriber.complete(),
  ) {}

  /**
   * A value: delivered now, or queued behind the one being waited for; dropped once
   * `subscriber` is closed (errored, completed or unsubscribed): its `wait` is not called then.
   */
  push(value: T): void {
    if (this.subscriber.closed) return;
    // The queue holds values only while one is waited for or passed (or once the subscriber closed).
    if (this.waiting || this.passing) this.queued.push(value);
    else {
      this.pass(value);
      // Only what was pushed or ended meanwhile is left to do.
      if (this.queued.length > 0 || this.ended) this.drain();
    }
  }

  /** No more values: `finish` (by default `subscriber` completes) after the last one's wait. */
  end(): void {
    this.ended = true;
    if (!this.waiting && !this.passing && !this.subscriber.closed) this.finish();
  }

  private pass(value: T): void {
    const subscriber = this.subscriber;
    let held: Observable<unknown> | undefined;
    this.passing = true;
    try {
      held = this.wait(value);
    } catch (error) {
      // Closed for good: nothing more passes, so `passing` stays as it is.
      subscriber.error(error);
      return;
    }
    try {
      this.deliver(value);
    } finally {
      this.passing = false;
    }
    // Holding is a method of its own, so this one stays small enough to inline into the
    // per-delta path, where nothing holds.
    if (held && !subscriber.closed) this.hold(held);
  }

  /** The next value waits until `held` completed. */
  private hold(held: Observable<unknown>): void {
    const subscriber = this.subscriber;
    // A wait that completes while being subscribed lets the caller drain, once its own teardown
    // ran; one that completes later is torn down, then the queue drains.
    let subscribing = true;
    const settled: LinkedObserver<unknown> = new LinkedObserver<unknown>({
      error: (error) => subscriber.error(error),
      complete: () => {
        settled.unsubscribe();
        this.waiting = undefined;
        if (!subscribing) this.drain();
      },
    });
    this.waiting = settled;
    subscriber.add(settled);
    held.subscribe(settled);
    subscribing = false;
  }

  /**
   * Called only where nothing is passed or waited for (after a pass, or once a wait completed
   * outside its subscribe), so it never runs inside itself: a pass that holds ends the loop, and
   * a wait that completes while subscribed leaves the draining to its caller.
   */
  private drain(): void {
    const { queued, subscriber } = this;
    while (!this.waiting && queued.length > 0 && !subscriber.closed) this.pass(queued.shift()!);
    // The loop ended on a wait, a closed subscriber or an empty queue: only the last finishes.
    if (!this.waiting && this.ended && !subscriber.closed) this.finish();
  }
}
