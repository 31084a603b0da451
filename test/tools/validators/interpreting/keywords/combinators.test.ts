/**
 * SPEC T2: the interpreting validator's combinators (`not`, `anyOf`, `oneOf`, `allOf`, `if` /
 * `then` / `else`), checked against ajv on fixed schemas and inputs, and its refusals of bad
 * combinators word for word.
 */
import { describe, expect, it } from "vitest";
import { badType, compileError, failFastPlaces, invalid, runBoth, STRNIG, under } from "../support.js";

describe("T2: interpreting validator, combinators", () => {
  it("T2: a bad combinator, or a bad schema in one (used or not), is refused, naming the keyword and the pointer", () => {
    const refusals: Array<[unknown, string]> = [
      [{ not: STRNIG }, badType("#/properties/a/not")],
      [{ anyOf: 5 }, invalid("anyOf", "#/properties/a", "must be a non-empty array of schemas")],
      [{ anyOf: [{ type: "number" }, STRNIG] }, badType("#/properties/a/anyOf/1")],
      // One branch is always valid, so ajv skips the anyOf; it still checks every branch's shape.
      [{ anyOf: [true, STRNIG] }, badType("#/properties/a/anyOf/1")],
      [{ oneOf: [{}, STRNIG] }, badType("#/properties/a/oneOf/1")],
      [{ allOf: [STRNIG] }, badType("#/properties/a/allOf/0")],
      [{ if: STRNIG, then: false }, badType("#/properties/a/if")],
      // `then` without `if`, and an `if` without a `then` or `else` that checks anything, run nothing but are shape-checked.
      [{ then: STRNIG }, badType("#/properties/a/then")],
      [{ if: STRNIG, then: {} }, badType("#/properties/a/if")],
      [{ if: {}, else: STRNIG }, badType("#/properties/a/else")],
    ];
    for (const [schema, message] of refusals) {
      expect(compileError(under(schema)), JSON.stringify(schema)).toBe(message);
      expect(runBoth(under(schema), { a: 1 })).toBe("refused");
    }
  });

  it("T2: a $ref cycle through then or else, on the same value, is refused", () => {
    for (const clause of ["then", "else"]) {
      const schema = { ...under({ $ref: "#/$defs/d" }), $defs: { d: { if: { type: "number" }, [clause]: { $ref: "#/$defs/d" } } } };
      expect(compileError(schema), clause).toMatch(/a "\$ref" cycle checks the same value against itself forever/);
    }
  });

  it("T2: if runs only with a then or else that checks something; then runs when it matches, else when it does not", () => {
    const schemas = [
      { if: { type: "number" }, then: {} },
      { if: { type: "number" }, then: true, else: {} },
      { if: { type: "number" }, then: { minimum: 5 } },
      { if: { type: "number" }, else: { maxLength: 0 } },
      { if: { type: "number" }, then: { minimum: 5 }, else: { maxLength: 0 } },
      { if: { type: "number" }, then: { minimum: 5 }, else: true },
      { if: { type: "number" }, then: {}, else: { maxLength: 0 } },
    ];
    for (const schema of schemas) {
      for (const value of ["1", "7", 7, 1, "x", "", true]) expect(runBoth(under(schema), { a: value }), JSON.stringify([schema, value])).not.toBe("skipped");
    }
  });

  it("T2: always-valid branches and schemas count as passed: not fails on them, oneOf counts them, allOf and anyOf pass them", () => {
    const schemas = [
      { not: {} },
      { not: true },
      { not: { title: "annotations only" } },
      { oneOf: [{}, { type: "number" }] },
      { oneOf: [{ type: "string" }, true] },
      { allOf: [{}, { type: "number" }] },
      { allOf: [true] },
      { anyOf: [{ type: "number" }, {}] },
    ];
    for (const schema of schemas) {
      for (const value of ["1", "x", 2]) expect(runBoth(under(schema), { a: value }), JSON.stringify([schema, value])).not.toBe("skipped");
    }
  });

  it("T2: inside an if, the first failing keyword stops the walk, whatever the caller's allErrors", () => {
    const schema = { allOf: [{ type: "integer" }, { minimum: 5 }], items: { type: "integer" } };
    for (const placed of failFastPlaces(schema)) {
      for (const value of [["x", "1"], "x", "3", ["1", "2"]]) expect(runBoth(under(placed), { a: value }), JSON.stringify([placed, value])).not.toBe("skipped");
    }
  });
});
