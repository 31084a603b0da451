/**
 * `told`: events through a waiting `emit`, the Agent's listener barrier. See CONTRACT.md in this
 * folder.
 *
 * @module
 */
import { Observable } from "rxjs";
import type { OneAtATime } from "./one-at-a-time.js";

/** What an item waits for before the next one goes out: an Observable to wait on, or nothing. */
export type WaitFor<T> = (item: T) => Observable<unknown> | undefined;

/**
 * `items`, told in order, then `tail` (untold): for each item `wait(item)` is called, the item
 * is emitted, and the next one goes out once what `wait` returned completed (its values are
 * ignored, its error is the result's). With `turn`, an item is told only while nothing else is
 * told: one that comes up inside another's telling (a listener aborts, a tool answers at once)
 * waits for that telling to end. Equivalent to
 *
 * ```ts
 * concat(from(items).pipe(concatMap((item) => defer(() => {
 *   const held = wait(item);
 *   return concat(of(item), held ? held.pipe(ignoreElements()) : EMPTY);
 * }))), from(tail))
 * ```
 *
 * with each wait subscribed inside its telling (what a wait that settles at once sets off, the
 * next listeners, is part of it), and no inner subscription for a wait that returned nothing.
 *
 * ```text
 * wait(a) = --|, wait(b) = nothing
 * told([a, b], [s]):  a-(bs|)
 * ```
 *
 * @example
 * ```ts
 * told([{ type: "turn_start" }], emit, turn, [new Append(messages)]);
 * ```
 */
export function told<T, S = never>(items: readonly T[], wait: WaitFor<T>, turn?: OneAtATime, tail: readonly S[] = [], start = 0): Observable<T | S> {
  return new Observable<T | S>((subscriber) => {
    for (let i = start; i < items.length; i++) {
      if (subscriber.closed) return undefined;
      // Come up while something else is being told (from inside its wait or delivery): after it.
      if (turn?.busy) return turn.after(told(items, wait, turn, tail, i)).subscribe(subscriber);
      const item = items[i]!;
      turn?.enter();
      let held: Observable<unknown> | undefined;
      let telling = true;
      let settled = false;
      let rest: (() => void) | undefined;
      try {
        held = wait(item);
        subscriber.next(item);
        if (held && !subscriber.closed) {
          subscriber.add(
            held.subscribe({
              error: (error: unknown) => subscriber.error(error),
              complete: () => {
                if (telling) settled = true;
                else rest!();
              },
            }),
          );
        }
      } finally {
        // Still telling while the turn is handed back: what waited for the turn runs in `exit`,
        // and may complete this item's wait before `rest` exists.
        turn?.exit();
        telling = false;
      }
      if (held && !settled) {
        // Still waiting: the rest goes on once it completes.
        rest = () => void subscriber.add(told(items, wait, turn, tail, i + 1).subscribe(subscriber));
        return undefined;
      }
    }
    if (subscriber.closed) return undefined;
    for (const value of tail) subscriber.next(value);
    subscriber.complete();
    return undefined;
  });
}
