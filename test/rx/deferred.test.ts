/**
 * `deferred`, the loop's `defer` (SPEC L4, A6): made on each subscription; a throw is an error.
 */
import { defer } from "rxjs";
import { describe, expect, it } from "vitest";
import { deferred } from "../../src/rx/deferred.js";
import { newScheduler } from "../helpers/marbles.js";

describe("deferred", () => {
  it("L4: makes its Observable on each subscription, as defer does", () => {
    newScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const inner = cold("-a|");
      let made = 0;
      const ours = deferred(() => (made++, inner));
      const theirs = defer(() => inner);
      expect(made).toBe(0);
      expectObservable(ours).toBe("-a|");
      expectObservable(ours).toBe("-a|");
      expectObservable(theirs).toBe("-a|");
      expectSubscriptions(inner.subscriptions).toBe(["^-!", "^-!", "^-!"]);
    });
  });

  it("A6: what make throws is an error notification", () => {
    let failure: unknown;
    deferred<number>(() => {
      throw new Error("not made");
    }).subscribe({ error: (error) => (failure = error) });
    expect((failure as Error).message).toBe("not made");
  });

});
