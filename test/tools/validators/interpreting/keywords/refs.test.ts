/**
 * SPEC T2: the interpreting validator's `$ref`: what it resolves, what it refuses and with which
 * words, and the references ajv never resolves because it never compiles the schema they are in.
 */
import { describe, expect, it } from "vitest";
import { ajvOutcome, compileError, invalid, runBoth, under } from "../support.js";

const $defs = { c: { type: "number", minimum: 3 }, n: null, yes: true, list: [{ type: "string" }], self: { $ref: "#/$defs/self" } };
const refTo = (ref: string) => ({ ...under({ $ref: ref }), $defs });

describe("T2: interpreting validator, $ref", () => {
  it("T2: a reference that cannot be followed is refused, as by ajv, with what is wrong with it", () => {
    const refusals: Array<[string, string]> = [
      ["#/$defs/self", '"#/$defs/self" only refers to itself'],
      ["#/$defs/%E0%A4%A", '"#/$defs/%E0%A4%A" is not a valid URI fragment'],
      ["#/$defs/missing", '"#/$defs/missing" does not resolve to anything in the schema'],
      // Nothing inside null or a boolean.
      ["#/$defs/n/x", '"#/$defs/n/x" does not resolve to anything in the schema'],
      ["#/$defs/yes/x", '"#/$defs/yes/x" does not resolve to anything in the schema'],
    ];
    for (const [ref, problem] of refusals) {
      expect(compileError(refTo(ref)), ref).toBe(invalid("$ref", "#/properties/a", problem));
      expect(runBoth(refTo(ref), { a: 1 }), ref).toBe("refused");
    }
  });

  it("T2: a reference to a value that is not a schema is refused, where ajv would check nothing against it", () => {
    const notSchemas: Array<[string, string]> = [
      ["#/$defs/c/minimum", "3"],
      // A string is indexed as ajv indexes it: "number" has a length.
      ["#/$defs/c/type/length", "6"],
      ["#/$defs/c/type/0", '"n"'],
      ["#/$defs/list", '[{"type":"string"}]'],
      // ajv throws on this one.
      ["#/$defs/n", "null"],
    ];
    for (const [ref, value] of notSchemas) {
      expect(compileError(refTo(ref)), ref).toBe(`interpreting validator, tool "t": "$ref": "${ref}" at #/properties/a points at ${value}, which is not a schema. Point it at a schema (an object or a boolean).`);
    }
    // What ajv does with them: accepts "x" for a number property, or throws at compile.
    for (const [ref] of notSchemas) expect(ajvOutcome(refTo(ref), { a: "x" }), ref).toBe(ref === "#/$defs/n" ? "refused" : "valid");
  });

  it("T2: a reference outside the tool's schema, or to an anchor, is not supported, and the refusal says why", () => {
    expect(compileError(refTo("https://example.com/s.json"))).toMatch(
      /^interpreting validator, tool "t": "\$ref": "https:\/\/example\.com\/s\.json" at #\/properties\/a is not supported: only references inside the tool's own schema/,
    );
    expect(compileError(refTo("#node"))).toMatch(/^interpreting validator, tool "t": "\$ref": "#node" at #\/properties\/a is not supported: anchors \("#name"\) are not resolved/);
  });

  it("T2: a reference in a schema ajv only checks the shape of is never resolved, so it may point nowhere", () => {
    const schemas = [
      { ...under(true), definitions: { unused: { $ref: "#/nowhere" } } },
      under({ anyOf: [true, { $ref: "#/nowhere" }] }),
      under({ then: { $ref: "#/nowhere" } }),
    ];
    for (const schema of schemas) expect(runBoth(schema, { a: 1 }), JSON.stringify(schema)).toBe("valid");
    // Its shape is still checked.
    expect(compileError({ ...under(true), definitions: { unused: { $ref: 5 } } })).toBe(invalid("$ref", "#/definitions/unused", "must be a string"));
  });
});
