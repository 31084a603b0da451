/**
 * The stock equivalent of src/engine/told.ts, for bench/engine.mjs: `concatMap` over each item
 * and its wait, then the tail (the turn is kept: it decides correctness, not speed).
 */
import { concat, concatMap, defer, from, ignoreElements, type Observable, of } from "rxjs";
import type { OneAtATime } from "../../src/engine/one-at-a-time.js";

export type WaitFor<T> = (item: T) => Observable<unknown> | undefined;

export function told<T, S = never>(items: readonly T[], wait: WaitFor<T>, turn?: OneAtATime, tail: readonly S[] = []): Observable<T | S> {
  const one = (item: T): Observable<T> =>
    defer(() => {
      const held = wait(item);
      return held ? concat(of(item), held.pipe(ignoreElements())) : of(item);
    });
  const each = (item: T): Observable<T> => (turn ? defer(() => (turn.busy ? turn.after(one(item)) : one(item))) : one(item));
  return concat(from(items).pipe(concatMap(each)), from(tail));
}
