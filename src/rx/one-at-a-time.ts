/**
 * `OneAtATime`: the turn to tell a value, shared by the `Values` of a run.
 *
 * @module
 */
import { Observable } from "rxjs";
import { subscribeInPlace } from "./in-place.js";

/**
 * One teller at a time. A value that comes up while another is being told (from inside that
 * one's wait or delivery: a listener aborts the run, and a tool answers the abort at once) goes
 * out after it, not inside it, so every observer sees the values in the same order and no wait
 * is called from inside another.
 *
 * ```text
 * telling a:      [wait(a) ... next(a)]
 * b comes up:         ^ inside wait(a)
 * told:           a, then b
 * ```
 *
 * @example
 * ```ts
 * const turn = new OneAtATime();
 * if (!turn.take()) return turn.after(rest); // told once the value being told is out
 * tell(value);
 * turn.release();
 * ```
 */
export class OneAtATime {
  private busy = false;
  private readonly queued: (() => void)[] = [];

  /** Takes the turn; false when another teller has it (wait with `after`). */
  take(): boolean {
    if (this.busy) return false;
    this.busy = true;
    return true;
  }

  /** Gives the turn back: what waited for it goes on now, in the order it came up. */
  release(): void {
    this.busy = false;
    const queued = this.queued;
    while (!this.busy && queued.length > 0) queued.shift()!();
  }

  /** `next`, subscribed in place once the turn is free; leaving before that drops it. */
  after<T>(next: Observable<T>): Observable<T> {
    return new Observable<T>((subscriber) => {
      if (!this.busy) return subscribeInPlace(next, subscriber);
      const go = (): void => subscribeInPlace(next, subscriber);
      this.queued.push(go);
      return () => {
        const index = this.queued.indexOf(go);
        if (index >= 0) this.queued.splice(index, 1);
      };
    });
  }
}
