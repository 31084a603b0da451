/**
 * The three validators (ajv, precompiled ajv standalone code, interpreting) read only an
 * object's own properties: a property named like a member of `Object.prototype` (`constructor`,
 * `toString`, `__proto__`, `hasOwnProperty`, `valueOf`) is present when the arguments have it,
 * absent when they do not, and all three agree on which arguments are valid and on the data the
 * tool gets. Arguments parsed from JSON with a `"__proto__"` key hold it as an own property.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { ajvValidator } from "../../../src/tools/validators/ajv-validator.js";
import type { ArgumentValidator } from "../../../src/model/argument-validator.js";
import { interpretingValidator } from "../../../src/tools/validators/interpreting-validator.js";
import { precompiledValidator, type StandaloneValidate } from "../../../src/tools/validators/precompiled-validator.js";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
interface Script {
  precompileValidators(schemas: Record<string, object>): string;
}
const { precompileValidators } = (await import(new URL("../../../scripts/precompile-validators.mjs", import.meta.url).href)) as Script;

const dir = mkdtempSync(join(tmpdir(), "rxagent-own-properties-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let generated = 0;
/** The precompiled validator of `schema` (as tool "t"): ajv standalone code written by the build script, imported. */
async function precompiled(schema: object): Promise<ArgumentValidator> {
  const file = join(dir, `v${generated++}.js`);
  writeFileSync(file, precompileValidators({ t: schema }));
  const { validators } = (await import(pathToFileURL(file).href)) as { validators: Record<string, StandaloneValidate> };
  return precompiledValidator(validators);
}

/** An object with these own properties, `__proto__` included (as `JSON.parse` makes it). */
const own = (entries: Array<[string, unknown]>): Record<string, unknown> => Object.fromEntries(entries);
/** A copy that keeps own `__proto__` keys own. */
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

interface Outcome {
  valid: boolean;
  data: string;
}
/** What each validator makes of a copy of `data`: valid or not, and the data as the tool would get it. */
async function outcomes(schema: object, data: Record<string, unknown>): Promise<Record<"ajv" | "precompiled" | "interpreting", Outcome>> {
  const run = (validator: ArgumentValidator): Outcome => {
    const args = copy(data);
    const issues = validator.compile(schema, "t")(args);
    return { valid: issues === undefined, data: JSON.stringify(args) };
  };
  return { ajv: run(ajvValidator), precompiled: run(await precompiled(schema)), interpreting: run(interpretingValidator) };
}

const NAMES = ["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf", "a"] as const;
const name = fc.constantFrom(...NAMES);
const value = fc.constantFrom<Json>("x", "3", 3, true, null, { k: 1 }, [1]);
const typeSchema = fc.constantFrom<Json>({ type: "string" }, { type: "number" }, { type: "object" }, {}, { type: "number", default: 7 }, { type: "string", default: "d" });

/** Object schemas that name the prototype's members in every keyword that looks properties up. */
const schema: fc.Arbitrary<Record<string, unknown>> = fc
  .record(
    {
      required: fc.uniqueArray(name, { maxLength: 3 }),
      properties: fc.uniqueArray(fc.tuple(name, typeSchema), { maxLength: 3, selector: ([key]) => key }),
      additionalProperties: fc.constantFrom<Json>(false, { type: "string" }, true),
      dependencies: fc.uniqueArray(fc.tuple(name, fc.oneof(fc.uniqueArray(name, { minLength: 1, maxLength: 2 }), name.map((n) => ({ required: [n] })))), { maxLength: 2, selector: ([key]) => key }),
      propertyNames: fc.constantFrom<Json>({ maxLength: 8 }, { enum: ["a", "constructor", "__proto__"] }, { not: { const: "valueOf" } }),
    },
    { requiredKeys: [] },
  )
  .map((parts) => {
    const result: Array<[string, unknown]> = [["type", "object"]];
    if (parts.required) result.push(["required", parts.required]);
    if (parts.properties) result.push(["properties", own(parts.properties)]);
    if (parts.additionalProperties !== undefined) result.push(["additionalProperties", parts.additionalProperties]);
    if (parts.dependencies) result.push(["dependencies", own(parts.dependencies)]);
    if (parts.propertyNames !== undefined) result.push(["propertyNames", parts.propertyNames]);
    return own(result);
  });
const data = fc.uniqueArray(fc.tuple(name, value), { maxLength: 4, selector: ([key]) => key }).map(own);

describe("validators: own properties only", () => {
  it("required ['constructor'] rejects {} and accepts an own constructor, in all three", async () => {
    const schema = { type: "object", required: ["constructor"] };
    const empty = await outcomes(schema, {});
    expect(empty).toEqual({ ajv: { valid: false, data: "{}" }, precompiled: { valid: false, data: "{}" }, interpreting: { valid: false, data: "{}" } });
    const present = await outcomes(schema, JSON.parse('{"constructor": 1}') as Record<string, unknown>);
    expect(Object.values(present).map((o) => o.valid)).toEqual([true, true, true]);
    // The issue names the property the same way everywhere.
    expect(ajvValidator.compile(schema, "t")({})).toEqual([{ path: "constructor", message: "is required" }]);
    expect(interpretingValidator.compile(schema, "t")({})).toEqual([{ path: "constructor", message: "is required" }]);
  });

  it("a typed property named constructor is not checked against the inherited Object function", async () => {
    const schema = { type: "object", properties: { constructor: { type: "string" }, toString: { type: "string" } } };
    const result = await outcomes(schema, {});
    expect(Object.values(result).map((o) => o.valid)).toEqual([true, true, true]);
    // An own one is checked, and coerced alike.
    const own3 = await outcomes(schema, JSON.parse('{"constructor": 3}') as Record<string, unknown>);
    expect(own3.ajv).toEqual({ valid: true, data: '{"constructor":"3"}' });
    expect(own3.precompiled).toEqual(own3.ajv);
    expect(own3.interpreting).toEqual(own3.ajv);
  });

  it("dependencies on valueOf / hasOwnProperty count only own properties", async () => {
    const schema = { type: "object", dependencies: { valueOf: ["b"], a: ["hasOwnProperty"] } };
    expect(Object.values(await outcomes(schema, {})).map((o) => o.valid)).toEqual([true, true, true]);
    expect(Object.values(await outcomes(schema, { a: 1 })).map((o) => o.valid)).toEqual([false, false, false]);
    expect(Object.values(await outcomes(schema, { a: 1, hasOwnProperty: 2 })).map((o) => o.valid)).toEqual([true, true, true]);
  });

  it("JSON with a __proto__ key: an own property, required and not allowed alike", async () => {
    const parsed = JSON.parse('{"__proto__": 1}') as Record<string, unknown>;
    const required = await outcomes({ type: "object", required: ["__proto__"] }, parsed);
    expect(Object.values(required).map((o) => o.valid)).toEqual([true, true, true]);
    const missing = await outcomes({ type: "object", required: ["__proto__"] }, {});
    expect(Object.values(missing).map((o) => o.valid)).toEqual([false, false, false]);
    const closed = await outcomes({ type: "object", properties: {}, additionalProperties: false }, parsed);
    expect(Object.values(closed).map((o) => o.valid)).toEqual([false, false, false]);
    // Nothing reached the prototype.
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
  });

  it("property: ajv, precompiled and interpreting agree on validity and on the data", async () => {
    await fc.assert(
      fc.asyncProperty(schema, data, async (s, d) => {
        const { ajv, precompiled: pre, interpreting } = await outcomes(s, d);
        expect(pre, "precompiled vs ajv").toEqual(ajv);
        expect(interpreting, "interpreting vs ajv").toEqual(ajv);
      }),
      { numRuns: 150 },
    );
  });
});
