/**
 * `trampolined`, the loop's `subscribeOn(queueScheduler)` (SPEC L4, L10): subscribed at once
 * unless another trampolined subscription is being made; then right after it, in order.
 */
import { EMPTY, expand, Observable, of } from "rxjs";
import { describe, expect, it } from "vitest";
import { trampolined } from "../../src/rx/trampolined.js";
import { newScheduler } from "../helpers/marbles.js";

const logged = (log: string[], name: string): Observable<string> =>
  new Observable<string>((subscriber) => {
    log.push(`subscribe ${name}`);
    subscriber.next(name);
    subscriber.complete();
    log.push(`return ${name}`);
  });

describe("trampolined", () => {
  it("L4: outside another trampolined subscription, the source is subscribed at once", () => {
    const log: string[] = [];
    trampolined(logged(log, "a")).subscribe((v) => log.push(`next ${v}`));
    log.push("after");
    expect(log).toEqual(["subscribe a", "next a", "return a", "after"]);
  });

  it("L4: one asked for while another is being made waits until that one returned, oldest first", () => {
    const log: string[] = [];
    const outer = new Observable<string>((subscriber) => {
      log.push("subscribe outer");
      trampolined(logged(log, "b")).subscribe((v) => log.push(`next ${v}`));
      trampolined(logged(log, "c")).subscribe((v) => log.push(`next ${v}`));
      subscriber.complete();
      log.push("return outer");
    });
    trampolined(outer).subscribe();
    expect(log).toEqual(["subscribe outer", "return outer", "subscribe b", "next b", "return b", "subscribe c", "next c", "return c"]);
  });

  it("L4: a recursive expand of 100 000 synchronous steps runs with a flat stack and completes", () => {
    let last = -1;
    let completed = false;
    of(0)
      .pipe(
        expand((n) => (n < 100_000 ? trampolined(of(n + 1)) : EMPTY)),
      )
      .subscribe({ next: (n) => (last = n), complete: () => (completed = true) });
    expect([last, completed]).toEqual([100_000, true]);
  });

  it("L4: frame-exact under TestScheduler.run", () => {
    newScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold("-a-b|");
      expectObservable(trampolined(source)).toBe("-a-b|");
      expectSubscriptions(source.subscriptions).toBe("^---!");
    });
  });

  it("L10: a consumer that leaves before its turn came never subscribes the source", () => {
    const log: string[] = [];
    const outer = new Observable<string>(() => {
      const queued = trampolined(logged(log, "late")).subscribe();
      queued.unsubscribe();
      log.push("left");
      trampolined(logged(log, "kept")).subscribe();
    });
    trampolined(outer).subscribe();
    expect(log).toEqual(["left", "subscribe kept", "return kept"]);
  });

  it("a task that throws does not lose the ones queued behind it; the error goes to the subscription that started them", () => {
    const log: string[] = [];
    const throwing = {
      subscribe: () => {
        throw new Error("boom");
      },
    } as unknown as Observable<string>;
    const outer = new Observable<string>(() => {
      trampolined(throwing).subscribe();
      trampolined(logged(log, "after")).subscribe();
    });
    let failed: unknown;
    trampolined(outer).subscribe({ error: (error: unknown) => (failed = error) });
    expect((failed as Error).message).toBe("boom");
    expect(log).toEqual(["subscribe after", "return after"]);
    // The trampoline is free again.
    trampolined(logged(log, "next")).subscribe();
    expect(log.slice(2)).toEqual(["subscribe next", "return next"]);
  });
});
