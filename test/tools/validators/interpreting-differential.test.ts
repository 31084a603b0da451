/**
 * SPEC T2: the interpreting validator against ajv, configured as rxagent configures it, on random
 * schemas from the supported keywords and random arguments (numeric and boolean strings, nulls,
 * one-element arrays, missing and extra properties). Both must agree on validity, on the data
 * after coercion and defaults, and on the issues reported.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { interpretingValidator } from "../../../src/tools/validators/interpreting-validator.js";
import { runBoth, under } from "./interpreting/support.js";

/** Raise locally (e.g. RXAGENT_VALIDATOR_RUNS=20000) to search harder; the default keeps the suite quick. */
const RUNS = Number(process.env.RXAGENT_VALIDATOR_RUNS ?? 1000);
const TIMEOUT = Math.max(60_000, RUNS * 30);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const NAMES = ["a", "b", "c"] as const;
const name = fc.constantFrom(...NAMES);
const scalar: fc.Arbitrary<Json> = fc.constantFrom<Json>(0, 1, -1, 2, 3, 1.5, -0.5, "", "a", "ab", "abc", "1", "2", "1.5", "-1", "0", "true", "false", "é", "😀x", true, false, null);

/**
 * `contains` is generated only where no array is empty: ajv's code for it keeps its result in a
 * function-scoped `var`, so an empty array passes when an earlier array checked by the same
 * keyword passed (see the unit test). The interpreter does not carry that state over.
 */
interface Options {
  contains: boolean;
}

function values({ contains }: Options) {
  const minLength = contains ? 1 : 0;
  const { value } = fc.letrec<{ value: Json }>((tie) => ({
    value: fc.oneof(
      { depthSize: "small", maxDepth: 3, withCrossShrink: true },
      scalar,
      fc.array(tie("value"), { minLength, maxLength: 3 }),
      fc.dictionary(fc.constantFrom("a", "b", "c", "x"), tie("value"), { maxKeys: 3 }) as fc.Arbitrary<Json>,
    ),
  }));
  const literal = fc.oneof(scalar, fc.constantFrom<Json>(...(contains ? [] : [[]]), [1], ["a", 1], {}, { a: 1 }));
  return { value, literal };
}

const typeName = fc.constantFrom("string", "number", "integer", "boolean", "null", "array", "object");
const byJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

type Schema = boolean | Record<string, unknown>;

/** Keywords as [name, value] pairs; a schema is a few of them, so schemas stay small. */
function keywords(sub: fc.Arbitrary<Schema>, options: Options): fc.Arbitrary<[string, unknown]> {
  const { literal } = values(options);
  const kw = <T>(key: string, arb: fc.Arbitrary<T>) => arb.map((v): [string, unknown] => [key, v]);
  const names = fc.uniqueArray(name, { maxLength: 3 });
  return fc.oneof(
    { arbitrary: kw("type", fc.oneof(typeName, fc.uniqueArray(typeName, { minLength: 1, maxLength: 3 }))), weight: 6 },
    kw("nullable", fc.boolean()),
    kw("enum", fc.uniqueArray(literal, { minLength: 1, maxLength: 3, comparator: byJson })),
    kw("const", literal),
    kw("minimum", fc.constantFrom(-1, 0, 1, 2.5)),
    kw("maximum", fc.constantFrom(-1, 0, 1, 2.5)),
    kw("exclusiveMinimum", fc.constantFrom(-1, 0, 1)),
    kw("exclusiveMaximum", fc.constantFrom(0, 1, 3)),
    kw("multipleOf", fc.constantFrom(0.5, 1, 2)),
    kw("minLength", fc.integer({ min: 0, max: 3 })),
    kw("maxLength", fc.integer({ min: 0, max: 3 })),
    kw("pattern", fc.constantFrom("^a", "\\d", "^\\p{L}+$", "x$")),
    kw("format", fc.constantFrom("email", "date-time")),
    kw("minItems", fc.integer({ min: 0, max: 2 })),
    kw("maxItems", fc.integer({ min: 0, max: 2 })),
    kw("uniqueItems", fc.boolean()),
    { arbitrary: kw("items", fc.oneof(sub, fc.array(sub, { minLength: 1, maxLength: 2 }))), weight: 3 },
    kw("additionalItems", sub),
    ...(options.contains ? [{ arbitrary: kw("contains", sub), weight: 4 }] : []),
    { arbitrary: kw("properties", fc.dictionary(name, sub, { maxKeys: 3 })), weight: 4 },
    { arbitrary: kw("required", names), weight: 2 },
    { arbitrary: kw("additionalProperties", sub), weight: 2 },
    kw("patternProperties", fc.dictionary(fc.constantFrom("^a", "^(b|c)$", "x"), sub, { maxKeys: 2 })),
    kw("propertyNames", fc.constantFrom({ maxLength: 1 }, { pattern: "^[ab]" }, { enum: ["a", "b"] }, { type: "string", minLength: 1 })),
    kw("minProperties", fc.integer({ min: 0, max: 2 })),
    kw("maxProperties", fc.integer({ min: 0, max: 2 })),
    kw("dependencies", fc.dictionary(name, fc.oneof(names, sub), { maxKeys: 2 })),
    { arbitrary: kw("anyOf", fc.array(sub, { minLength: 1, maxLength: 3 })), weight: 2 },
    { arbitrary: kw("oneOf", fc.array(sub, { minLength: 1, maxLength: 3 })), weight: 2 },
    kw("allOf", fc.array(sub, { minLength: 1, maxLength: 2 })),
    kw("not", sub),
    kw("if", sub),
    kw("then", sub),
    kw("else", sub),
    { arbitrary: kw("default", literal), weight: 2 },
    kw("$ref", fc.constantFrom("#/$defs/d0", "#/definitions/d1", "#")),
    kw("description", fc.constant("annotation only")),
  );
}

/** ajv refuses these combinations (as does the interpreter, tested elsewhere); keep the generated schemas valid. */
function tidy(entries: Array<[string, unknown]>): Schema {
  const schema: Record<string, unknown> = Object.fromEntries(entries);
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  if ("nullable" in schema && (types.length === 0 || (types.includes("null") && schema.nullable === false))) delete schema.nullable;
  return schema;
}

function schemas(options: Options) {
  const { schema } = fc.letrec<{ schema: Schema }>((tie) => ({
    schema: fc.oneof(
      { depthSize: "small", maxDepth: 3, withCrossShrink: true },
      fc.array(keywords(fc.constant({}), options), { maxLength: 3 }).map(tidy),
      fc.constantFrom<Schema>(true, false, {}),
      fc.array(keywords(tie("schema"), options), { maxLength: 4 }).map(tidy),
    ),
  }));
  return schema;
}

/** A tool's parameters: an object schema with properties, plus `$defs` / `definitions` for the `$ref`s. */
const toolSchema = (options: Options) => {
  const schema = schemas(options);
  return fc
  .record({
    root: fc.array(keywords(schema, options), { maxLength: 3 }).map(tidy),
    properties: fc.dictionary(name, schema, { minKeys: 1, maxKeys: 3 }),
    d0: schema,
    d1: schema,
  })
  .map(({ root, properties, d0, d1 }) => ({
    ...(root as Record<string, unknown>),
    type: "object",
    properties: { ...((root as Record<string, unknown>).properties as object | undefined), ...properties },
    $defs: { d0 },
    definitions: { d1 },
  }));
};

const args = (options: Options) => fc.dictionary(fc.constantFrom("a", "b", "c", "x"), values(options).value, { maxKeys: 4 });
const plain: Options = { contains: false };

describe("T2: the interpreting validator agrees with ajv", () => {
  it("T2: random schemas and arguments: same validity, same coerced data, same issues", () => {
    const outcomes = { valid: 0, invalid: 0, refused: 0, skipped: 0 };
    fc.assert(
      fc.property(toolSchema(plain), fc.array(args(plain), { minLength: 1, maxLength: 4 }), (s, inputs) => {
        for (const input of inputs) outcomes[runBoth(s, input)]++;
      }),
      { numRuns: RUNS },
    );
    // The generators must exercise both outcomes, or the property proves little.
    expect(outcomes.valid).toBeGreaterThan(200);
    expect(outcomes.invalid).toBeGreaterThan(200);
    expect(outcomes.skipped).toBeLessThan(outcomes.valid);
  }, TIMEOUT);

  it("T2: with contains, on arguments without empty arrays", () => {
    const options: Options = { contains: true };
    const outcomes = { valid: 0, invalid: 0, refused: 0, skipped: 0 };
    fc.assert(
      fc.property(toolSchema(options), fc.array(args(options), { minLength: 1, maxLength: 4 }), (s, inputs) => {
        for (const input of inputs) outcomes[runBoth(s, input)]++;
      }),
      { numRuns: RUNS / 2 },
    );
    expect(outcomes.valid).toBeGreaterThan(50);
    expect(outcomes.invalid).toBeGreaterThan(50);
  }, TIMEOUT);

  it("T2: flat tool-like schemas, where most arguments need coercion", () => {
    const flat = fc.dictionary(
      name,
      fc.record(
        {
          type: fc.oneof(typeName, fc.uniqueArray(typeName, { minLength: 1, maxLength: 2 })),
          items: fc.record({ type: typeName }),
          default: values(plain).literal,
          minimum: fc.constantFrom(0, 1),
          maxLength: fc.constantFrom(1, 2),
        },
        { requiredKeys: ["type"] },
      ),
      { minKeys: 1, maxKeys: 3 },
    );
    let valid = 0;
    fc.assert(
      fc.property(flat, fc.uniqueArray(name, { maxLength: 2 }), fc.boolean(), args(plain), (properties, required, closed, input) => {
        const s = { type: "object", properties, required, additionalProperties: !closed };
        if (runBoth(s, input) === "valid") valid++;
      }),
      { numRuns: RUNS },
    );
    expect(valid).toBeGreaterThan(RUNS / 25);
  }, TIMEOUT);
});


describe("T2: the interpreting validator agrees with ajv where random schemas seldom go", () => {
  it("T2: a one-element array against several types: only number with integer can take the element as it is", () => {
    const cases: Array<[unknown, unknown]> = [
      [["number", "integer"], [1.5]],
      [["integer", "number"], [1.5]],
      [["number", "integer"], [5]],
      [["integer", "string"], [5]],
      [["string", "number"], ["1"]],
      [["boolean", "null"], [0]],
      [["integer"], ["2"]],
    ];
    for (const [type, value] of cases) expect(runBoth(under({ type }), { a: value }), JSON.stringify([type, value])).not.toBe("skipped");
  });

  it("T2: a default is written as ajv's generated literal writes it: a fresh copy, -0 as 0", () => {
    const schema = { type: "object", properties: { a: { default: -0 }, b: { items: [{ default: -0 }, { default: { c: [1] } }] } } };
    expect(runBoth(schema, { b: [] })).toBe("valid");
    const data: Record<string, unknown> = { b: [] };
    interpretingValidator.compile(schema, "t")(data);
    expect(Object.is(data.a, 0)).toBe(true);
    expect((data.b as unknown[])[1]).not.toBe((schema.properties.b.items[1] as { default: unknown }).default);
  });

  it("T2: tuple defaults apply outside anyOf, not inside it", () => {
    const tuple = { type: "array", items: [{ type: "number" }, { default: 5 }] };
    expect(runBoth(under(tuple), { a: [1] })).toBe("valid");
    expect(runBoth(under({ anyOf: [tuple] }), { a: [1] })).toBe("valid");
    const filled = { a: [1] };
    interpretingValidator.compile(under({ anyOf: [tuple] }), "t")(filled);
    expect(filled).toEqual({ a: [1] });
  });

  it("T2: a value at the root is coerced too (a JavaScript caller may pass one)", () => {
    for (const [schema, value] of [[{ type: "number" }, "1"], [{ type: "boolean" }, "true"], [{ type: "string" }, 5]] as const) {
      expect(runBoth(schema, value as unknown as Record<string, unknown>)).toBe("valid");
    }
  });

  it("T2: every keyword ajv has a rule for makes its schema count: an anyOf with it is evaluated", () => {
    // ajv skips a schema with no keyword it has a rule for as always valid: an `anyOf` with such a
    // branch is not evaluated at all, so the first branch would not coerce "1" to 1.
    const samples: Record<string, unknown> = {
      $comment: "c", $ref: "#/$defs/n", maximum: 10, minimum: 0, exclusiveMaximum: 10, exclusiveMinimum: 0, multipleOf: 1,
      maxLength: 5, minLength: 0, pattern: ".*", maxProperties: 5, minProperties: 0, required: [], maxItems: 5, minItems: 0,
      uniqueItems: false, type: "string", const: "1", enum: ["1"], not: { type: "null" }, anyOf: [true], oneOf: [true], allOf: [true],
      if: true, then: true, else: true, propertyNames: true, additionalProperties: true, dependencies: {}, properties: {},
      patternProperties: {}, additionalItems: true, items: true, contains: true, format: "date",
    };
    for (const [keyword, value] of Object.entries(samples)) {
      const s = { type: "object", properties: { a: { anyOf: [{ type: "number" }, { [keyword]: value }] } }, $defs: { n: { type: "number" } } };
      expect(runBoth(s, { a: "1" }), keyword).toBe("valid");
      const forInterpreter = { a: "1" };
      interpretingValidator.compile(s, "t")(forInterpreter);
      expect(forInterpreter, keyword).toEqual({ a: 1 });
    }
    // `nullable` needs a `type` beside it.
    const nullable = { type: "object", properties: { a: { anyOf: [{ type: "number" }, { type: "string", nullable: true }] } } };
    expect(runBoth(nullable, { a: "1" })).toBe("valid");
    // A schema of annotations only is always valid: the anyOf is skipped, "1" stays.
    const annotations = { type: "object", properties: { a: { anyOf: [{ type: "number" }, { title: "t", description: "d", default: 1, examples: [] }] } } };
    expect(runBoth(annotations, { a: "1" })).toBe("valid");
  });

  it("T2: a reference inlined or not: a target with a $ref anywhere inside it (an array, a nested object) is compiled apart", () => {
    const defs = {
      plain: { type: "number" },
      inArray: { anyOf: [{ $ref: "#/$defs/plain" }] },
      nested: { properties: { x: { $ref: "#/$defs/plain" } }, type: ["number", "object"] },
      withNull: { type: "number", default: null },
    };
    // The caller's own keywords after the $ref see the coerced value only when ajv inlined the target.
    const targets = [
      { type: "number", not: { $ref: "#/$defs/text" } },
      { type: "number", anyOf: [{ $ref: "#/$defs/plain" }] },
      { type: "number", maximum: 9 },
      { type: "number", $dynamicAnchor: "n" },
      { type: "number", $recursiveAnchor: true },
      // Newer-draft references the interpreter refuses where it runs them, but not in a definition nothing uses.
      { type: "number", definitions: { x: { $dynamicRef: "#n" } } },
      { type: "number", definitions: { x: { $recursiveRef: "#" } } },
    ];
    for (const target of targets) {
      const s = { type: "object", properties: { a: { $ref: "#/$defs/target", enum: [7] } }, $defs: { target, text: { type: "string" }, plain: { type: "number" } } };
      expect(runBoth(s, { a: "7" }), JSON.stringify(target)).not.toBe("skipped");
    }
    for (const name of Object.keys(defs)) {
      for (const value of ["1", ["2"], { x: "3" }]) {
        const s = { type: "object", properties: { a: { allOf: [{ $ref: `#/$defs/${name}` }], type: ["number", "object", "string"] } }, $defs: defs };
        expect(runBoth(s, { a: value }), `${name} ${JSON.stringify(value)}`).not.toBe("skipped");
      }
    }
  });

  it("T2: references: chains of $ref-only schemas, the root, booleans, escaped pointers, and what both refuse", () => {
    const $defs = {
      a: { $ref: "#/$defs/b" },
      b: { $ref: "#/$defs/c", title: "only an annotation" },
      c: { type: "number" },
      ruled: { $ref: "#/$defs/c", minimum: 0 },
      yes: true,
      no: false,
      "x/y": { type: "number" },
      "x~y": { type: "integer" },
      "x y": { type: "boolean" },
      nested: { inner: { type: "number" } },
      self: { $ref: "#/$defs/self" },
      bad: { $ref: 5 },
    };
    const refs = ["#/$defs/a", "#/$defs/b", "#/$defs/ruled", "#/$defs/yes", "#/$defs/no", "#/$defs/x~1y", "#/$defs/x~0y", "#/$defs/x%20y", "#/$defs/nested/inner", "#", "#/"];
    for (const ref of refs) {
      for (const value of ["7", 7, true, { a: "1" }]) {
        const s = { type: "object", properties: { a: { $ref: ref, enum: [7, true, "7"] } }, $defs };
        expect(runBoth(s, { a: value }), `${ref} ${JSON.stringify(value)}`).not.toBe("skipped");
      }
    }
    for (const ref of ["#/$defs/self", "#/$defs/bad", "#/$defs/missing", "#/$defs/%E0%A4%A", "#/$defs/c/type/x"]) {
      expect(runBoth({ type: "object", properties: { a: { $ref: ref } }, $defs }, { a: 1 }), ref).toBe("refused");
    }
  });

  it("T2: inside not, a failing keyword stops the schema before its later groups, which then coerce nothing", () => {
    const cases: Array<[object, Record<string, unknown>]> = [
      [under({ not: { enum: [0], items: { type: "number" } } }), { a: ["1"] }],
      [under({ not: { const: 0, properties: { b: { type: "number" } } } }), { a: { b: "1" } }],
      [under({ not: { required: ["x"], properties: { b: { type: "number" } } } }), { a: { b: "1" } }],
      [under({ not: { minItems: 3, items: { type: "number" } } }), { a: ["1"] }],
      [under({ not: { maxLength: 0, type: "string" } }), { a: "xy" }],
      [under({ not: { minimum: 5, type: "number" } }), { a: "1" }],
      // The first keyword of a group passes, the second fails: the schema fails, so `not` passes.
      [under({ not: { minimum: 0, maximum: 5 } }), { a: 7 }],
      [under({ not: { minLength: 0, maxLength: 1 } }), { a: "xyz" }],
      [under({ not: { const: 7, enum: [8] } }), { a: 7 }],
      [under({ not: { required: ["b"], maxProperties: 1 } }), { a: { b: 1, c: 2 } }],
      [under({ if: { required: ["x"], properties: { b: { type: "number" } } }, then: true }), { a: { b: "1" } }],
    ];
    for (const [s, input] of cases) expect(runBoth(s, input), JSON.stringify(s)).not.toBe("skipped");
  });

  it("T2: array and object keywords on fixed schemas and inputs, inside not and outside", () => {
    const arrays: object[] = [
      { items: [{ type: "number" }, { type: "string" }], additionalItems: false },
      { items: [{ type: "number" }], additionalItems: { type: "boolean" } },
      { items: [{ type: "number" }], additionalItems: true },
      { items: [{ type: "number", default: 0 }, { type: "string", default: "d" }] },
      { items: {} },
      { items: { title: "annotations only" } },
      { items: { type: "integer" }, minItems: 1, maxItems: 2 },
      { additionalItems: false },
      { contains: { type: "number", minimum: 2 } },
      { uniqueItems: true },
      { uniqueItems: false, maxItems: 1 },
    ];
    const arrayInputs: unknown[] = [[], ["1", "x"], [1, "x", true], ["1", "2", "2"], [{ a: 1 }, { a: 1 }], [3], "5"];
    const objects: object[] = [
      { required: ["a", "b"] },
      { propertyNames: { maxLength: 1 } },
      { propertyNames: { title: "annotations only" } },
      { patternProperties: { "^n": { type: "number" }, "^s": {} }, additionalProperties: false },
      { properties: { p: { type: "number" } }, patternProperties: { "^q": { type: "integer" } }, additionalProperties: { type: "string" } },
      { additionalProperties: { title: "annotations only" } },
      { dependencies: { a: ["b"], b: { required: ["c"] }, c: [] } },
      { properties: { p: { default: { d: 1 } }, q: { type: "number", default: "1" } } },
      { minProperties: 1, maxProperties: 2 },
    ];
    const objectInputs: Array<Record<string, unknown>> = [{}, { a: 1 }, { a: 1, b: 2 }, { b: 1, c: 2 }, { n1: "2", s: 1, x: "y" }, { p: "3", q7: "4", r: 5 }, { ab: 1 }];
    for (const schema of arrays) {
      for (const value of arrayInputs) {
        for (const wrapped of [schema, { not: schema }, { anyOf: [schema, { type: "null" }] }]) {
          expect(runBoth(under({ type: "array", ...wrapped }), { a: structuredClone(value) }), JSON.stringify([wrapped, value])).not.toBe("skipped");
        }
      }
    }
    for (const schema of objects) {
      for (const value of objectInputs) {
        for (const wrapped of [schema, { not: schema }, { oneOf: [schema, { type: "null" }] }]) {
          expect(runBoth(under({ type: "object", ...wrapped }), { a: structuredClone(value) }), JSON.stringify([wrapped, value])).not.toBe("skipped");
        }
      }
    }
  });

  it("T2: schemas both refuse when they are compiled", () => {
    const refused = [
      under({ pattern: 5 }),
      under({ maxLength: 1.5 }),
      under({ maxLength: "2" }),
      under({ required: [1] }),
      under({ required: ["b", "b"] }),
      under({ uniqueItems: 1 }),
      under({ items: [] }),
      under({ properties: [] }),
      under({ patternProperties: 5 }),
      under({ patternProperties: { "[": { type: "number" } } }),
      under({ patternProperties: { "[": {} }, additionalProperties: false }),
      under({ dependencies: { b: 5 } }),
      under({ dependencies: { b: [1] } }),
      under({ contains: 5 }),
      under({ propertyNames: 5 }),
      { ...under(true), $schema: "http://json-schema.org/draft-04/schema#" },
    ];
    for (const s of refused) expect(runBoth(s, { a: 1 }), JSON.stringify(s)).toBe("refused");
    const accepted = [
      { ...under(true), $schema: "http://json-schema.org/draft-07/schema#" },
      { ...under(true), $schema: "http://json-schema.org/draft-07/schema" },
      { ...under({ $ref: "#/$defs/n" }), $id: "https://example.com/tool", $defs: { n: { type: "number" } } },
    ];
    for (const s of accepted) expect(runBoth(s, { a: 1 }), JSON.stringify(s)).toBe("valid");
    // ajv compiles a pattern only where it checks with it.
    for (const s of [under({ patternProperties: { "[": {} } }), under({ patternProperties: { "[": true }, additionalProperties: true })]) {
      expect(runBoth(s, { a: { b: 1 } }), JSON.stringify(s)).toBe("valid");
    }
  });
});

