/**
 * `WaitGate`, how events wait for the Agent's listeners (SPEC L11, A5): the value goes out
 * right after `wait` is called, and the next one waits for what `wait` returned. Driven here by
 * a source Observable, as a producer pushes into it.
 */
import { finalize, type MonoTypeOperatorFunction, NEVER, Observable, of, Subject, throwError } from "rxjs";
import { describe, expect, it } from "vitest";
import { WaitGate } from "../../src/engine/wait-gate.js";
import { newScheduler } from "../helpers/marbles.js";

/** The source's values pushed into a gate, its completion ending it: the gate as an operator. */
function waitAfterEach<T>(wait: (value: T) => Observable<unknown> | undefined): MonoTypeOperatorFunction<T> {
  return (source) =>
    new Observable<T>((subscriber) => {
      const gate = new WaitGate(wait, subscriber, (value) => subscriber.next(value));
      return source.subscribe({ next: (value) => gate.push(value), error: (error) => subscriber.error(error), complete: () => gate.end() });
    });
}

describe("WaitGate", () => {
  it("L11: each value waits for the previous value's wait; nothing to wait for passes straight through", () => {
    newScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const source = hot("-ab-c---|");
      const waitA = cold("  ---|    ");
      const waitB = cold("     -|   ");
      const waits: Record<string, ReturnType<typeof cold> | undefined> = { a: waitA, b: waitB, c: undefined };
      expectObservable(source.pipe(waitAfterEach((v) => waits[v]))).toBe("-a--bc--|");
      expectSubscriptions(waitA.subscriptions).toBe("-^--!");
      expectSubscriptions(waitB.subscriptions).toBe("----^!");
    });
  });

  it("L11: the source's completion waits for the last wait", () => {
    newScheduler().run(({ cold, expectObservable }) => {
      const source = cold("(a|)");
      expectObservable(source.pipe(waitAfterEach(() => cold("---|")))).toBe("a--|");
    });
  });

  it("A6: an error of a wait errors the result after its value; a throw of wait errors before it", () => {
    newScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold("ab|").pipe(waitAfterEach((v) => (v === "a" ? cold("-#") : undefined)))).toBe("a#");
      expectObservable(
        cold("ab|").pipe(
          waitAfterEach((v) => {
            if (v === "b") throw "boom";
            return undefined;
          }),
        ),
      ).toBe("a#", undefined, "boom");
    });
  });

  it("A5: wait is called before the value is emitted", () => {
    const log: string[] = [];
    of("a", "b")
      .pipe(waitAfterEach((v) => (log.push(`wait ${v}`), undefined)))
      .subscribe((v) => log.push(`next ${v}`));
    expect(log).toEqual(["wait a", "next a", "wait b", "next b"]);
  });

  it("L10: unsubscribing while waiting unsubscribes the wait and the source", () => {
    newScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const source = hot("-a-b-|");
      const wait = cold(" -----|");
      expectObservable(source.pipe(waitAfterEach(() => wait)), "---!").toBe("-a-");
      expectSubscriptions(source.subscriptions).toBe("^--!");
      expectSubscriptions(wait.subscriptions).toBe("-^-!");
    });
  });

  it("L12: with synchronous waits the whole stream stays synchronous", () => {
    const seen: number[] = [];
    const source = new Subject<number>();
    source.pipe(waitAfterEach(() => of(undefined))).subscribe((v) => seen.push(v));
    source.next(1);
    source.next(2);
    expect(seen).toEqual([1, 2]);
  });

  it("L11: a wait that never completes holds every later value", () => {
    const seen: string[] = [];
    of("a", "b").pipe(waitAfterEach((v) => (v === "a" ? NEVER : undefined))).subscribe((v) => seen.push(v));
    expect(seen).toEqual(["a"]);
  });

  it("errors of the source pass through", () => {
    newScheduler().run(({ expectObservable }) => {
      expectObservable(throwError(() => "bad").pipe(waitAfterEach(() => undefined))).toBe("#", undefined, "bad");
    });
  });
});

describe("WaitGate once its subscriber is closed", () => {
  it("L10: a value pushed after the subscriber left is dropped: its wait is not called", () => {
    const waited: string[] = [];
    const delivered: string[] = [];
    const subscription = new Observable<string>((subscriber) => {
      const gate = new WaitGate<string>((value) => void waited.push(value), subscriber, (value) => delivered.push(value));
      gate.push("a");
      queueMicrotask(() => gate.push("b"));
    }).subscribe();
    subscription.unsubscribe();
    return Promise.resolve().then(() => {
      expect(waited).toEqual(["a"]);
      expect(delivered).toEqual(["a"]);
    });
  });

  it("A6: after a wait errored, later values are dropped: their wait is not called (no listener sees what the run never emits)", () => {
    const waited: string[] = [];
    const delivered: string[] = [];
    let failure: unknown;
    new Observable<string>((subscriber) => {
      const gate = new WaitGate<string>(
        (value) => {
          waited.push(value);
          return value === "a" ? throwError(() => new Error("listener failed")) : undefined;
        },
        subscriber,
        (value) => delivered.push(value),
      );
      gate.push("a");
      gate.push("b");
      gate.end();
    }).subscribe({ error: (error) => (failure = error) });
    expect(waited).toEqual(["a"]);
    expect(delivered).toEqual(["a"]);
    expect((failure as Error).message).toBe("listener failed");
  });
});

describe("WaitGate order and re-entry", () => {
  it("L11: a wait that completes at once is torn down before the next value goes out", () => {
    const log: string[] = [];
    new Observable<string>((subscriber) => {
      const gate: WaitGate<string> = new WaitGate<string>(
        (value) => {
          log.push(`wait ${value}`);
          return of(undefined).pipe(finalize(() => log.push(`finalize ${value}`)));
        },
        subscriber,
        (value) => {
          log.push(`deliver ${value}`);
          // Pushed while "a" is being delivered: it goes out after "a"'s wait, and its teardown.
          if (value === "a") gate.push("b");
        },
      );
      gate.push("a");
      gate.end();
    }).subscribe({ complete: () => log.push("complete") });
    expect(log).toEqual(["wait a", "deliver a", "finalize a", "wait b", "deliver b", "finalize b", "complete"]);
  });

  it("A5: a value pushed from inside deliver waits behind the value being delivered and its wait", () => {
    newScheduler().run(({ cold, expectObservable }) => {
      const source = new Observable<string>((subscriber) => {
        const gate: WaitGate<string> = new WaitGate<string>(
          (value) => (value === "a" ? cold("--|") : undefined),
          subscriber,
          (value) => {
            subscriber.next(value);
            // The consumer reacts to "a" by making the producer push "b" and end (an abort).
            if (value === "a") {
              gate.push("b");
              gate.end();
            }
          },
        );
        gate.push("a");
      });
      expectObservable(source).toBe("a-(b|)");
    });
  });

  it("A5: a value pushed from inside wait goes out after the value being waited on, and after its wait", () => {
    const calls: string[] = [];
    newScheduler().run(({ cold, expectObservable }) => {
      const source = new Observable<string>((subscriber) => {
        const gate: WaitGate<string> = new WaitGate<string>(
          (value) => {
            calls.push(`wait ${value}`);
            // A listener reacts to "a" by aborting: the producer pushes "b" and ends, from inside wait("a").
            if (value === "a") {
              gate.push("b");
              gate.end();
              calls.push("wait a returns");
              return cold("--|");
            }
            return undefined;
          },
          subscriber,
          (value) => subscriber.next(value),
        );
        gate.push("a");
      });
      expectObservable(source).toBe("a-(b|)");
    });
    // wait("b") only once wait("a") returned: never one wait inside another.
    expect(calls).toEqual(["wait a", "wait a returns", "wait b"]);
  });
});
