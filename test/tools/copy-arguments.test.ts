/**
 * The copy validation works on (SPEC T2: arguments cloned): equal to `structuredClone`'s for
 * every value, sharing nothing with the original.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
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
