/**
 * `continueWith`, how a turn goes on from the response's final message (SPEC L3): `project` gets
 * the source's last value only once the source completed.
 */
import { EmptyError, EMPTY } from "rxjs";
import { describe, expect, it } from "vitest";
import { continueWith } from "../../src/rx/continue-with.js";
import { newScheduler } from "../helpers/marbles.js";

describe("continueWith", () => {
  it("L3: mirrors the source, then the Observable made from its last value", () => {
    const seen: string[] = [];
    newScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold("-a--b-|     ");
      const next = cold("         --x-|");
      const result = source.pipe(continueWith((last) => (seen.push(last), next)));
      expectObservable(result).toBe("-a--b---x-|");
      expectSubscriptions(source.subscriptions).toBe("^-----!");
      expectSubscriptions(next.subscriptions).toBe("------^---!");
    });
    // `project` ran once, with the last value
    expect(seen).toEqual(["b"]);
  });

  it("an empty source errors with EmptyError and never calls project", () => {
    let called = false;
    let error: unknown;
    EMPTY.pipe(continueWith(() => ((called = true), EMPTY))).subscribe({ error: (e) => (error = e) });
    expect(called).toBe(false);
    expect(error).toBeInstanceOf(EmptyError);
  });

  it("L10: unsubscribing during the continuation unsubscribes it", () => {
    newScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold("a|");
      const next = cold(" ---x|");
      expectObservable(source.pipe(continueWith(() => next)), "--!").toBe("a-");
      expectSubscriptions(next.subscriptions).toBe("-^!");
    });
  });

  it("a throwing project errors the result", () => {
    newScheduler().run(({ cold, expectObservable }) => {
      expectObservable(
        cold("a|").pipe(
          continueWith(() => {
            throw "bad";
          }),
        ),
      ).toBe("a#", undefined, "bad");
    });
  });
});
