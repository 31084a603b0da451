/**
 * `sequence`, the loop's `concat` (SPEC L4, L10): sources one after the other, subscribed when
 * the previous one completes, torn down when the consumer leaves — also in the middle of a
 * synchronous source.
 */
import { concat, defer, EMPTY, map, Observable, of, take } from "rxjs";
import { describe, expect, it } from "vitest";
import { sequence } from "../../src/rx/sequence.js";
import { newScheduler } from "../helpers/marbles.js";

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
