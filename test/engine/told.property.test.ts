/**
 * `told` and `WaitGate` held to the stock operators they stand for (src/engine/CONTRACT.md): on
 * random items and random waits — none, a few frames, a failure after a few frames — they emit
 * what `concatMap` over `concat(of(item), wait)` emits, at the same frames, with the same error
 * (SPEC L11, A5, A6).
 */
import fc from "fast-check";
import { concat, concatMap, defer, EMPTY, from, ignoreElements, map, Observable, of, Subject, throwError, timer } from "rxjs";
import { describe, it } from "vitest";
import { told } from "../../src/engine/told.js";
import { WaitGate } from "../../src/engine/wait-gate.js";
import { newScheduler } from "../helpers/marbles.js";

type WaitSpec = { kind: "none" } | { kind: "frames"; frames: number } | { kind: "fails"; frames: number };

const waitSpec: fc.Arbitrary<WaitSpec> = fc.oneof(
  fc.constant<WaitSpec>({ kind: "none" }),
  fc.record({ kind: fc.constant("frames" as const), frames: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ kind: fc.constant("fails" as const), frames: fc.integer({ min: 0, max: 3 }) }),
);

const items = fc.array(fc.record({ value: fc.integer({ min: 0, max: 99 }), wait: waitSpec, gap: fc.integer({ min: 0, max: 3 }) }), { maxLength: 6 });

/** The wait of an item: nothing, a delay, or a failure after a delay. */
function waitOf(spec: WaitSpec): Observable<unknown> | undefined {
  if (spec.kind === "none") return undefined;
  const delay = spec.frames === 0 ? of(0) : timer(spec.frames);
  return spec.kind === "frames" ? delay : delay.pipe(concatMap(() => throwError(() => new Error("listener failed"))));
}

/** The stock equivalent of telling one item: the wait called, the item emitted, the wait waited for. */
function stockTold<T>(item: T, wait: (item: T) => Observable<unknown> | undefined): Observable<T> {
  return defer(() => {
    const held = wait(item);
    return concat(of(item), held ? held.pipe(ignoreElements()) : EMPTY);
  });
}

describe("told (SPEC L11): concatMap over each item and its wait", () => {
  it("L11 A6: the same items, frames, error and tail as the stock operators", () => {
    fc.assert(
      fc.property(items, fc.boolean(), (list, withTail) => {
        const waits = new Map(list.map((entry, index) => [index, entry.wait]));
        const indexes = list.map((_, index) => index);
        const wait = (index: number): Observable<unknown> | undefined => waitOf(waits.get(index)!);
        const tail = withTail ? [-1] : [];
        newScheduler().run(({ expectObservable }) => {
          const engine = told<number, number>(indexes, wait, undefined, tail);
          const stock = concat(from(indexes).pipe(concatMap((index) => stockTold(index, wait))), from(tail));
          expectObservable(engine).toEqual(stock);
        });
      }),
      { numRuns: 300 },
    );
  });
});

describe("WaitGate (SPEC L11): a pushed value after the wait of the one before", () => {
  it("L11 A6: values pushed at random frames come out as concatMap over a Subject has them", () => {
    fc.assert(
      fc.property(items, (list) => {
        const waits = new Map(list.map((entry) => [entry.value, entry.wait]));
        const wait = (value: number): Observable<unknown> | undefined => waitOf(waits.get(value)!);
        // One wait per distinct value: the generated list's first entry for it.
        const pushes = list.filter((entry, index) => list.findIndex((e) => e.value === entry.value) === index);
        const source = (): Observable<number> => concat(...pushes.map(({ value, gap }) => (gap === 0 ? of(value) : timer(gap).pipe(map(() => value)))));
        newScheduler().run(({ expectObservable }) => {
          const engine = new Observable<number>((subscriber) => {
            const gate = new WaitGate<number>(wait, subscriber as never, (value) => subscriber.next(value));
            return source().subscribe({ next: (value) => gate.push(value), error: (error) => subscriber.error(error), complete: () => gate.end() });
          });
          const stock = defer(() => {
            const pushed = new Subject<number>();
            return new Observable<number>((subscriber) => {
              const out = pushed.pipe(concatMap((value) => stockTold(value, wait))).subscribe(subscriber);
              out.add(source().subscribe(pushed));
              return out;
            });
          });
          expectObservable(engine).toEqual(stock);
        });
      }),
      { numRuns: 300 },
    );
  });
});
