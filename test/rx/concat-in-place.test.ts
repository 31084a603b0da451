/**
 * `concatInPlace`, the loop's `concatMap` for a tool call's notes (SPEC T4, L10, A6): the same
 * notifications and subscriptions as `concatMap`, with what runs in place not subscribed.
 */
import fc from "fast-check";
import { concatMap, type Observable, Observable as RxObservable } from "rxjs";
import { describe, expect, it, vi } from "vitest";
import { concatInPlace } from "../../src/rx/concat-in-place.js";
import { deferred } from "../../src/rx/deferred.js";
import { Values } from "../../src/rx/values.js";
import { framesOf, newScheduler } from "../helpers/marbles.js";

describe("concatInPlace", () => {
  it("T4: each projected Observable starts when the one before completed, as concatMap", () => {
    newScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const source = hot<"a" | "b">("-a-b---|");
      const inner = { a: cold("--x|"), b: cold("(y|)") };
      expectObservable(source.pipe(concatInPlace((v: "a" | "b") => inner[v]))).toBe("---xy--|");
      expectSubscriptions(inner.a.subscriptions).toBe("-^--!");
      expectSubscriptions(inner.b.subscriptions).toBe("----(^!)");
    });
  });

  it("T4: a property: the same notifications as concatMap for any mix of in-place, synchronous and delayed projections", () => {
    const kinds = ["values", "valuesThenDelayed", "deferred", "sync", "delayed", "error"] as const;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.constantFrom(...kinds)), { maxLength: 6 }),
        fc.integer({ min: 0, max: 12 }),
        (steps, unsubscribeAt) => {
          const run = (operator: "ours" | "theirs") =>
            framesOf(({ cold, hot }) => {
              const marble = steps.map(([gap], i) => "-".repeat(gap) + String.fromCharCode(97 + i)).join("") + "|";
              const valuesOf = Object.fromEntries(steps.map((_, i) => [String.fromCharCode(97 + i), i]));
              const source = hot(marble, valuesOf) as Observable<number>;
              const project = (i: number): Observable<string> => {
                switch (steps[i]![1]) {
                  case "values":
                    return new Values([`${i}x`, `${i}y`]);
                  case "valuesThenDelayed":
                    return new Values([`${i}x`], () => cold("--z|", { z: `${i}z` }));
                  case "deferred":
                    return deferred(() => new Values([`${i}d`]));
                  case "sync":
                    return cold("(s|)", { s: `${i}s` });
                  case "delayed":
                    return cold("-l-|", { l: `${i}l` });
                  case "error":
                    return cold("-#", undefined, `${i} failed`);
                }
              };
              return source.pipe(operator === "ours" ? concatInPlace(project) : concatMap(project));
            }, unsubscribeAt);
          expect(run("ours")).toEqual(run("theirs"));
        },
      ),
      { seed: 20261204, numRuns: 300 },
    );
  });

  it("T4: what runs in place is not subscribed", () => {
    const subscribe = vi.spyOn(RxObservable.prototype, "subscribe");
    try {
      const source = new RxObservable<number>((subscriber) => {
        subscriber.next(1);
        subscriber.next(2);
        subscriber.complete();
      });
      const seen: string[] = [];
      source.pipe(concatInPlace((n) => deferred(() => new Values([`${n}a`, `${n}b`])))).subscribe((v) => seen.push(v));
      expect(seen).toEqual(["1a", "1b", "2a", "2b"]);
      // The result and the source only.
      expect(subscribe).toHaveBeenCalledTimes(2);
    } finally {
      subscribe.mockRestore();
    }
  });

  it("A6: a project that throws errors the result and stops the source", () => {
    newScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot("-a-b-|");
      const result = source.pipe(
        concatInPlace((v: string) => {
          if (v === "b") throw new Error("no b");
          return new Values([v]);
        }),
      );
      expectObservable(result).toBe("-a-#", undefined, new Error("no b"));
      expectSubscriptions(source.subscriptions).toBe("^--!");
    });
  });

  it("L10: unsubscribing tears down the running projection and the source", () => {
    newScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const source = hot("-a-b--|");
      const inner = cold("---x|");
      expectObservable(source.pipe(concatInPlace(() => inner)), "---!").toBe("---");
      expectSubscriptions(inner.subscriptions).toBe("-^-!");
      expectSubscriptions(source.subscriptions).toBe("^--!");
    });
  });
});
