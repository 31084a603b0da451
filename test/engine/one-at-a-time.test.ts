/**
 * `OneAtATime` and `values` sharing it (SPEC A5): an item that comes up while another is being
 * told goes out after it, never from inside its wait.
 */
import { merge, Observable, Subject } from "rxjs";
import { describe, expect, it } from "vitest";
import { OneAtATime } from "../../src/engine/one-at-a-time.js";
import { told, type WaitFor } from "../../src/engine/told.js";

/** Items told one after another, as the Emitter tells a run's events. */
function values<T>(items: readonly T[], wait: WaitFor<T>, turn: OneAtATime | undefined): Observable<T> {
  return told(items, wait, turn);
}

describe("OneAtATime", () => {
  it("A5: after() subscribes at once when nothing is told, else once the telling is over, in the order they came up", () => {
    const turn = new OneAtATime();
    const log: string[] = [];
    const source = (name: string) => new Observable<string>((s) => (s.next(name), s.complete()));
    turn.after(source("free")).subscribe((v) => log.push(v));
    turn.enter();
    turn.after(source("first")).subscribe((v) => log.push(v));
    turn.after(source("second")).subscribe((v) => log.push(v));
    expect(log).toEqual(["free"]);
    turn.exit();
    expect(log).toEqual(["free", "first", "second"]);
    expect(turn.busy).toBe(false);
  });

  it("A5: a nested telling is part of the one in progress: what waits goes on only when the outermost ends", () => {
    const turn = new OneAtATime();
    const log: string[] = [];
    turn.enter();
    turn.enter();
    turn.after(new Observable<string>((s) => (s.next("waited"), s.complete()))).subscribe((v) => log.push(v));
    turn.exit();
    expect(log).toEqual([]);
    expect(turn.busy).toBe(true);
    turn.exit();
    expect(log).toEqual(["waited"]);
  });

  it("L10: a consumer that leaves while waiting for the turn is dropped: its source is never subscribed", () => {
    const turn = new OneAtATime();
    let subscribed = 0;
    turn.enter();
    const waiting = turn.after(new Observable<never>(() => void subscribed++)).subscribe();
    waiting.unsubscribe();
    turn.exit();
    expect(subscribed).toBe(0);
    expect(turn.busy).toBe(false);
  });
});

/**
 * A listener on "a" aborts from inside its wait, and a parallel branch answers the abort at once
 * with "x": `items` and that branch merged, their waits and emissions logged.
 */
function abortOnA(items: string[], turn: OneAtATime | undefined): string[] {
  const log: string[] = [];
  const abort = new Subject<void>();
  const wait = (item: string): undefined => {
    log.push(`wait ${item}`);
    if (item === "a") abort.next();
    log.push(`wait ${item} returns`);
    return undefined;
  };
  const answer = new Observable<string>((subscriber) => abort.subscribe(() => values(["x"], wait, turn).subscribe(subscriber)));
  merge(answer, values(items, wait, turn)).subscribe((v) => log.push(`next ${v}`));
  return log;
}

describe("values sharing a turn", () => {
  it("A5: an item that comes up inside another item's wait is told after that item went out", () => {
    const log = abortOnA(["a", "b"], new OneAtATime());
    expect(log).toEqual(["wait a", "wait a returns", "next a", "wait x", "wait x returns", "next x", "wait b", "wait b returns", "next b"]);
  });

  it("A6: a wait that throws errors its values and gives the turn back: the next values is told", () => {
    const turn = new OneAtATime();
    const log: string[] = [];
    values(["a"], () => {
      throw new Error("wait failed");
    }, turn).subscribe({ error: (error: Error) => log.push(error.message) });
    expect(turn.busy).toBe(false);
    values(["b"], () => undefined, turn).subscribe({ next: (v) => log.push(v), complete: () => log.push("done") });
    expect(log).toEqual(["wait failed", "b", "done"]);
  });

  it("A5: an item that comes up while a wait that settles at once is subscribed waits for it (the next listeners are part of the telling)", () => {
    const turn = new OneAtATime();
    const log: string[] = [];
    const abort = new Subject<void>();
    const wait = (item: string): Observable<unknown> => {
      log.push(`wait ${item}`);
      // Settles while it is subscribed; a later listener, called then, aborts on "a".
      return new Observable((subscriber) => {
        if (item === "a") abort.next();
        log.push(`settled ${item}`);
        subscriber.complete();
      });
    };
    const answer = new Observable<string>((subscriber) => abort.subscribe(() => values(["x"], wait, turn).subscribe(subscriber)));
    merge(answer, values(["a"], wait, turn)).subscribe((v) => log.push(`next ${v}`));
    expect(log).toEqual(["wait a", "next a", "settled a", "wait x", "next x", "settled x"]);
  });

  it("A5: without a turn, the same item is told from inside the other's wait (what the turn is for)", () => {
    const log = abortOnA(["a"], undefined);
    expect(log.slice(0, 4)).toEqual(["wait a", "wait x", "wait x returns", "next x"]);
  });

  it("A5: a telling that waited for the turn and completes the wait of the one before it lets that one go on (no lost continuation)", () => {
    const turn = new OneAtATime();
    const gate = new Subject<void>();
    const log: string[] = [];
    const wait = (item: string): Observable<unknown> | undefined => {
      log.push(`wait ${item}`);
      if (item !== "a") return undefined;
      // Comes up inside a's telling: told once a's telling hands the turn back, and it completes a's wait.
      values(["x"], () => (gate.complete(), undefined), turn).subscribe((v) => log.push(`next ${v}`));
      return gate;
    };
    values(["a", "b"], wait, turn).subscribe({ next: (v) => log.push(`next ${v}`), complete: () => log.push("done") });
    expect(log).toEqual(["wait a", "next a", "next x", "wait b", "next b", "done"]);
  });
});
