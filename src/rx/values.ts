/**
 * `Values` and `just`: `of` for the loop, without the scheduler overload. rxjs's `of` carries
 * `from` and its scheduled variants (an app bundle pays for them even when no scheduler is ever
 * passed), and spreads its arguments into an array on each call.
 *
 * @module
 */
import { Observable, type Subscriber } from "rxjs";
import { InPlace, subscribeInPlace } from "./in-place.js";
import { LinkedObserver } from "../engine/linked-observer.js";
import type { OneAtATime } from "../engine/one-at-a-time.js";

/** What an item waits for before the next one goes out: an Observable to wait on, or nothing. */
export type WaitFor<T> = (item: T) => Observable<unknown> | undefined;

/**
 * Values known when it is made, then optionally what `rest()` returns: `of(...items)`, or
 * `concat(of(...items), defer(rest))`; `rest` is not made if the consumer left. With `wait`, each item
 * goes out after `wait(item)` was called, and the next one only once what that returned
 * completed (its values are ignored; its error is the result's). Done in place by the loop's
 * operators: the same notifications, without a subscriber and a teardown per step. A wait that
 * completes while it is being subscribed is gone through in the same loop, so any number of
 * them takes no deeper stack. With `turn`, an item is told (its wait called, it is emitted, and
 * its wait subscribed) only while nothing else is told: else it waits for the turn.
 *
 * ```text
 * new Values([a, b]):            (ab|)
 * new Values([a, b], () => -x|):  (ab)-x|
 * with wait(a) = --|:            a-(b|)
 * ```
 *
 * @example
 * ```ts
 * new Values([{ type: "agent_start" }, { type: "turn_start" }], () => request(run), emitter.wait);
 * ```
 * @see of
 */
export class Values<T> extends InPlace<T> {
  constructor(
    private readonly items: readonly T[],
    private readonly rest?: () => Observable<T>,
    private readonly wait?: WaitFor<T>,
    private readonly start = 0,
    private readonly turn?: OneAtATime,
  ) {
    super();
  }

  emitInPlace(subscriber: Subscriber<T>): Observable<T> | undefined {
    const { items, wait, turn } = this;
    for (let i = this.start; i < items.length; i++) {
      if (subscriber.closed) return undefined;
      const item = items[i]!;
      if (turn) {
        // Come up while something else is being told (from inside its wait or delivery): after it.
        if (turn.busy) return turn.after(new Values(items, this.rest, wait, i, turn));
        turn.enter();
      }
      let waiting: HeldWait | undefined;
      try {
        const held = wait?.(item);
        subscriber.next(item);
        // Subscribed in the turn: what a wait that settles at once sets off (the next listeners) is part of this telling.
        if (held && !subscriber.closed) waiting = new HeldWait(held, subscriber);
      } finally {
        turn?.exit();
      }
      // Still waiting: the rest goes on once it completes. Else it settled (its teardown ran): on here.
      if (waiting?.open) return waiting.then(new Values(items, this.rest, wait, i + 1, turn));
    }
    // A consumer that left (or a wait that failed): `rest` is not made.
    if (subscriber.closed || !this.rest) return undefined;
    return this.rest();
  }
}

/**
 * A wait, subscribed at once, linked to the consumer (it stops when the consumer leaves); its
 * error is the consumer's. `open` while it has not completed; `then(next)` is what goes on after it.
 */
class HeldWait {
  open = true;
  private onDone: (() => void) | undefined;
  private readonly waiting: LinkedObserver<unknown>;

  constructor(held: Observable<unknown>, subscriber: Subscriber<unknown>) {
    this.waiting = new LinkedObserver<unknown>({
      error: (error) => {
        this.open = false;
        subscriber.error(error);
      },
      complete: () => {
        // Torn down before anything after it, as `WaitGate` does.
        this.waiting.unsubscribe();
        this.open = false;
        this.onDone?.();
      },
    });
    subscriber.add(this.waiting);
    held.subscribe(this.waiting);
  }

  /** `next`, subscribed in place once the wait completed; leaving before that stops the wait. */
  then<T>(next: Observable<T>): Observable<T> {
    return new Observable<T>((subscriber) => {
      if (!this.open) return subscribeInPlace(next, subscriber);
      subscriber.add(this.waiting);
      this.onDone = () => subscribeInPlace(next, subscriber);
    });
  }
}

/**
 * One value, then completion, on subscription: `of(value)`.
 *
 * ```text
 * just(a):  (a|)
 * ```
 *
 * @example
 * ```ts
 * just(new NextTurn([], lastTurn));
 * ```
 * @see of
 */
export function just<T>(value: T): Observable<T> {
  return new Values([value]);
}
