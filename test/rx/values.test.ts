/**
 * `just` and `values`, the loop's `of` (SPEC L4, L10): synchronous, cold, and stopped when the
 * consumer leaves in the middle.
 */
import { Observable, take } from "rxjs";
import { describe, expect, it } from "vitest";
import { just, Values, values, valuesThen } from "../../src/rx/values.js";
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
    newScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const held = cold("----|");
      let made = 0;
      const source = new Values(["a", "b"], () => (made++, cold("x|")), (item) => (item === "a" ? held : undefined));
      expectObservable(source, "--!").toBe("a-");
      expectSubscriptions(held.subscriptions).toBe("^-!");
    });
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
