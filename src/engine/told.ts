/**
 * `told`: one event through a waiting `emit` (the Agent's listener barrier). See CONTRACT.md in
 * this folder.
 *
 * @module
 */
import { Observable } from "rxjs";
import type { OneAtATime } from "./one-at-a-time.js";

/** What an item waits for before the next one goes out: an Observable to wait on, or nothing. */
export type WaitFor<T> = (item: T) => Observable<unknown> | undefined;

/**
 * `item`, told: `wait(item)` is called, the item is emitted, and the result completes once what
 * `wait` returned completed (its values are ignored, its error is the result's). With `turn`, it
 * is told only while nothing else is told: an item that comes up inside another's telling (a
 * listener aborts, a tool answers at once) waits for that telling to end. Equivalent to
 *
 * ```ts
 * defer(() => { const held = wait(item); return concat(of(item), held ? held.pipe(ignoreElements()) : EMPTY); })
 * ```
 *
 * with the wait subscribed inside the telling (what a wait that settles at once sets off, the
 * next listeners, is part of it) and completion sent after it.
 *
 * ```text
 * wait(a) = --|
 * told(a):  a-|
 * ```
 *
 * @example
 * ```ts
 * from(events).pipe(concatMap((event) => told(event, wait, turn)));
 * ```
 */
export function told<T>(item: T, wait: WaitFor<T>, turn?: OneAtATime): Observable<T> {
  return new Observable<T>((subscriber) => {
    if (turn?.busy) return turn.after(told(item, wait, turn)).subscribe(subscriber);
    turn?.enter();
    let held: Observable<unknown> | undefined;
    let telling = true;
    let settled = false;
    try {
      held = wait(item);
      subscriber.next(item);
      if (held && !subscriber.closed) {
        subscriber.add(
          held.subscribe({
            error: (error: unknown) => subscriber.error(error),
            complete: () => {
              if (telling) settled = true;
              else subscriber.complete();
            },
          }),
        );
      }
    } finally {
      telling = false;
      turn?.exit();
    }
    if (!held || settled) subscriber.complete();
    return undefined;
  });
}
