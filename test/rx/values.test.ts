/**
 * `just` and `values`, the loop's `of` (SPEC L4, L10): synchronous, cold, and stopped when the
 * consumer leaves in the middle.
 */
import { take } from "rxjs";
import { describe, expect, it } from "vitest";
import { just, values, valuesThen } from "../../src/rx/values.js";
import { newScheduler } from "../helpers/marbles.js";

describe("just and values", () => {
  it("L4: just emits its value and completes in the frame of subscription", () => {
    newScheduler().run(({ expectObservable }) => {
      expectObservable(just("a")).toBe("(a|)");
    });
  });

  it("L4: values emits the items in order and completes, each subscription anew", () => {
    newScheduler().run(({ expectObservable }) => {
      const source = values(["a", "b", "c"]);
      expectObservable(source).toBe("(abc|)");
      expectObservable(source).toBe("(abc|)");
      expectObservable(values([])).toBe("|");
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
    values(items).pipe(take(2)).subscribe({ next: (v) => seen.push(v), complete: () => (completed = true) });
    expect(seen).toEqual([1, 2]);
    expect(completed).toBe(true);
    expect(read).toEqual([0, 1]);
  });

  it("L4: values reads the array at subscription, not at creation", () => {
    const items = [1];
    const source = values(items);
    items.push(2);
    const seen: number[] = [];
    source.subscribe((v) => seen.push(v));
    expect(seen).toEqual([1, 2]);
  });
});

describe("valuesThen", () => {
  it("L4: the items, then what rest() returns, made once they are out", () => {
    newScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const rest = cold("-----x|");
      expectObservable(valuesThen(["a", "b"], () => rest)).toBe("(ab)-x|");
      expectSubscriptions(rest.subscriptions).toBe("^-----!");
    });
  });

  it("L10: a consumer that leaves during the items: rest is never made", () => {
    let made = 0;
    const seen: string[] = [];
    valuesThen(["a", "b"], () => (made++, just("c")))
      .pipe(take(1))
      .subscribe((v) => seen.push(v));
    expect(seen).toEqual(["a"]);
    expect(made).toBe(0);
  });

  it("A6: a rest that throws is an error notification after the items", () => {
    const seen: string[] = [];
    let failure: unknown;
    valuesThen(["a"], () => {
      throw new Error("no rest");
    }).subscribe({ next: (v) => seen.push(v), error: (error) => (failure = error) });
    expect(seen).toEqual(["a"]);
    expect((failure as Error).message).toBe("no rest");
  });
});
