/**
 * SPEC T2: the interpreting validator's object keywords (`properties`, `patternProperties`,
 * `additionalProperties`, `propertyNames`, `dependencies`, `required`), checked against ajv on
 * fixed schemas and inputs, and its refusals of bad object keywords word for word.
 */
import { describe, expect, it } from "vitest";
import { badType, compileError, failFastPlaces, invalid, runBoth, STRNIG, under } from "../support.js";

describe("T2: interpreting validator, object keywords", () => {
  it("T2: a bad object keyword is refused, naming the keyword and the pointer of the schema it is in", () => {
    const refusals: Array<[unknown, string]> = [
      [{ properties: 5 }, invalid("properties", "#/properties/a", "must be an object of schemas")],
      [{ patternProperties: [] }, invalid("patternProperties", "#/properties/a", "must be an object of schemas")],
      [{ properties: { "x/y": STRNIG } }, badType("#/properties/a/properties/x~1y")],
      [{ patternProperties: { "^x": STRNIG } }, badType("#/properties/a/patternProperties/^x")],
      [{ additionalProperties: STRNIG }, badType("#/properties/a/additionalProperties")],
      [{ propertyNames: STRNIG }, badType("#/properties/a/propertyNames")],
      [{ dependencies: 5 }, invalid("dependencies", "#/properties/a", "must be an object")],
      [{ dependencies: { b: [1] } }, invalid("b", "#/properties/a/dependencies", "must be an array of strings")],
      [{ dependencies: { b: STRNIG } }, badType("#/properties/a/dependencies/b")],
    ];
    for (const [schema, message] of refusals) {
      expect(compileError(under(schema)), JSON.stringify(schema)).toBe(message);
      expect(runBoth(under(schema), { a: {} })).toBe("refused");
    }
    const pattern = compileError(under({ patternProperties: { "[": { type: "number" } } }));
    expect(pattern).toContain('invalid schema: "patternProperties: [" at #/properties/a/patternProperties is not a valid unicode regular expression (');
  });

  it("T2: inside not and if, the first failing property stops the walk, so the properties after it are not coerced", () => {
    const cases: Array<[object, Array<Record<string, unknown>>]> = [
      [{ properties: { p: { type: "integer" }, q: { type: "integer" } } }, [{ p: "x", q: "1" }, { p: "1", q: "2" }]],
      [{ patternProperties: { "^p": { type: "integer" } } }, [{ p1: "x", p2: "1" }, { p1: "1", p2: "2" }]],
      [{ patternProperties: { "^p": { type: "integer" }, "^q": { type: "integer" } } }, [{ p: "x", q: "1" }, { p: "1", q: "2" }]],
      [{ additionalProperties: { type: "integer" } }, [{ x: "y", z: "1" }, { x: "1", z: "2" }]],
      // Missing properties are reported before any schema dependency runs.
      [{ dependencies: { a: ["b"], c: { properties: { d: { type: "number" } } } } }, [{ a: 1, c: 1, d: "1" }, { a: 1, b: 2, c: 1, d: "1" }]],
      [
        { dependencies: { c: { properties: { d: { type: "integer" } } }, e: { properties: { f: { type: "integer" } } } } },
        [{ c: 1, d: "x", e: 1, f: "1" }, { c: 1, d: "1", e: 1, f: "2" }],
      ],
      [{ required: ["x", "y"], properties: { p: { type: "integer" } } }, [{ p: "1" }, { x: 1, p: "1" }, { x: 1, y: 2, p: "1" }]],
      [{ propertyNames: { maxLength: 1 }, properties: { pp: { type: "integer" } } }, [{ pp: "1" }, { p: "1" }]],
    ];
    for (const [schema, values] of cases) {
      for (const placed of failFastPlaces(schema)) {
        for (const value of values) expect(runBoth(under(placed), { a: value }), JSON.stringify([placed, value])).not.toBe("skipped");
      }
    }
  });

  it("T2: a keyword checks only the properties it names", () => {
    // "S" and "t" are names no schema here mentions.
    const schemas = [
      { properties: { p: { type: "number" } } },
      { dependencies: { a: ["b"] } },
      { dependencies: { a: { required: ["b"] } } },
      { dependencies: { a: [] } },
      { patternProperties: { "^p": { type: "number" } } },
    ];
    for (const schema of schemas) {
      for (const value of [{ S: 1 }, { S: "x", t: 2 }, { a: 1 }, { a: 1, b: 1, p: "1" }]) {
        expect(runBoth(under(schema), { a: value }), JSON.stringify([schema, value])).not.toBe("skipped");
      }
    }
  });

  it("T2: type object with object keywords is checked after the untyped keywords, so its error comes last, as in ajv", () => {
    const objectKeywords: Record<string, unknown> = {
      maxProperties: 1, minProperties: 0, required: [], propertyNames: {}, additionalProperties: true, dependencies: {}, properties: {}, patternProperties: {},
    };
    for (const [keyword, value] of Object.entries({ ...objectKeywords, none: undefined })) {
      const schema = { type: "object", ...(value === undefined ? {} : { [keyword]: value }), enum: [1] };
      expect(runBoth(under(schema), { a: "x" }, { ordered: true }), keyword).toBe("invalid");
    }
  });
});
