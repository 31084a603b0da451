/**
 * `sequence`, the loop's `concat` (SPEC L4, L10): sources one after the other, subscribed when
 * the previous one completes, torn down when the consumer leaves — also in the middle of a
 * synchronous source.
 */
import { concat, concatMap, defer, EMPTY, from, map, mergeMap, Observable, of, take, throwError } from "rxjs";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { deferred } from "../../src/rx/deferred.js";
import { concatEach, followedBy, mergeEach, sequence } from "../../src/rx/sequence.js";
import { just, Values } from "../../src/rx/values.js";
import { framesOf, newScheduler } from "../helpers/marbles.js";

describe("sequence", () => {
  it("L4: subscribes each source when the previous completes, like concat", () => {
    newScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold(" -1-|        ");
      const b = cold("    --2|     ");
      const c = cold("       (3|)  ");
      const asubs = "  ^--!        ";
      const bsubs = "  ---^--!     ";
      const csubs = "  ------(^!)  ";
      expectObservable(sequence(a, b, c)).toBe("-1---2(3|)");
      expectSubscriptions(a.subscriptions).toBe(asubs);
      expectSubscriptions(b.subscriptions).toBe(bsubs);
      expectSubscriptions(c.subscriptions).toBe(csubs);
    });
  });

  it("L10: unsubscribing stops the current source and subscribes no other", () => {
    newScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold(" -1-|      ");
      const b = cold("    --2--3|");
      const unsub = "  ------!   ";
      expectObservable(sequence(a, b), unsub).toBe("-1---2-");
      expectSubscriptions(a.subscriptions).toBe("^--!");
      expectSubscriptions(b.subscriptions).toBe("---^--!");
    });
  });

  it("L10: an error passes through and the sources after it are never subscribed", () => {
    newScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold(" -1-#");
      const b = cold("    -2|");
      expectObservable(sequence(a, b)).toBe("-1-#");
      expectSubscriptions(a.subscriptions).toBe("^--!");
      expectSubscriptions(b.subscriptions).toBe([]);
    });
  });

  it("L10: a consumer that leaves inside a synchronous source stops it there", () => {
    let produced = 0;
    const counting = defer(() => of(1, 2, 3, 4, 5).pipe(map((v) => (produced++, v))));
    const seen: number[] = [];
    sequence(counting, defer(() => (produced += 100, EMPTY)))
      .pipe(take(2))
      .subscribe((v) => seen.push(v));
    expect(seen).toEqual([1, 2]);
    expect(produced).toBe(2);
  });

  it("L4: 100 000 synchronous sources chain in a loop, not by recursion", () => {
    const sources = Array.from({ length: 100_000 }, (_, i) => of(i));
    let count = 0;
    let completed = false;
    sequence(...sources).subscribe({ next: () => count++, complete: () => (completed = true) });
    expect(count).toBe(100_000);
    expect(completed).toBe(true);
  });

  it("completes at once with no sources", () => {
    newScheduler().run(({ expectObservable }) => expectObservable(sequence()).toBe("|"));
  });
});

describe("sequence teardown order", () => {
  it("L10: a finished source is torn down before the next one is subscribed, as with concat", async () => {
    const log: string[] = [];
    const source = (name: string) =>
      new Observable<string>((subscriber) => {
        log.push(`subscribe ${name}`);
        const t = setTimeout(() => {
          subscriber.next(name);
          subscriber.complete();
        }, 1);
        return () => {
          clearTimeout(t);
          log.push(`teardown ${name}`);
        };
      });
    const run = (make: (...s: Observable<string>[]) => Observable<string>) =>
      new Promise<string[]>((resolve) => {
        log.length = 0;
        make(source("a"), source("b")).subscribe({ complete: () => resolve(log.slice()) });
      });
    const ours = await run((...s) => sequence(...s));
    const theirs = await run((...s) => concat(...s));
    expect(ours).toEqual(["subscribe a", "teardown a", "subscribe b", "teardown b"]);
    expect(ours).toEqual(theirs);
  });
});

describe("concatEach", () => {
  it("T4: each item's Observable is made and subscribed when the previous one completed, as concatMap does", () => {
    newScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold(" -1-|     ");
      const b = cold("    --2|  ");
      const project = (name: string) => (name === "a" ? a : b);
      expectObservable(concatEach(["a", "b"], project)).toBe("-1---2|");
      expectObservable(from(["a", "b"]).pipe(concatMap(project))).toBe("-1---2|");
      expectSubscriptions(a.subscriptions).toBe(["^--!", "^--!"]);
      expectSubscriptions(b.subscriptions).toBe(["---^--!", "---^--!"]);
    });
  });

  it("T4: the index is the item's place; a project that sees what earlier items did", () => {
    const outcomes: number[] = [];
    const seen: string[] = [];
    concatEach(["x", "y", "z"], (item, index) => {
      seen.push(`${item}${index} after ${outcomes.length}`);
      outcomes.push(index);
      return of(item);
    }).subscribe();
    expect(seen).toEqual(["x0 after 0", "y1 after 1", "z2 after 2"]);
  });

  it("A6: a project that throws errors the result, and no later item is made", () => {
    const made: number[] = [];
    let failure: unknown;
    concatEach([1, 2, 3], (n) => {
      made.push(n);
      if (n === 2) throw new Error("no 2");
      return of(n);
    }).subscribe({ error: (error) => (failure = error) });
    expect(made).toEqual([1, 2]);
    expect((failure as Error).message).toBe("no 2");
  });

  it("L10: unsubscribing stops the current item's Observable and makes no other", () => {
    let made = 0;
    newScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold("-1--2|");
      expectObservable(
        concatEach([0, 1], () => (made++, a)),
        "---!",
      ).toBe("-1-");
      expectSubscriptions(a.subscriptions).toBe("^--!");
    });
    expect(made).toBe(1);
  });

  it("completes at once with no items", () => {
    newScheduler().run(({ expectObservable }) => expectObservable(concatEach([], () => of(1))).toBe("|"));
  });
});

describe("followedBy", () => {
  it("L3: next() is called when first completed, not before, and its Observable follows", () => {
    newScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const first = cold("-a|   ");
      const rest = cold("   -b|");
      expectObservable(followedBy(first, () => rest)).toBe("-a-b|");
      expectSubscriptions(first.subscriptions).toBe("^-!");
      expectSubscriptions(rest.subscriptions).toBe("--^-!");
    });
    let called = false;
    const held = followedBy(throwError(() => new Error("first failed")), () => ((called = true), of(1)));
    let failure: unknown;
    held.subscribe({ error: (error) => (failure = error) });
    expect((failure as Error).message).toBe("first failed");
    expect(called).toBe(false);
  });

  it("A6: a next() that throws errors the result", () => {
    let failure: unknown;
    followedBy(of(1), () => {
      throw new Error("next failed");
    }).subscribe({ error: (error) => (failure = error) });
    expect((failure as Error).message).toBe("next failed");
  });
});

describe("mergeEach", () => {
  it("T4: every item's Observable is subscribed at once; values in completion order; completes after the last, as mergeMap does", () => {
    newScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold("---1|");
      const b = cold("-2|  ");
      const project = (name: string) => (name === "a" ? a : b);
      expectObservable(mergeEach(["a", "b"], project)).toBe("-2-1|");
      expectObservable(from(["a", "b"]).pipe(mergeMap(project))).toBe("-2-1|");
      expectSubscriptions(a.subscriptions).toBe(["^---!", "^---!"]);
      expectSubscriptions(b.subscriptions).toBe(["^-!", "^-!"]);
    });
  });

  it("L10: a consumer that leaves while the items are being subscribed subscribes no more of them", () => {
    const subscribed: number[] = [];
    mergeEach([0, 1, 2], (n) => {
      subscribed.push(n);
      return of(n);
    })
      .pipe(take(1))
      .subscribe();
    expect(subscribed).toEqual([0]);
  });

  it("L10: unsubscribing tears every running item down", () => {
    newScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold("----1|");
      const b = cold("------2|");
      expectObservable(mergeEach([a, b], (source) => source), "--!").toBe("--");
      expectSubscriptions(a.subscriptions).toBe("^-!");
      expectSubscriptions(b.subscriptions).toBe("^-!");
    });
  });

  it("A6: an error of one item errors the result and tears the others down; a throwing project errors it", () => {
    newScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold("-#     ");
      const b = cold("----1| ");
      expectObservable(mergeEach([a, b], (source) => source)).toBe("-#");
      expectSubscriptions(b.subscriptions).toBe("^!");
    });
    let failure: unknown;
    mergeEach([1], () => {
      throw new Error("project failed");
    }).subscribe({ error: (error) => (failure = error) });
    expect((failure as Error).message).toBe("project failed");
  });

  it("completes at once with no items, or when every item completes synchronously", () => {
    newScheduler().run(({ expectObservable }) => {
      expectObservable(mergeEach([], () => of(1))).toBe("|");
      expectObservable(mergeEach(["1", "2"], (n) => of(n))).toBe("(12|)");
    });
  });
});

describe("sequence with known values and deferred sources", () => {
  it("L4: values, values with a rest, and deferred sources give concat's notifications, made in turn", () => {
    const made: string[] = [];
    newScheduler().run(({ cold, expectObservable }) => {
      const source = () =>
        sequence(
          new Values(["a", "b"]),
          new Values(["c"], () => (made.push("rest"), cold("------(d|)"))),
          deferred(() => (made.push("deferred"), deferred(() => new Values(["e"])))),
          EMPTY,
          just("f"),
        );
      const expected = concat(of("a", "b"), concat(of("c"), defer(() => cold("------(d|)"))), of("e"), EMPTY, of("f"));
      expectObservable(source()).toBe("(abc)-(def|)");
      expectObservable(expected).toBe("(abc)-(def|)");
      // Nothing is made before subscription.
      expect(made).toEqual([]);
    });
    // Each made when its turn came: the rest after c, the deferred step once d completed.
    expect(made).toEqual(["rest", "deferred"]);
  });

  it("L4: a chain of known values is emitted without a subscription to each", () => {
    const subscribe = vi.spyOn(Observable.prototype, "subscribe");
    try {
      const seen: number[] = [];
      sequence(just(1), new Values([2, 3]), deferred(() => new Values([4], () => just(5)))).subscribe((v) => seen.push(v));
      expect(seen).toEqual([1, 2, 3, 4, 5]);
      // The sequence itself only.
      expect(subscribe).toHaveBeenCalledTimes(1);
    } finally {
      subscribe.mockRestore();
    }
  });

  it("L10: a consumer that leaves inside known values makes nothing after them", () => {
    const made: string[] = [];
    const seen: number[] = [];
    sequence(
      new Values([1, 2, 3], () => (made.push("rest"), just(4))),
      deferred(() => (made.push("next source"), just(5))),
    )
      .pipe(take(2))
      .subscribe((v) => seen.push(v));
    expect(seen).toEqual([1, 2]);
    expect(made).toEqual([]);
  });

  it("A6: a deferred source or a rest that throws errors the sequence, and no later source is made", () => {
    for (const failing of [deferred<number>(() => { throw new Error("made badly"); }), new Values<number>([1], () => { throw new Error("made badly"); })]) {
      let made = 0;
      let failure: unknown;
      sequence(failing, deferred(() => (made++, just(2)))).subscribe({ error: (error) => (failure = error) });
      expect((failure as Error).message).toBe("made badly");
      expect(made).toBe(0);
    }
  });
});

describe("nested sequences", () => {
  type Tree = { kind: "leaf"; marble: string } | { kind: "values"; items: string[] } | { kind: "seq"; children: Tree[] };
  const tree: fc.Arbitrary<Tree> = fc.letrec<{ tree: Tree }>((tie) => ({
    tree: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.record({ kind: fc.constant("leaf" as const), marble: fc.constantFrom("(a|)", "-b|", "--c|", "|", "-#") }),
      fc.record({ kind: fc.constant("values" as const), items: fc.array(fc.constantFrom("x", "y"), { maxLength: 2 }) }),
      fc.record({ kind: fc.constant("seq" as const), children: fc.array(tie("tree"), { maxLength: 3 }) }),
    ),
  })).tree;

  it("L4: a property: nested sequences give the notifications of nested concat, whatever the nesting", () => {
    fc.assert(
      fc.property(tree, fc.integer({ min: 1, max: 10 }), (shape, unsubscribeAt) => {
        const run = (ours: boolean) =>
          framesOf(({ cold }) => {
            const build = (node: Tree): Observable<string> =>
              node.kind === "leaf"
                ? cold(node.marble)
                : node.kind === "values"
                  ? ours
                    ? new Values(node.items)
                    : of(...node.items)
                  : ours
                    ? sequence(...node.children.map(build))
                    : concat(...node.children.map(build));
            return build(shape);
          }, unsubscribeAt);
        expect(run(true)).toEqual(run(false));
      }),
      { seed: 20261204, numRuns: 400 },
    );
  });

  it("L4: a sequence met as a source of another is taken up in place, not subscribed", () => {
    const subscribe = vi.spyOn(Observable.prototype, "subscribe");
    try {
      const seen: number[] = [];
      const leaf = new Observable<number>((subscriber) => {
        subscriber.next(3);
        subscriber.complete();
      });
      sequence(just(1), sequence(new Values([2]), sequence(leaf, followedBy(just(4), () => sequence(just(5)))))).subscribe((v) => seen.push(v));
      expect(seen).toEqual([1, 2, 3, 4, 5]);
      // The outer sequence and the one source that must be subscribed.
      expect(subscribe).toHaveBeenCalledTimes(2);
    } finally {
      subscribe.mockRestore();
    }
  });

  it("L10: unsubscribing inside a nested sequence stops everything after it", () => {
    newScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold("-a|");
      const b = cold("--b|");
      const c = cold("c|");
      expectObservable(sequence(sequence(a, b), c), "---!").toBe("-a-");
      expectSubscriptions(a.subscriptions).toBe("^-!");
      expectSubscriptions(b.subscriptions).toBe("--^!");
      expectSubscriptions(c.subscriptions).toBe([]);
    });
  });
});
