/**
 * SPEC T2: the interpreting validator's array keywords (`items`, tuples with `additionalItems`,
 * `contains`, `uniqueItems`), checked against ajv on fixed schemas and inputs, and its refusals
 * of bad array keywords word for word.
 */
import { describe, expect, it } from "vitest";
import { badType, compileError, failFastPlaces, invalid, runBoth, STRNIG, under } from "../support.js";

describe("T2: interpreting validator, array keywords", () => {
  it("T2: a bad array keyword is refused, naming the keyword and the pointer of the schema it is in", () => {
    const refusals: Array<[unknown, string]> = [
      [{ uniqueItems: 1 }, invalid("uniqueItems", "#/properties/a", "must be a boolean")],
      [{ items: [] }, invalid("items", "#/properties/a", "must be a schema or a non-empty array of schemas")],
      [{ items: STRNIG }, badType("#/properties/a/items")],
      [{ items: [{}, STRNIG] }, badType("#/properties/a/items/1")],
      [{ items: [{}], additionalItems: STRNIG }, badType("#/properties/a/additionalItems")],
      // Without `items`, `additionalItems` checks nothing, but its shape is still checked.
      [{ additionalItems: STRNIG }, badType("#/properties/a/additionalItems")],
      [{ contains: STRNIG }, badType("#/properties/a/contains")],
    ];
    for (const [schema, message] of refusals) {
      expect(compileError(under(schema)), JSON.stringify(schema)).toBe(message);
      expect(runBoth(under(schema), { a: [] })).toBe("refused");
    }
  });

  it("T2: a tuple checks the positions the array has, and additionalItems the rest", () => {
    const tuples = [
      { items: [{ type: "number" }, { type: "string" }] },
      { items: [{ type: "number" }, {}], additionalItems: { type: "integer" } },
      { items: [{ type: "number" }], additionalItems: false },
      { items: [true, { type: "boolean" }] },
    ];
    for (const schema of tuples) {
      for (const value of [[], ["1"], ["1", 2], ["1", 2, "3"], [true, "false", "x", "4"]]) {
        expect(runBoth(under(schema), { a: value }), JSON.stringify([schema, value])).not.toBe("skipped");
      }
    }
  });

  it("T2: inside not and if, the first failing item stops the walk, so the items after it are not coerced", () => {
    const schemas = [
      { items: { type: "integer" } },
      { items: [{ type: "integer" }, { type: "integer" }, { type: "integer" }] },
      { items: [{}], additionalItems: { type: "integer" } },
      { contains: { type: "integer", minimum: 5 } },
    ];
    // A failure first, then values that would be coerced; and values that all pass.
    const values = [["x", "1", "2"], [0, "x", "1"], ["1", "2", "3"], ["7", "8"]];
    for (const schema of schemas) {
      for (const placed of failFastPlaces(schema)) {
        for (const value of values) expect(runBoth(under(placed), { a: value }), JSON.stringify([placed, value])).not.toBe("skipped");
      }
    }
  });

  it("T2: contains needs one valid item; an always-valid contains needs one item", () => {
    for (const contains of [{ type: "number", minimum: 2 }, {}, true, false]) {
      for (const value of [[], [1], [1, "3"], ["x"]]) {
        expect(runBoth(under({ contains }), { a: value }), JSON.stringify([contains, value])).not.toBe("skipped");
      }
    }
  });

  it("T2: uniqueItems names the duplicate pair as ajv does, which differs for scalar item types", () => {
    const cases: Array<[object, unknown[]]> = [
      // Scalar items: the first repeat met scanning from the end, here items 2 and 1.
      [{ type: "number" }, [1, 2, 2, 1]],
      // Objects allowed: the last item that repeats an earlier one, here 0 and 3.
      [{ type: ["number", "object"] }, [1, 2, 2, 1]],
      [{}, [1, 2, 2, 1]],
      // Items that fail their type are not compared when the item types are scalar.
      [{ type: "number" }, ["x", "x"]],
      [{ type: "object" }, [{ a: 1 }, { a: 1 }]],
      [{ type: "array" }, [[1], [1]]],
      // A nullable item type keeps nulls, and two nulls are duplicates; otherwise null is coerced first.
      [{ type: "number", nullable: true }, [null, 1, null]],
      [{ type: "string" }, [null, ""]],
      // Nulls a subschema makes after the type check are not compared: null is not among the item types.
      [{ type: "string", anyOf: [{ type: "null" }, { minLength: 1 }] }, ["", ""]],
      [{ type: "number", if: { minimum: 1 }, else: { type: "null" } }, [0, 0]],
      [{ type: ["string", "number"] }, ["1", 1]],
      [{ type: "number" }, [3]],
      [{ type: "number" }, []],
    ];
    for (const [items, value] of cases) {
      expect(runBoth(under({ items, uniqueItems: true }), { a: value }, { ordered: true }), JSON.stringify([items, value])).not.toBe("skipped");
    }
    for (const value of [[1, 1], [1], [], [[1], [1]], [{ a: [1] }, { a: [1] }]]) {
      expect(runBoth(under({ uniqueItems: true }), { a: value }, { ordered: true }), JSON.stringify(value)).not.toBe("skipped");
    }
  });
});
