/**
 * SPEC T2: the interpreting validator's number bounds, annotation keywords and `type` values,
 * checked against ajv at their edges.
 */
import { describe, expect, it } from "vitest";
import { compileError, invalid, runBoth, under } from "../support.js";

describe("T2: interpreting validator, bounds, annotations and types", () => {
  it("T2: inclusive bounds take the bound itself, exclusive ones do not", () => {
    for (const keyword of ["maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum"]) {
      for (const value of [4, 5, 6, "5"]) expect(runBoth(under({ [keyword]: 5 }), { a: value }), `${keyword} ${value}`).not.toBe("skipped");
    }
  });

  it("T2: annotation keywords of the right type are accepted", () => {
    const schema = under({ readOnly: true, writeOnly: false, title: "t", description: "d", examples: [1], $comment: "c" });
    expect(runBoth(schema, { a: 1 })).toBe("valid");
    expect(compileError(under({ readOnly: 1 }))).toBe(invalid("readOnly", "#/properties/a", "must be a boolean"));
  });

  it("T2: a type that is not a JSON type name, a string or not, is refused", () => {
    for (const type of [5, null, "strnig", ["string", 5]]) {
      const bad = JSON.stringify(Array.isArray(type) ? type[1] : type);
      expect(compileError(under({ type })), JSON.stringify(type)).toBe(invalid("type", "#/properties/a", `must be one of array, boolean, integer, null, number, object, string, or an array of them (got ${bad})`));
    }
  });
});
