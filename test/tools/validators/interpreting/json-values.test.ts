/**
 * The interpreting validator's JSON helpers (SPEC T2): each decides something ajv's generated code
 * decides the same way, so the validator agrees with ajv on what it counts, compares and copies.
 */
import { describe, expect, it } from "vitest";
import { codePointLength, copyOf, equal, hasOwn, pointer, schemaKeys } from "../../../../src/tools/validators/interpreting/json-values.js";

describe("T2: JSON helpers of the interpreting validator", () => {
  it("T2: hasOwn: an own property that is not undefined (ajv tests `!== undefined`)", () => {
    expect(hasOwn({ a: 1 }, "a")).toBe(true);
    expect(hasOwn({ a: null }, "a")).toBe(true);
    expect(hasOwn({ a: undefined }, "a")).toBe(false);
    expect(hasOwn(Object.create({ a: 1 }) as Record<string, unknown>, "a")).toBe(false);
  });

  it("T2: pointer escapes `~` and `/` in a segment (RFC 6901)", () => {
    expect(pointer("#/properties", "a/b~c")).toBe("#/properties/a~1b~0c");
    expect(pointer("#", 3)).toBe("#/3");
  });

  it("T2: schemaKeys: a map's own names, never `__proto__`; nothing for what is no object", () => {
    expect(schemaKeys(JSON.parse('{"__proto__": {}, "a": {}, "b": {}}'))).toEqual(["a", "b"]);
    expect(schemaKeys([{}])).toEqual([]);
    expect(schemaKeys(null)).toEqual([]);
  });

  it("T2: codePointLength counts a surrogate pair once, and a lone or reversed surrogate as one each", () => {
    expect(codePointLength("")).toBe(0);
    expect(codePointLength("a😀b")).toBe(3);
    // The edges of the high-surrogate range, each before a low surrogate.
    expect(codePointLength("\ud800\udc00")).toBe(1);
    expect(codePointLength("\udbff\udfff")).toBe(1);
    expect(codePointLength("\ud7ff\udc00")).toBe(2);
    expect(codePointLength("\udc00\udc00")).toBe(2);
    // A high surrogate last, or before something that is no low surrogate.
    expect(codePointLength("a\ud83d")).toBe(2);
    expect(codePointLength("\ud83dx")).toBe(2);
    expect(codePointLength("\ud83d\ud83d")).toBe(2);
  });

  it("T2: equal decides as fast-deep-equal: arrays against arrays, objects by their own keys, NaN equals NaN", () => {
    expect(equal([1, [2, { a: 3 }]], [1, [2, { a: 3 }]])).toBe(true);
    expect(equal([1, 2], [2, 1])).toBe(false);
    expect(equal([1], [1, 2])).toBe(false);
    expect(equal([], {})).toBe(false);
    expect(equal({}, [])).toBe(false);
    expect(equal({ 0: 1, length: 1 }, [1])).toBe(false);
    expect(equal({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(true);
    expect(equal({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(equal({ a: 1, b: undefined }, { a: 1, c: undefined })).toBe(false);
    expect(equal({ a: { b: 1 } }, { a: { b: 2 } })).toBe(false);
    expect(equal(Object.create(null) as object, {})).toBe(false);
    expect(equal(null, {})).toBe(false);
    expect(equal({}, null)).toBe(false);
    expect(equal(NaN, NaN)).toBe(true);
    expect(equal(NaN, 1)).toBe(false);
    expect(equal(1, NaN)).toBe(false);
    expect(equal("1", 1)).toBe(false);
  });

  it("T2: copyOf gives a fresh copy of an object or array default, and a scalar as it is", () => {
    const fallback = { a: [1, { b: 2 }] };
    const copy = copyOf(fallback);
    expect(copy).toEqual(fallback);
    expect(copy).not.toBe(fallback);
    expect((copy as typeof fallback).a).not.toBe(fallback.a);
    expect(copyOf(null)).toBeNull();
    expect(copyOf("x")).toBe("x");
  });
});
