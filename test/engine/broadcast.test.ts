/**
 * `Broadcast`, the hot stream behind the Agent's `events$` and `state$` (SPEC A7): each value to
 * the subscribers of that moment, as a `Subject` would hand it.
 */
import { Subject, type Subscription } from "rxjs";
import { describe, expect, it } from "vitest";
import { Broadcast } from "../../src/engine/broadcast.js";

describe("Broadcast", () => {
  it("A7: each value goes to the subscribers of that moment, in subscription order; a late subscriber misses what came before", () => {
    const broadcast = new Broadcast<number>();
    const seen: string[] = [];
    broadcast.next(0);
    broadcast.observable.subscribe((v) => seen.push(`a${v}`));
    broadcast.next(1);
    const b = broadcast.observable.subscribe((v) => seen.push(`b${v}`));
    broadcast.next(2);
    b.unsubscribe();
    broadcast.next(3);
    expect(seen).toEqual(["a1", "a2", "b2", "a3"]);
  });

  it("A7: observed says whether anyone is subscribed now", () => {
    const broadcast = new Broadcast<void>();
    expect(broadcast.observed).toBe(false);
    const subscription = broadcast.observable.subscribe();
    expect(broadcast.observed).toBe(true);
    subscription.unsubscribe();
    expect(broadcast.observed).toBe(false);
  });

  it("A7: subscribing or unsubscribing during a value acts as a Subject does: the newcomer waits for the next value, the one who left gets no more", () => {
    const run = (make: () => { next(v: number): void; subscribe(f: (v: number) => void): Subscription }) => {
      const source = make();
      const seen: string[] = [];
      let second: Subscription | undefined;
      let third: Subscription | undefined;
      source.subscribe((v) => {
        seen.push(`first ${v}`);
        if (v === 1) second = source.subscribe((w) => seen.push(`second ${w}`));
        if (v === 2) third?.unsubscribe();
      });
      third = source.subscribe((v) => seen.push(`third ${v}`));
      source.next(1);
      source.next(2);
      source.next(3);
      second?.unsubscribe();
      return seen;
    };
    const ours = run(() => {
      const broadcast = new Broadcast<number>();
      return { next: (v) => broadcast.next(v), subscribe: (f) => broadcast.observable.subscribe(f) };
    });
    const theirs = run(() => {
      const subject = new Subject<number>();
      return { next: (v) => subject.next(v), subscribe: (f) => subject.subscribe(f) };
    });
    expect(ours).toEqual(theirs);
    expect(ours).toEqual(["first 1", "third 1", "first 2", "second 2", "first 3", "second 3"]);
  });
});
