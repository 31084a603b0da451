/**
 * `maybeAsync`, the one way hooks, listeners and `emit` are called (SPEC L12, A6): plain values
 * stay plain (no microtask), promises and Observables settle to one value, and the failure policy
 * decides what a throw, a rejection or an error becomes.
 */
import { config, EMPTY, isObservable, of, throwError } from "rxjs";
import { describe, expect, it } from "vitest";
import { andThen, asFailure, Failure, failedWith, isThenable, maybeAsync, settle } from "../../src/rx/maybe-async.js";
import { newScheduler } from "../helpers/marbles.js";

describe("maybeAsync", () => {
  it("L12: a plain value comes back as it is, synchronously", () => {
    expect(maybeAsync(() => 42, "error")).toBe(42);
    expect(maybeAsync(() => undefined, "error")).toBeUndefined();
    const list = [1];
    expect(maybeAsync(() => list, "error")).toBe(list);
  });

  it("L12: an Observable settles to its last value, or undefined when it completes empty", () => {
    newScheduler().run(({ cold, expectObservable }) => {
      expectObservable(maybeAsync(() => cold("-a-b|"), "error") as never).toBe("----(b|)");
      expectObservable(maybeAsync(() => cold("--|"), "error") as never).toBe("--(u|)", { u: undefined });
    });
  });

  it("a promise settles to its value", async () => {
    const settled = maybeAsync(() => Promise.resolve(7), "error");
    expect(isObservable(settled)).toBe(true);
    expect(await new Promise((resolve) => (settled as typeof EMPTY).subscribe({ next: resolve }))).toBe(7);
  });

  it("A6: with \"error\", a synchronous throw becomes the Observable's error, like an async one", () => {
    newScheduler().run(({ cold, expectObservable }) => {
      expectObservable(maybeAsync(() => { throw "sync"; }, "error") as never).toBe("#", undefined, "sync");
      expectObservable(maybeAsync(() => cold("-#", undefined, "async"), "error") as never).toBe("-#", undefined, "async");
    });
  });

  it("A6: with a policy function, every failure becomes its value (synchronously for a throw)", () => {
    const failed = maybeAsync(() => { throw "sync"; }, asFailure);
    expect(failed).toBeInstanceOf(Failure);
    expect((failed as Failure).error).toBe("sync");
    newScheduler().run(({ expectObservable }) => {
      expectObservable(maybeAsync(() => throwError(() => "async"), () => "recovered") as never).toBe("(r|)", { r: "recovered" });
    });
  });

  it("rejected promises go through the policy too", async () => {
    const settled = maybeAsync(() => Promise.reject(new Error("no")), asFailure);
    const value = await new Promise((resolve) => (settled as typeof EMPTY).subscribe({ next: resolve }));
    expect(value).toBeInstanceOf(Failure);
  });

  it("isThenable recognizes promises and thenables, nothing else", () => {
    expect(isThenable(Promise.resolve())).toBe(true);
    expect(isThenable({ then: () => undefined })).toBe(true);
    expect(isThenable(Object.assign(() => undefined, { then: () => undefined }))).toBe(true);
    expect(isThenable(of(1))).toBe(false);
    expect(isThenable(null)).toBe(false);
    expect(isThenable({ then: 1 })).toBe(false);
  });
});

describe("andThen", () => {
  it("L12: goes on at once with a plain value", () => {
    let seen: number | undefined;
    andThen(3, (v) => ((seen = v), of(v))).subscribe();
    expect(seen).toBe(3);
  });

  it("goes on after an Observable settled", () => {
    newScheduler().run(({ cold, expectObservable }) => {
      const settled = maybeAsync(() => cold("--a|"), "error");
      expectObservable(andThen(settled, (v) => of(`${v}!`))).toBe("---(b|)", { b: "a!" });
    });
  });
});

describe("settle and failedWith: maybeAsync for a value already returned", () => {
  it("L12: a plain value stays plain; an Observable settles to its last value; a failure follows the policy", () => {
    const list = [1];
    expect(settle(list, "error")).toBe(list);
    newScheduler().run(({ cold, expectObservable }) => {
      expectObservable(settle(cold("-a-b|") as never, "error") as never).toBe("----(b|)");
      expectObservable(settle(cold("-#") as never, asFailure) as never).toBe("-(f|)", { f: new Failure("error") });
    });
  });

  it("A6: a policy that itself throws errors the settled Observable with what it threw", async () => {
    const policy = (): never => {
      throw "policy";
    };
    newScheduler().run(({ cold, expectObservable }) => {
      expectObservable(settle(cold("-#") as never, policy) as never).toBe("-#", undefined, "policy");
    });
    const rejected = settle(Promise.reject(new Error("no")), policy) as typeof EMPTY;
    expect(await new Promise((resolve) => rejected.subscribe({ error: resolve }))).toBe("policy");
  });

  it("unsubscribing a settled Observable unsubscribes its source", () => {
    newScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold("-a-b-c|");
      expectObservable(settle(source as never, "error") as never, "^--!").toBe("");
      expectSubscriptions(source.subscriptions).toBe("^--!");
    });
  });

  it("L10: a promise that settles after unsubscribe delivers nothing, neither value nor failure, not even to rxjs's stopped-notification hook", async () => {
    const stopped: string[] = [];
    config.onStoppedNotification = (notification) => void stopped.push(notification.kind);
    let resolve!: (value: number) => void;
    let reject!: (error: unknown) => void;
    const seen: unknown[] = [];
    const observer = { next: (v: unknown) => seen.push(v), error: (e: unknown) => seen.push(e), complete: () => seen.push("complete") };
    (settle(new Promise<number>((r) => (resolve = r)), "error") as typeof EMPTY).subscribe(observer).unsubscribe();
    (settle<number | Failure>(new Promise<number>((_, r) => (reject = r)), asFailure) as typeof EMPTY).subscribe(observer).unsubscribe();
    resolve(1);
    reject(new Error("late"));
    // rxjs reports a stopped notification from a timer of its own, set when the promise settles.
    for (let i = 0; i < 2; i++) await new Promise((r) => setTimeout(r, 0));
    config.onStoppedNotification = null;
    expect(seen).toEqual([]);
    expect(stopped).toEqual([]);
  });

  it("A6: a throw becomes an Observable of the error, or the value the policy makes of it", () => {
    const error = new Error("thrown");
    const observed = failedWith(error, "error");
    expect(isObservable(observed)).toBe(true);
    let seen: unknown;
    (observed as ReturnType<typeof throwError>).subscribe({ error: (e) => (seen = e) });
    expect(seen).toBe(error);
    expect(failedWith(error, asFailure)).toEqual(new Failure(error));
  });
});
