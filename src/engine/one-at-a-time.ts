/**
 * `OneAtATime`: the turn to tell a value, shared by the `Values` of a run and by whoever calls
 * the run's listeners later (the Agent, once a listener's promise settled).
 *
 * @module
 */
import { Observable } from "rxjs";

/**
 * One telling at a time. A value that comes up while another is being told — from inside that
 * one's wait or delivery: a listener aborts the run, and a tool answers the abort at once — goes
 * out once that telling is over, not inside it, so no listener is called from inside its own
 * call. A telling may nest (`enter` while busy): the listeners of one event, called one after
 * another, are one telling.
 *
 * ```text
 * telling a:      enter [wait(a) ... next(a)] exit
 * b comes up:            ^ inside wait(a): after(b)
 * told:           a, then b
 * ```
 *
 * @example
 * ```ts
 * const turn = new OneAtATime();
 * if (turn.busy) return turn.after(rest); // told once the telling in progress is over
 * turn.enter();
 * try { tell(value); } finally { turn.exit(); }
 * ```
 */
export class OneAtATime {
  private depth = 0;
  private readonly queued: (() => void)[] = [];

  /** Whether a value is being told. */
  get busy(): boolean {
    return this.depth > 0;
  }

  /** A telling starts (or a nested part of the one in progress). */
  enter(): void {
    this.depth++;
  }

  /** A telling ends: once none is in progress, what waited for the turn goes on, in the order it came up. */
  exit(): void {
    // What waited runs at depth 0 and returns there: its own telling exits before it returns.
    if (--this.depth === 0) this.runQueued();
  }

  private runQueued(): void {
    const queued = this.queued;
    while (queued.length > 0) queued.shift()!();
  }

  /** `next`, subscribed in place once no telling is in progress; leaving before that drops it. */
  after<T>(next: Observable<T>): Observable<T> {
    return new Observable<T>((subscriber) => {
      if (this.depth === 0) return next.subscribe(subscriber);
      const go = (): void => void subscriber.add(next.subscribe(subscriber));
      this.queued.push(go);
      return () => {
        const index = this.queued.indexOf(go);
        if (index >= 0) this.queued.splice(index, 1);
      };
    });
  }
}
