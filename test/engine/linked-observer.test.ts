/**
 * `LinkedObserver` (SPEC L10): rxjs uses it as the subscriber itself, so unsubscribing it stops
 * a synchronous source in the middle of its emissions.
 */
import { Observable } from "rxjs";
import { describe, expect, it } from "vitest";
import { LinkedObserver } from "../../src/engine/linked-observer.js";

function counting(log: string[]): Observable<number> {
  return new Observable<number>((subscriber) => {
    for (let i = 1; i <= 5 && !subscriber.closed; i++) {
      log.push(`emit ${i}`);
      subscriber.next(i);
    }
    subscriber.complete();
    return () => log.push("teardown");
  });
}

describe("LinkedObserver", () => {
  it("L10: unsubscribed inside next, a synchronous source stops at once", () => {
    const log: string[] = [];
    const observer: LinkedObserver<number> = new LinkedObserver<number>({
      next: (v) => {
        log.push(`next ${v}`);
        if (v === 2) observer.unsubscribe();
      },
      error: () => log.push("error"),
    });
    counting(log).subscribe(observer);
    expect(log).toEqual(["emit 1", "next 1", "emit 2", "next 2", "teardown"]);
  });

  it("a plain observer cannot do that: leaving inside next does not stop the source (why the class exists)", () => {
    const log: string[] = [];
    let leave = false;
    const subscription = counting(log).subscribe({
      next: (v) => {
        log.push(`next ${v}`);
        if (v === 2) leave = true;
      },
    });
    // The plain observer has no handle on its subscription until `subscribe` returns.
    expect(leave).toBe(true);
    subscription.unsubscribe();
    expect(log.filter((l) => l.startsWith("emit"))).toHaveLength(5);
  });

  it("after complete the handler ran, then it is unsubscribed and delivers nothing more", () => {
    const log: string[] = [];
    const observer = new LinkedObserver<number>({ next: (v) => log.push(`next ${v}`), complete: () => log.push("complete"), error: () => log.push("error") });
    observer.add(() => log.push("teardown"));
    observer.complete();
    observer.next(1);
    observer.error("late");
    observer.complete();
    expect(log).toEqual(["complete", "teardown"]);
    expect(observer.closed).toBe(true);
  });

  it("after error the same", () => {
    const log: string[] = [];
    const observer = new LinkedObserver<number>({ error: (e) => log.push(`error ${String(e)}`), complete: () => log.push("complete") });
    observer.add(() => log.push("teardown"));
    observer.error("boom");
    observer.complete();
    expect(log).toEqual(["error boom", "teardown"]);
    expect(observer.closed).toBe(true);
  });

  it("inside its error handler it is already stopped: a re-entrant next, error or complete delivers nothing", () => {
    const log: string[] = [];
    const observer: LinkedObserver<number> = new LinkedObserver<number>({
      next: (v) => log.push(`next ${v}`),
      error: (e) => {
        log.push(`error ${String(e)}`);
        observer.next(1);
        observer.error("again");
        observer.complete();
      },
      complete: () => log.push("complete"),
    });
    observer.error("boom");
    expect(log).toEqual(["error boom"]);
  });

  it("inside its complete handler it is already stopped: a re-entrant complete or error delivers nothing", () => {
    const log: string[] = [];
    const observer: LinkedObserver<number> = new LinkedObserver<number>({
      error: (e) => log.push(`error ${String(e)}`),
      complete: () => {
        log.push("complete");
        observer.complete();
        observer.error("late");
      },
    });
    observer.complete();
    expect(log).toEqual(["complete"]);
  });

  it("without a complete handler, completing only unsubscribes it", () => {
    const log: string[] = [];
    const observer = new LinkedObserver<number>({ error: (e) => log.push(`error ${String(e)}`) });
    observer.add(() => log.push("teardown"));
    observer.complete();
    expect(log).toEqual(["teardown"]);
  });

  it("unsubscribed from outside, it hears no error or completion", () => {
    const log: string[] = [];
    const observer = new LinkedObserver<number>({ error: (e) => log.push(`error ${String(e)}`), complete: () => log.push("complete") });
    observer.unsubscribe();
    observer.error("boom");
    observer.complete();
    expect(log).toEqual([]);
  });

  it("an error handler that throws still unsubscribes it", () => {
    const log: string[] = [];
    const observer = new LinkedObserver<number>({
      error: () => {
        throw new Error("handler failed");
      },
    });
    observer.add(() => log.push("teardown"));
    expect(() => observer.error("boom")).toThrow("handler failed");
    expect(log).toEqual(["teardown"]);
  });
});
