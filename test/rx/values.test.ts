/**
 * `just` and `values`, the loop's `of` (SPEC L4, L10): synchronous, cold, and stopped when the
 * consumer leaves in the middle.
 */
import fc from "fast-check";
import { concat, defer, EMPTY, ignoreElements, Observable, of, take, throwError } from "rxjs";
import { sequence } from "../../src/rx/sequence.js";
import { describe, expect, it } from "vitest";
import { just, Values } from "../../src/rx/values.js";
import { framesOf, newScheduler } from "../helpers/marbles.js";

describe("just and Values", () => {
  it("L4: just emits its value and completes in the frame of subscription", () => {
    newScheduler().run(({ expectObservable }) => {
      expectObservable(just("a")).toBe("(a|)");
    });
  });

  it("L4: values emits the items in order and completes, each subscription anew", () => {
    newScheduler().run(({ expectObservable }) => {
      const source = new Values(["a", "b", "c"]);
      expectObservable(source).toBe("(abc|)");
      expectObservable(source).toBe("(abc|)");
      expectObservable(new Values([])).toBe("|");
    });
  });

  it("L10: a consumer that leaves inside values stops it there: no later item is read", () => {
    const read: number[] = [];
    const items = new Proxy([1, 2, 3, 4], {
      get: (target, key, receiver) => {
        if (typeof key === "string" && /^\d+$/.test(key)) read.push(Number(key));
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const seen: number[] = [];
    let completed = false;
    new Values(items).pipe(take(2)).subscribe({ next: (v) => seen.push(v), complete: () => (completed = true) });
    expect(seen).toEqual([1, 2]);
    expect(completed).toBe(true);
    expect(read).toEqual([0, 1]);
  });

  it("L4: values reads the array at subscription, not at creation", () => {
    const items = [1];
    const source = new Values(items);
    items.push(2);
    const seen: number[] = [];
    source.subscribe((v) => seen.push(v));
    expect(seen).toEqual([1, 2]);
  });
});

describe("Values with a rest", () => {
  it("L4: the items, then what rest() returns, made once they are out", () => {
    newScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const rest = cold("-----x|");
      expectObservable(new Values(["a", "b"], () => rest)).toBe("(ab)-x|");
      expectSubscriptions(rest.subscriptions).toBe("^-----!");
    });
  });

  it("L10: a consumer that leaves during the items: rest is never made", () => {
    let made = 0;
    const seen: string[] = [];
    new Values(["a", "b"], () => (made++, just("c")))
      .pipe(take(1))
      .subscribe((v) => seen.push(v));
    expect(seen).toEqual(["a"]);
    expect(made).toBe(0);
  });

  it("A6: a rest that throws is an error notification after the items", () => {
    const seen: string[] = [];
    let failure: unknown;
    new Values(["a"], () => {
      throw new Error("no rest");
    }).subscribe({ next: (v) => seen.push(v), error: (error) => (failure = error) });
    expect(seen).toEqual(["a"]);
    expect((failure as Error).message).toBe("no rest");
  });
});

describe("Values with a wait per item (the Agent's awaited listeners, SPEC L11)", () => {
  it("L11: each item goes out after its wait was called; the next one once that wait completed", () => {
    newScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const held = cold("--x|");
      const wait = (item: string) => (item === "a" ? held : undefined);
      expectObservable(new Values(["a", "b", "c"], () => cold("----d|"), wait)).toBe("a--(bc)d|");
      // The wait's own value is not passed on; it was subscribed from a's frame to its end.
      expectSubscriptions(held.subscriptions).toBe("^--!");
    });
  });

  it("L11: a wait that errors errors the result; nothing after it goes out", () => {
    newScheduler().run(({ cold, expectObservable }) => {
      const wait = (item: string) => (item === "a" ? cold("-#", undefined, new Error("listener failed")) : undefined);
      expectObservable(new Values(["a", "b"], undefined, wait)).toBe("a#", undefined, new Error("listener failed"));
    });
  });

  it("L11: a wait that throws errors the result before its item goes out", () => {
    const seen: string[] = [];
    let failure: unknown;
    const wait = (item: string): undefined => {
      if (item === "b") throw new Error("emit threw");
      return undefined;
    };
    new Values(["a", "b"], undefined, wait).subscribe({ next: (v) => seen.push(v), error: (error) => (failure = error) });
    expect(seen).toEqual(["a"]);
    expect((failure as Error).message).toBe("emit threw");
  });

  it("L10: a consumer that leaves while an item's wait runs tears the wait down; nothing more is made", () => {
    let made = 0;
    newScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const held = cold("----|");
      const source = new Values(["a", "b"], () => (made++, cold("x|")), (item) => (item === "a" ? held : undefined));
      expectObservable(source, "--!").toBe("a-");
      expectSubscriptions(held.subscriptions).toBe("^-!");
    });
    expect(made).toBe(0);
  });

  it("L4: 20 000 items whose waits complete while they are subscribed go out in one loop (no deeper stack), and complete", () => {
    const count = 20_000;
    const items = Array.from({ length: count }, (_, i) => i);
    let seen = 0;
    let completed = false;
    let failure: unknown;
    sequence(new Values(items, () => just(-1), () => of(0)), just(-2)).subscribe({
      next: () => seen++,
      error: (error) => (failure = error),
      complete: () => (completed = true),
    });
    expect(failure).toBeUndefined();
    expect([seen, completed]).toEqual([count + 2, true]);
    // Subscribed on its own, too.
    let alone = 0;
    new Values(items, undefined, () => of(0)).subscribe({ next: () => alone++, complete: () => (completed = false) });
    expect([alone, completed]).toEqual([count, false]);
  });

  it("L11: a property: the notifications of concat over each item and its wait, for any mix of waits", () => {
    const waitKinds = ["none", "sync", "syncValue", "delayed", "error", "syncError"] as const;
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...waitKinds), { maxLength: 8 }), fc.boolean(), fc.integer({ min: 1, max: 12 }), (kinds, withRest, unsubscribeAt) => {
        const run = (ours: boolean) =>
          framesOf(({ cold }, record) => {
            const wait = (i: number): Observable<unknown> | undefined => {
              // Called before its item goes out: the order is part of what is compared.
              record("wait", i);
              switch (kinds[i]) {
                case "none":
                  return undefined;
                case "sync":
                  return EMPTY;
                case "syncValue":
                  return of("ignored");
                case "delayed":
                  return cold("--v|");
                case "error":
                  return cold("-#", undefined, `wait ${i}`);
                case "syncError":
                  return throwError(() => `wait ${i}`);
              }
            };
            const items = kinds.map((_, i) => i);
            const rest = withRest ? () => cold("-r|", { r: "rest" }) as Observable<number | string> : undefined;
            return ours
              ? new Values<number | string>(items, rest, (i) => wait(i as number))
              : concat(
                  ...items.map((i) =>
                    defer(() => {
                      const held = wait(i);
                      return concat(of(i), held ? held.pipe(ignoreElements()) : EMPTY);
                    }),
                  ),
                  rest ? defer(rest) : EMPTY,
                );
          }, unsubscribeAt);
        expect(run(true)).toEqual(run(false));
      }),
      { seed: 20261204, numRuns: 400 },
    );
  });

  it("L11: a wait that completes while it is subscribed lets the next item out after its own teardown", () => {
    const log: string[] = [];
    const held = new Observable<never>((subscriber) => {
      subscriber.complete();
      return () => log.push("wait torn down");
    });
    new Values(["a", "b"], undefined, (item) => (item === "a" ? held : undefined)).subscribe((v) => log.push(v));
    expect(log).toEqual(["a", "wait torn down", "b"]);
  });
});
