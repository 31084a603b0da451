/**
 * The slots behind `maxConcurrency` (SPEC R3) held to `mergeMap` with that concurrency: works
 * taken at random frames, each running a random number of frames (zero: it ends as it starts),
 * start and end at the frames `mergeMap(work, size)` over the same takes gives them, in the
 * same order within a frame.
 */
import fc from "fast-check";
import { defer, map, merge, mergeMap, Observable, timer } from "rxjs";
import { describe, expect, it } from "vitest";
import { ConcurrencySlots } from "../../src/run-control/concurrency-slots.js";
import { newScheduler } from "../helpers/marbles.js";

interface Take {
  /** The frame the work is taken at (takes happen in this order). */
  at: number;
  /** How many frames it runs. */
  frames: number;
}

const takes = fc.array(fc.record({ at: fc.integer({ min: 0, max: 4 }), frames: fc.integer({ min: 0, max: 4 }) }), { minLength: 1, maxLength: 7 });

/** Work `i`: logs its start and end with the frame, runs `frames` frames. */
function work(i: number, frames: number, log: string[], now: () => number): Observable<number> {
  return defer(() => {
    log.push(`${now()} start ${i}`);
    const done = frames === 0 ? new Observable<number>((s) => (s.next(i), s.complete())) : timer(frames).pipe(map(() => i));
    return new Observable<number>((subscriber) =>
      done.subscribe({
        next: (value) => subscriber.next(value),
        complete: () => {
          log.push(`${now()} end ${i}`);
          subscriber.complete();
        },
      }),
    );
  });
}

/** The takes in order of their frame, ties in list order, as the source of both runs. */
function ordered(list: readonly Take[]): { i: number; take: Take }[] {
  return list.map((take, i) => ({ i, take })).sort((a, b) => a.take.at - b.take.at || a.i - b.i);
}

function run(list: readonly Take[], size: number, through: "slots" | "mergeMap"): string[] {
  const log: string[] = [];
  const scheduler = newScheduler();
  scheduler.run(() => {
    const now = (): number => scheduler.now();
    const each = ordered(list);
    const taken = merge(...each.map(({ i, take }) => timer(take.at).pipe(map(() => i))));
    let result: Observable<number>;
    if (through === "mergeMap") result = taken.pipe(mergeMap((i) => work(i, list[i]!.frames, log, now), size));
    else {
      const slots = new ConcurrencySlots(size);
      result = taken.pipe(mergeMap((i) => slots.take(work(i, list[i]!.frames, log, now))));
    }
    // Subscribed once; `run` flushes the virtual clock when this callback returns.
    result.subscribe();
  });
  return log;
}

describe("R3: ConcurrencySlots is mergeMap's concurrency", () => {
  it("R3: works taken at random frames start and end where mergeMap(work, size) starts and ends them", () => {
    fc.assert(
      fc.property(takes, fc.integer({ min: 1, max: 4 }), (list, size) => {
        expect(run(list, size, "slots")).toEqual(run(list, size, "mergeMap"));
      }),
      { numRuns: 300 },
    );
  });
});
