/**
 * `fromInput`: rxjs's `from`, with `undefined` where `from` throws (SPEC M3: what a stream
 * function may return). Checked against `from` itself on every kind of input.
 */
import { firstValueFrom, from, Observable, of, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { fromInput } from "../../src/rx/observable-input.js";

async function* twoAsync(): AsyncGenerator<number> {
  yield 1;
  yield 2;
}

function* twoSync(): Generator<number> {
  yield 1;
  yield 2;
}

const interop = { [Symbol.observable ?? "@@observable"]: () => of(1, 2) };
const readable = () => new ReadableStream<number>({ start: (c) => (c.enqueue(1), c.enqueue(2), c.close()) });

describe("fromInput", () => {
  const accepted: [string, () => unknown][] = [
    ["an Observable", () => of(1, 2)],
    ["an array", () => [1, 2]],
    ["an array-like", () => ({ length: 2, 0: 1, 1: 2 })],
    ["a promise", () => Promise.resolve(1)],
    ["a thenable", () => ({ then: (resolve: (v: number) => void) => resolve(1) })],
    ["an async iterable", () => twoAsync()],
    ["an iterable", () => twoSync()],
    ["an interop observable", () => interop],
    ["a ReadableStream", readable],
    ["a ReadableStream-like (only getReader)", () => ({ getReader: () => readable().getReader() })],
    ["a string", () => "ab"],
  ];
  const refused: [string, unknown][] = [
    ["undefined", undefined],
    ["null", null],
    ["a number", 42],
    ["a boolean", true],
    ["a plain object", { type: "done" }],
    ["a function", () => [1]],
    ["a symbol", Symbol("s")],
    ["an object whose then is not a function", { then: 1 }],
  ];

  it.each(accepted)("M3: accepts %s, with the values from() gives", async (_, make) => {
    const observable = fromInput<unknown>(make());
    expect(observable).toBeInstanceOf(Observable);
    const ours = await firstValueFrom(observable!.pipe(toArray()));
    const theirs = await firstValueFrom(from(make() as never).pipe(toArray()));
    expect(ours).toEqual(theirs);
  });

  it.each(refused)("M3: refuses %s, as from() does by throwing", (_, value) => {
    expect(() => from(value as never)).toThrow(TypeError);
    expect(fromInput(value)).toBeUndefined();
  });

  it("is cold: no value of the input is read before subscription", () => {
    let reads = 0;
    const input = {
      [Symbol.iterator]() {
        reads++;
        return [1][Symbol.iterator]();
      },
    };
    const observable = fromInput(input)!;
    expect(reads).toBe(0);
    observable.subscribe();
    expect(reads).toBe(1);
  });
});

describe("fromInput of an Observable", () => {
  it("M3: is the Observable itself, as from() gives it", () => {
    const source = of(1);
    expect(from(source)).toBe(source);
    expect(fromInput(source)).toBe(source);
  });
});
