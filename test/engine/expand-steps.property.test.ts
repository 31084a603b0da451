/**
 * `expandSteps` held to the stock operators it stands for (src/engine/CONTRACT.md): on random
 * trees of phases — events at random frames, each phase ending with at most one step — it emits
 * what `expand(project-or-EMPTY)` + `filter` emits, at the same frames, and tears every phase
 * down when unsubscribed at a random frame (SPEC L4, L10).
 */
import fc from "fast-check";
import { concat, EMPTY, expand, filter, finalize, map, Observable, of, Subject, takeUntil, timer } from "rxjs";
import { describe, expect, it } from "vitest";
import { expandSteps } from "../../src/engine/expand-steps.js";
import { newScheduler } from "../helpers/marbles.js";

interface PhaseSpec {
  events: { gap: number; value: number }[];
  step?: { gap: number; next: PhaseSpec };
}

class Step {
  constructor(readonly next: PhaseSpec) {}
}

const isStep = (value: number | Step): value is Step => value instanceof Step;

const phaseSpec: fc.Arbitrary<PhaseSpec> = fc.letrec<{ phase: PhaseSpec }>((tie) => ({
  phase: fc.record(
    {
      events: fc.array(fc.record({ gap: fc.integer({ min: 0, max: 3 }), value: fc.integer({ min: 0, max: 99 }) }), { maxLength: 4 }),
      step: fc.option(fc.record({ gap: fc.integer({ min: 0, max: 3 }), next: tie("phase") }), { nil: undefined, depthSize: "small" }),
    },
    { requiredKeys: ["events"] },
  ),
})).phase;

/** A phase's values at their frames (a gap of 0: in the same frame as the value before). */
function phaseOf(spec: PhaseSpec, counts: { opened: number; closed: number }): Observable<number | Step> {
  const at = <T>(gap: number, value: T): Observable<T> => (gap === 0 ? of(value) : timer(gap).pipe(map(() => value)));
  const parts: Observable<number | Step>[] = spec.events.map(({ gap, value }) => at(gap, value));
  if (spec.step) parts.push(at(spec.step.gap, new Step(spec.step.next)));
  return new Observable<number | Step>((subscriber) => {
    counts.opened++;
    return concat(...parts)
      .pipe(finalize(() => counts.closed++))
      .subscribe(subscriber);
  });
}

describe("expandSteps (SPEC L4): the stock expand, without an inner subscription per event", () => {
  it("L4: the same values at the same frames as expand + filter, and every phase torn down", () => {
    fc.assert(
      fc.property(phaseSpec, fc.option(fc.integer({ min: 0, max: 12 }), { nil: undefined }), (root, unsubscribeAt) => {
        const engine = { opened: 0, closed: 0 };
        const stock = { opened: 0, closed: 0 };
        // Both stopped at the same frame (takeUntil unsubscribes the source as a consumer leaving would).
        const until = <T>(source: Observable<T>): Observable<T> => (unsubscribeAt === undefined ? source : source.pipe(takeUntil(timer(unsubscribeAt))));
        newScheduler().run(({ expectObservable }) => {
          const viaEngine = phaseOf(root, engine).pipe(expandSteps(isStep, (step) => phaseOf(step.next, engine)));
          const viaStock = phaseOf(root, stock).pipe(
            expand((value) => (isStep(value) ? phaseOf(value.next, stock) : EMPTY)),
            filter((value): value is number => !isStep(value)),
          );
          expectObservable(until(viaEngine)).toEqual(until(viaStock));
        });
        expect(engine).toEqual(stock);
        expect(engine.closed).toBe(engine.opened);
      }),
      { numRuns: 300 },
    );
  });

  it("L4: a run of 20 000 synchronous steps takes no deeper stack", () => {
    let left = 20_000;
    const next = (): Observable<number | Step> => (left-- > 0 ? of(left, new Step({ events: [] })) as Observable<number | Step> : EMPTY);
    const seen: number[] = [];
    next()
      .pipe(expandSteps(isStep, () => next()))
      .subscribe((value) => seen.push(value as number));
    expect(seen).toHaveLength(20_000);
  });

  it("L4: the source completing from inside a step's projection, which ends with a step of its own: that step is still projected, then it completes", () => {
    const source = new Subject<number | Step>();
    const second = new Step({ events: [] });
    const values: unknown[] = [];
    let completed = false;
    source
      .pipe(
        expandSteps(isStep, (step): Observable<number | Step> =>
          step === second
            ? of(8)
            : new Observable<number | Step>((subscriber) => {
                // The source ends while its own step is being projected (a re-entrant producer).
                source.complete();
                subscriber.next(7);
                subscriber.next(second);
                subscriber.complete();
              }),
        ),
      )
      .subscribe({ next: (value) => values.push(value), complete: () => (completed = true) });
    source.next(new Step({ events: [] }));
    expect(values).toEqual([7, 8]);
    expect(completed).toBe(true);
  });

  it("L10: an error of a phase is the result's, after what came before it", () => {
    const failing = new Step({ events: [] });
    const values: unknown[] = [];
    let failure: unknown;
    (of(1, failing) as Observable<number | Step>)
      .pipe(
        expandSteps(isStep, (): Observable<number | Step> => {
          throw new Error("phase failed");
        }),
      )
      .subscribe({ next: (value) => values.push(value), error: (error) => (failure = error) });
    expect(values).toEqual([1]);
    expect((failure as Error).message).toBe("phase failed");
  });
});
