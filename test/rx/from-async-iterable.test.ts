/**
 * `fromAsyncIterable` (SPEC M3): pi-ai's streams are async iterables; read natively, with rxjs's
 * `from` contract.
 */
import { lastValueFrom, take, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { fromAsyncIterable, isPlainAsyncIterable } from "../../src/rx/from-async-iterable.js";

async function* numbers(log: string[]): AsyncGenerator<number> {
  try {
    for (let i = 1; i <= 5; i++) {
      log.push(`yield ${i}`);
      yield i;
    }
  } finally {
    log.push("returned");
  }
}

describe("fromAsyncIterable", () => {
  it("M3: emits every value, then completes", async () => {
    expect(await lastValueFrom(fromAsyncIterable(numbers([])).pipe(toArray()))).toEqual([1, 2, 3, 4, 5]);
  });

  it("L10: stops reading (and returns the iterator) once the subscriber is closed", async () => {
    const log: string[] = [];
    expect(await lastValueFrom(fromAsyncIterable(numbers(log)).pipe(take(2), toArray()))).toEqual([1, 2]);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(log).toEqual(["yield 1", "yield 2", "returned"]);
  });

  it("M4: a throwing iterable errors the Observable", async () => {
    async function* failing(): AsyncGenerator<number> {
      yield 1;
      throw new Error("broken stream");
    }
    await expect(lastValueFrom(fromAsyncIterable(failing()))).rejects.toThrow("broken stream");
  });

  it("isPlainAsyncIterable: async iterables rxjs would not read as something else first", () => {
    expect(isPlainAsyncIterable(numbers([]))).toBe(true);
    expect(isPlainAsyncIterable([1])).toBe(false);
    expect(isPlainAsyncIterable(Promise.resolve())).toBe(false);
    expect(isPlainAsyncIterable({ [Symbol.asyncIterator]: () => ({}), then: () => undefined })).toBe(false);
    expect(isPlainAsyncIterable(null)).toBe(false);
    // Not async iterable at all: a sync iterable, a plain object.
    expect(isPlainAsyncIterable(new Set([1]))).toBe(false);
    expect(isPlainAsyncIterable({})).toBe(false);
    // An interop Observable that is also async iterable: rxjs reads it as an Observable.
    const interop = { [Symbol.asyncIterator]: () => ({}), [Symbol.observable ?? "@@observable"]: () => ({}) };
    expect(isPlainAsyncIterable(interop)).toBe(false);
  });
});
