/**
 * The slots behind `maxConcurrency` (SPEC R3) on their own: first come first served, a slot held
 * until the work completes, errors or is unsubscribed and given back once, a waiting work that
 * leaves gives up its place, and nothing starts once the batch is closed (SPEC L10).
 */
import { Observable, of, Subject, throwError } from "rxjs";
import { describe, expect, it } from "vitest";
import { ConcurrencySlots } from "../../src/run-control/concurrency-slots.js";

/** A work that logs its start and its teardown and ends when its Subject does. */
function work(name: string, log: string[]): { work: Observable<string>; control: Subject<string> } {
  const control = new Subject<string>();
  const observable = new Observable<string>((subscriber) => {
    log.push(`start ${name}`);
    const inner = control.subscribe(subscriber);
    return () => {
      log.push(`teardown ${name}`);
      inner.unsubscribe();
    };
  });
  return { work: observable, control };
}

describe("R3: ConcurrencySlots", () => {
  it("R3: a work that completes gives its slot back once: with one slot, the next waiting work starts and the one after it still waits", () => {
    const log: string[] = [];
    const slots = new ConcurrencySlots(1);
    const a = work("a", log);
    const b = work("b", log);
    const c = work("c", log);
    const seen: string[] = [];
    for (const w of [a, b, c]) slots.take(w.work).subscribe({ next: (v) => seen.push(v), complete: () => seen.push("|") });
    expect(log).toEqual(["start a"]);
    a.control.next("a1");
    a.control.complete();
    // a's teardown after its completion must not free a second slot for c.
    expect(log).toEqual(["start a", "start b", "teardown a"]);
    b.control.complete();
    expect(log).toEqual(["start a", "start b", "teardown a", "start c", "teardown b"]);
    expect(seen).toEqual(["a1", "|", "|"]);
  });

  it("R3: a work that errors gives its slot back, and the error reaches its subscriber", () => {
    const log: string[] = [];
    const slots = new ConcurrencySlots(1);
    const errors: unknown[] = [];
    slots.take(throwError(() => new Error("boom"))).subscribe({ error: (error: unknown) => errors.push(error) });
    const b = work("b", log);
    const c = work("c", log);
    slots.take(b.work).subscribe();
    slots.take(c.work).subscribe();
    expect((errors[0] as Error).message).toBe("boom");
    // The failed work released its slot exactly once: b runs, c waits for it.
    expect(log).toEqual(["start b"]);
  });

  it("R3: works that end synchronously start the next in the same call, in the order they were taken", () => {
    const slots = new ConcurrencySlots(2);
    const seen: string[] = [];
    for (const name of ["a", "b", "c", "d"]) slots.take(of(name)).subscribe((v) => seen.push(v));
    expect(seen).toEqual(["a", "b", "c", "d"]);
  });

  it("R3 L10: the first waiting work, unsubscribed, never starts and the slot goes to the one after it", () => {
    const log: string[] = [];
    const slots = new ConcurrencySlots(1);
    const a = work("a", log);
    const b = work("b", log);
    const c = work("c", log);
    slots.take(a.work).subscribe();
    const waitingB = slots.take(b.work).subscribe();
    slots.take(c.work).subscribe();
    waitingB.unsubscribe();
    a.control.complete();
    expect(log).toEqual(["start a", "start c", "teardown a"]);
  });

  it("R3 L10: a waiting work unsubscribed gives back no slot it never held", () => {
    const log: string[] = [];
    const slots = new ConcurrencySlots(1);
    const a = work("a", log);
    const b = work("b", log);
    const c = work("c", log);
    slots.take(a.work).subscribe();
    slots.take(b.work).subscribe().unsubscribe();
    slots.take(c.work).subscribe();
    // b's leaving did not make a second slot: c waits for a.
    expect(log).toEqual(["start a"]);
  });

  it("R3 L10: a running work unsubscribed is torn down and frees its slot for the next", () => {
    const log: string[] = [];
    const slots = new ConcurrencySlots(1);
    const a = work("a", log);
    const b = work("b", log);
    const running = slots.take(a.work).subscribe();
    slots.take(b.work).subscribe();
    running.unsubscribe();
    expect(log).toEqual(["start a", "teardown a", "start b"]);
  });

  it("R3 L10: once closed, a freed slot starts no waiting work", () => {
    const log: string[] = [];
    const slots = new ConcurrencySlots(1);
    const a = work("a", log);
    const b = work("b", log);
    slots.take(a.work).subscribe();
    slots.take(b.work).subscribe();
    slots.close();
    a.control.complete();
    expect(log).toEqual(["start a", "teardown a"]);
  });

  it("R3 L10: a work that errors is heard by its taker before its slot starts the next, so a taker that closes on the error starts nothing", () => {
    const log: string[] = [];
    const slots = new ConcurrencySlots(1);
    const a = work("a", log);
    const b = work("b", log);
    slots.take(a.work).subscribe({
      error: () => {
        log.push("error heard");
        slots.close();
      },
    });
    slots.take(b.work).subscribe();
    a.control.error(new Error("listener failed"));
    expect(log).toEqual(["start a", "error heard", "teardown a"]);
  });

  it("R3 L10: a work taken after close completes at once, unstarted, instead of waiting for ever", () => {
    const log: string[] = [];
    const slots = new ConcurrencySlots(2);
    slots.close();
    const seen: string[] = [];
    slots.take(work("a", log).work).subscribe({ next: (v) => seen.push(v), complete: () => seen.push("|") });
    expect(seen).toEqual(["|"]);
    expect(log).toEqual([]);
  });

  it("R3: the number of slots is a whole number, at least 1 (no slots for a run without maxConcurrency)", () => {
    for (const size of [0, -1, 1.5, Number.NaN, undefined]) expect(() => new ConcurrencySlots(size as number)).toThrow(RangeError);
    expect(() => new ConcurrencySlots(1).close()).not.toThrow();
  });
});
