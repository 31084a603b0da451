/**
 * The copy validation works on (SPEC T2: arguments cloned): equal to `structuredClone`'s for
 * every value, sharing nothing with the original.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { copyArguments } from "../../src/tools/copy-arguments.js";

/** Every object and array reachable from `value`. */
function containers(value: unknown, into: object[] = []): object[] {
  if (value !== null && typeof value === "object") {
    into.push(value);
    for (const child of Object.values(value)) containers(child, into);
  }
  return into;
}

describe("T2: the arguments validation may change are a copy", () => {
  it("T2: a JSON value copies to what structuredClone gives, with no object shared", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const copy = copyArguments(value);
        expect(copy).toStrictEqual(structuredClone(value));
        const original = new Set(containers(value));
        for (const inner of containers(copy)) expect(original.has(inner)).toBe(false);
      }),
    );
  });

  it("T2: changing the copy leaves the model's arguments as they were", () => {
    const sent = { path: "a.txt", options: { depth: "2", tags: ["x", null] } };
    const copy = copyArguments(sent);
    copy.options.depth = 2 as unknown as string;
    copy.options.tags.push("y");
    delete (copy as Partial<typeof sent>).path;
    expect(sent).toEqual({ path: "a.txt", options: { depth: "2", tags: ["x", null] } });
  });

  it("T2: an undefined property, -0 and a null-prototype object copy as structuredClone copies them", () => {
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1 });
    const value = { missing: undefined, zero: -0, bare };
    const copy = copyArguments(value);
    expect(copy).toStrictEqual(structuredClone(value));
    expect(Object.is(copy.zero, -0)).toBe(true);
    expect("missing" in copy).toBe(true);
    expect(Object.getPrototypeOf(copy.bare)).toBe(Object.prototype);
  });

  it("T2: a \"__proto__\" key the model sent stays an own property; the copy's prototype is untouched", () => {
    const sent = JSON.parse('{"__proto__": {"polluted": true}, "b": 2}') as Record<string, unknown>;
    const copy = copyArguments(sent);
    expect(Object.keys(copy)).toEqual(["__proto__", "b"]);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect((copy as { polluted?: boolean }).polluted).toBeUndefined();
    expect(copy).toStrictEqual(structuredClone(sent));
  });

  it("T2: what is not JSON-shaped (a Date, a Map, a sparse array, a cycle) is copied by structuredClone", () => {
    const cyclic: Record<string, unknown> = { name: "loop" };
    cyclic.self = cyclic;
    const when = new Date(0);
    const value = { when, map: new Map([["k", 1]]), sparse: [1, , 3], cyclic };
    const copy = copyArguments(value);
    expect(copy.when).toBeInstanceOf(Date);
    expect(copy.when).not.toBe(when);
    expect(copy.when.getTime()).toBe(0);
    expect(copy.map.get("k")).toBe(1);
    expect(1 in copy.sparse).toBe(false);
    expect((copy.cyclic as Record<string, unknown>).self).toBe(copy.cyclic);
    expect(copy.cyclic).not.toBe(cyclic);
  });

  it("T2: a value structuredClone refuses (a function) is refused with its error", () => {
    let cloneError: unknown;
    try {
      structuredClone({ run: () => 1 });
    } catch (error) {
      cloneError = error;
    }
    expect(() => copyArguments({ nested: [{ run: () => 1 }] })).toThrow((cloneError as Error).message);
    expect(() => copyArguments({ nested: [{ run: () => 1 }] })).toThrow(DOMException);
  });

  it("T2: nesting deeper than models send still copies (through structuredClone)", () => {
    let deep: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 200; i++) deep = { next: deep };
    expect(copyArguments(deep)).toStrictEqual(structuredClone(deep));
  });
});

describe("T2: arguments a prepareArguments hook shapes", () => {
  it("T2: an object met twice stays one object, as structuredClone keeps it", () => {
    const shared = { unit: "C" };
    const copy = copyArguments({ a: shared, b: shared, list: [shared] });
    expect(copy.a).toBe(copy.b);
    expect(copy.list[0]).toBe(copy.a);
    expect(copy.a).not.toBe(shared);
  });

  it("T2: an array with properties beside its items keeps them, as structuredClone does", () => {
    const tagged = Object.assign(["x"], { label: "tags" });
    const copy = copyArguments({ tagged });
    expect(copy.tagged).toStrictEqual(structuredClone({ tagged }).tagged);
    expect((copy.tagged as unknown as { label: string }).label).toBe("tags");
  });
});

/** `levels` objects nested one in the other, the innermost holding `leaf`. */
function nested(levels: number, leaf: unknown): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf };
  for (let i = 1; i < levels; i++) value = { next: value };
  return value;
}

/** Whether copying `value` handed it to `structuredClone`, and the copy. */
function viaClone<T>(value: T): { cloned: boolean; copy: T } {
  const spy = vi.spyOn(globalThis, "structuredClone");
  try {
    const copy = copyArguments(value);
    return { cloned: spy.mock.calls.length > 0, copy };
  } finally {
    spy.mockRestore();
  }
}

describe("T2: JSON-shaped arguments are copied without structuredClone; each other kind goes to it", () => {
  afterEach(() => vi.restoreAllMocks());

  it("T2: plain objects, null-prototype objects, arrays and primitives never reach structuredClone", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(viaClone(value).cloned).toBe(false);
      }),
    );
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { a: [1, { b: null }] });
    expect(viaClone({ bare, list: [[1, { b: null }]] }).cloned).toBe(false);
  });

  it("T2: each value that is not JSON-shaped, on its own, is structuredClone's copy", () => {
    const subArray = class extends Array<number> {};
    const inherited = Object.assign([1, , 3], {});
    Object.setPrototypeOf(inherited, Object.assign(Object.create(Array.prototype) as object, { 1: "from the prototype" }));
    const holeAndProperty = Object.assign([1, , 3], { label: "x" });
    // An index from the prototype and a property beside the items: as many own keys as indices.
    const inheritedAndProperty = Object.assign([1, , 3], { label: "x" });
    Object.setPrototypeOf(inheritedAndProperty, Object.getPrototypeOf(inherited) as object);
    const cases: Record<string, unknown> = {
      date: new Date(0),
      map: new Map([["k", 1]]),
      instance: new (class Point {
        x = 1;
      })(),
      sparse: [1, , 3],
      inheritedIndex: inherited,
      holeAndProperty,
      inheritedAndProperty,
      cyclic: (() => {
        const c: Record<string, unknown> = {};
        c.self = c;
        return c;
      })(),
    };
    for (const [name, item] of Object.entries(cases)) {
      const { cloned, copy } = viaClone({ item });
      expect({ name, cloned }).toEqual({ name, cloned: true });
      expect(copy).toStrictEqual(structuredClone({ item }));
    }
    // An Array subclass copies to a plain array either way, as structuredClone copies it.
    expect(copyArguments({ item: subArray.from([1, 2]) })).toStrictEqual({ item: [1, 2] });
    expect(Object.hasOwn(copyArguments({ item: inherited }).item as object, 1)).toBe(false);
    expect((copyArguments({ item: holeAndProperty }).item as { label?: string }).label).toBe("x");
  });

  it("T2: a symbol, like a function, is refused with structuredClone's error", () => {
    expect(() => copyArguments({ tag: Symbol("s") })).toThrow(DOMException);
    expect(() => copyArguments([() => 1])).toThrow(DOMException);
  });

  it("T2: nesting up to 65 levels is copied directly; deeper goes to structuredClone", () => {
    expect(viaClone(nested(65, 1)).cloned).toBe(false);
    expect(viaClone(nested(66, 1)).cloned).toBe(true);
    let list: unknown = [1];
    for (let i = 1; i < 65; i++) list = [list];
    expect(viaClone(list).cloned).toBe(false);
    expect(viaClone([list]).cloned).toBe(true);
    expect(viaClone(nested(66, 1)).copy).toStrictEqual(nested(66, 1));
  });

  it("T2: a Proxy of a plain object is copied as one (structuredClone would refuse it)", () => {
    const proxy = new Proxy({ a: 1, b: [2] }, {});
    expect(() => structuredClone(proxy)).toThrow(DOMException);
    expect(copyArguments({ proxy })).toStrictEqual({ proxy: { a: 1, b: [2] } });
  });

  it("T2: an error thrown while the value is read (a Proxy trap) reaches the caller as it is", () => {
    const failing = new Error("cannot list keys");
    const trapped = new Proxy({}, { ownKeys: () => { throw failing; } });
    expect(() => copyArguments({ trapped })).toThrow(failing);
  });

  it("T2: a \"__proto__\" key is an ordinary data property of the copy, as in structuredClone's", () => {
    const sent = JSON.parse('{"__proto__": {"p": 1}}') as Record<string, unknown>;
    expect(Object.getOwnPropertyDescriptor(copyArguments(sent), "__proto__")).toEqual(Object.getOwnPropertyDescriptor(structuredClone(sent), "__proto__"));
    expect(Object.getOwnPropertyDescriptor(copyArguments(sent), "__proto__")).toMatchObject({ writable: true, enumerable: true, configurable: true });
  });
});
