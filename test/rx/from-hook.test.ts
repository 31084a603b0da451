/**
 * `fromHook`, `lift`, `liftConcatMap`: a hook's value, promise or Observable lifted once (SPEC L12:
 * a plain value stays synchronous; A6: a throw is the result's error).
 */
import { config, type EMPTY, lastValueFrom, of } from "rxjs";
import { TestScheduler } from "rxjs/testing";
import { describe, expect, it } from "vitest";
import { fromHook, lift, liftConcatMap } from "../../src/rx/from-hook.js";

const newScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

describe("lift", () => {
  it("L12: a plain value at once, an Observable's last value, undefined for an empty one", () => {
    newScheduler().run(({ cold, expectObservable }) => {
      expectObservable(lift(1)).toBe("(a|)", { a: 1 });
      expectObservable(lift(cold("-a-b|"))).toBe("----(b|)");
      expectObservable(lift(cold("--|"))).toBe("--(u|)", { u: undefined });
    });
  });

  it("a promise when it settles, its rejection as the error", async () => {
    expect(await lastValueFrom(lift(Promise.resolve(2)))).toBe(2);
    await expect(lastValueFrom(lift(Promise.reject(new Error("no"))))).rejects.toThrow("no");
  });

  it("L10: a promise settled after unsubscribe reaches no one, not even rxjs's stopped-notification hook", async () => {
    const stopped: string[] = [];
    config.onStoppedNotification = (notification) => void stopped.push(notification.kind);
    let resolve!: (value: number) => void;
    let reject!: (error: unknown) => void;
    const seen: unknown[] = [];
    const observer = { next: (v: unknown) => seen.push(v), error: (e: unknown) => seen.push(e), complete: () => seen.push("complete") };
    (lift(new Promise<number>((r) => (resolve = r))) as typeof EMPTY).subscribe(observer).unsubscribe();
    (lift(new Promise<number>((_, r) => (reject = r))) as typeof EMPTY).subscribe(observer).unsubscribe();
    resolve(1);
    reject(new Error("late"));
    for (let i = 0; i < 2; i++) await new Promise((r) => setTimeout(r, 0));
    config.onStoppedNotification = null;
    expect(seen).toEqual([]);
    expect(stopped).toEqual([]);
  });
});

describe("fromHook", () => {
  it("A6: calls the hook on subscription; a throw is the error", () => {
    let calls = 0;
    const hooked = fromHook(() => ++calls);
    expect(calls).toBe(0);
    newScheduler().run(({ expectObservable }) => {
      expectObservable(hooked).toBe("(a|)", { a: 1 });
      expectObservable(fromHook(() => { throw new Error("hook"); })).toBe("#", undefined, new Error("hook"));
    });
  });
});

describe("liftConcatMap", () => {
  it("L12: a plain value is projected at once, and the projection is the result itself; an Observable's value is projected when it settles, as concatMap does", () => {
    const projected: number[] = [];
    const inner = of(10);
    const plain = liftConcatMap(1, (v) => (projected.push(v), inner));
    expect(projected).toEqual([1]);
    expect(plain).toBe(inner);
    newScheduler().run(({ cold, expectObservable }) => {
      expectObservable(liftConcatMap(cold("-a|", { a: 2 }), (v: number) => cold("-x|", { x: v * 10 }))).toBe("---x|", { x: 20 });
      expectObservable(liftConcatMap(cold("-a-b|", { a: 1, b: 3 }), (v: number) => of(v * 10))).toBe("----(x|)", { x: 30 });
    });
  });
});
