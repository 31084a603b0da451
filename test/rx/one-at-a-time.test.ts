/**
 * `OneAtATime` and `Values` sharing it (SPEC A5): an item that comes up while another is being
 * told goes out after it, never from inside its wait.
 */
import { merge, Observable, Subject } from "rxjs";
import { describe, expect, it } from "vitest";
import { OneAtATime } from "../../src/rx/one-at-a-time.js";
import { Values } from "../../src/rx/values.js";

describe("OneAtATime", () => {
  it("A5: after() subscribes at once while the turn is free, else once it is released, in the order they came up", () => {
    const turn = new OneAtATime();
    const log: string[] = [];
    const source = (name: string) => new Observable<string>((s) => (s.next(name), s.complete()));
    turn.after(source("free")).subscribe((v) => log.push(v));
    expect(turn.take()).toBe(true);
    expect(turn.take()).toBe(false);
    turn.after(source("first")).subscribe((v) => log.push(v));
    turn.after(source("second")).subscribe((v) => log.push(v));
    expect(log).toEqual(["free"]);
    turn.release();
    expect(log).toEqual(["free", "first", "second"]);
  });

  it("L10: a consumer that leaves while waiting for the turn is dropped: its source is never subscribed", () => {
    const turn = new OneAtATime();
    let subscribed = 0;
    turn.take();
    const waiting = turn.after(new Observable<never>(() => void subscribed++)).subscribe();
    waiting.unsubscribe();
    turn.release();
    expect(subscribed).toBe(0);
    expect(turn.take()).toBe(true);
  });
});

describe("Values sharing a turn", () => {
  it("A5: an item that comes up inside another item's wait is told after that item went out", () => {
    const turn = new OneAtATime();
    const log: string[] = [];
    // A listener on "a" aborts, and a parallel branch answers the abort at once with "x".
    const abort = new Subject<void>();
    const wait = (item: string): undefined => {
      log.push(`wait ${item}`);
      if (item === "a") abort.next();
      log.push(`wait ${item} returns`);
      return undefined;
    };
    const answer = new Observable<string>((subscriber) => abort.subscribe(() => new Values(["x"], undefined, wait, 0, turn).subscribe(subscriber)));
    merge(answer, new Values(["a", "b"], undefined, wait, 0, turn)).subscribe((v) => log.push(`next ${v}`));
    expect(log).toEqual(["wait a", "wait a returns", "next a", "wait x", "wait x returns", "next x", "wait b", "wait b returns", "next b"]);
  });

  it("A5: without a turn, the same item is told from inside the other's wait (what the turn is for)", () => {
    const log: string[] = [];
    const abort = new Subject<void>();
    const wait = (item: string): undefined => {
      log.push(`wait ${item}`);
      if (item === "a") abort.next();
      log.push(`wait ${item} returns`);
      return undefined;
    };
    const answer = new Observable<string>((subscriber) => abort.subscribe(() => new Values(["x"], undefined, wait).subscribe(subscriber)));
    merge(answer, new Values(["a"], undefined, wait)).subscribe((v) => log.push(`next ${v}`));
    expect(log.slice(0, 4)).toEqual(["wait a", "wait x", "wait x returns", "next x"]);
  });
});
