/**
 * Tool-argument validation (SPEC T2, T3) with the default validator, and ajv's one compiled
 * validator per schema: arguments cloned, common model mistakes coerced, precise error messages.
 */
import { Ajv } from "ajv";
import { afterEach, describe, expect, it, vi } from "vitest";
import { validateToolArguments } from "../../src/tools/validation.js";
import { ajvValidator } from "../../src/tools/validators/ajv-validator.js";
import type { ArgumentValidator } from "../../src/model/argument-validator.js";

const args = (value: unknown) => ({ arguments: value as Record<string, unknown> });

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected a validation error");
}

describe("T2: coercion of what models commonly send", () => {
  it("T2: numeric strings become numbers and integers; boolean strings become booleans", () => {
    const schema = { type: "object", properties: { n: { type: "number" }, i: { type: "integer" }, b: { type: "boolean" } } };
    expect(validateToolArguments("t", schema, args({ n: "3.5", i: "7", b: "true" }))).toEqual({ n: 3.5, i: 7, b: true });
  });

  it("T2: a scalar where an array is expected becomes a one-element array", () => {
    const schema = { type: "object", properties: { paths: { type: "array", items: { type: "string" } }, ids: { type: "array", items: { type: "number" } } } };
    expect(validateToolArguments("t", schema, args({ paths: "a.txt", ids: "4" }))).toEqual({ paths: ["a.txt"], ids: [4] });
  });

  it("T2: null for an omitted optional property is dropped, also in nested objects and array items", () => {
    const schema = {
      type: "object",
      properties: {
        path: { type: "string" },
        limit: { type: "number" },
        options: { type: "object", properties: { depth: { type: "integer" } } },
        edits: { type: "array", items: { type: "object", properties: { old: { type: "string" }, note: { type: "string" } }, required: ["old"] } },
      },
      required: ["path"],
    };
    expect(validateToolArguments("t", schema, args({ path: "x", limit: null, options: { depth: null }, edits: [{ old: "a", note: null }] }))).toEqual({
      path: "x",
      options: {},
      edits: [{ old: "a" }],
    });
  });

  it("T2: null is kept where the schema allows it", () => {
    const schema = {
      type: "object",
      properties: { a: { type: ["string", "null"] }, b: { anyOf: [{ type: "string" }, { type: "null" }] }, c: { type: "string", nullable: true }, d: {} },
    };
    expect(validateToolArguments("t", schema, args({ a: null, b: null, c: null, d: null }))).toEqual({ a: null, b: null, c: null, d: null });
  });

  it("T2: a null allowed by an anyOf is not coerced by an earlier branch (not \"\" nor 0), also next to a coerced value", () => {
    // TypeBox's Type.Union([Type.String(), Type.Null()]) compiles to this shape
    const schema = {
      type: "object",
      properties: {
        s: { anyOf: [{ type: "string" }, { type: "null" }] },
        n: { anyOf: [{ type: "number" }, { type: "null" }] },
        count: { type: "number" },
        list: { type: "array", items: { anyOf: [{ type: "integer" }, { type: "null" }] } },
      },
    };
    expect(validateToolArguments("t", schema, args({ s: null, n: null, count: "2", list: [null, "3"] }))).toEqual({ s: null, n: null, count: 2, list: [null, 3] });
    expect(validateToolArguments("t", schema, args({ s: "x", n: "5" }))).toEqual({ s: "x", n: 5 });
  });

  it("T2: defaults from the schema are applied", () => {
    const schema = { type: "object", properties: { encoding: { type: "string", default: "utf8" } } };
    expect(validateToolArguments("t", schema, args({}))).toEqual({ encoding: "utf8" });
  });

  it("T2: the arguments are cloned: coercion never changes the tool call", () => {
    const schema = { type: "object", properties: { n: { type: "number" }, tags: { type: "array", items: { type: "string" } }, o: { type: "string" } } };
    const raw = { n: "1", tags: "x", o: null };
    const validated = validateToolArguments("t", schema, args(raw));
    expect(validated).toEqual({ n: 1, tags: ["x"] });
    expect(raw).toEqual({ n: "1", tags: "x", o: null });
    expect(validated).not.toBe(raw);
  });
});

describe("T2: one compiled validator per schema", () => {
  afterEach(() => vi.restoreAllMocks());

  it("T2: ajvValidator compiles the same schema object once; an equal new object reuses its validator, a different one is compiled", () => {
    // The soak found: ajv keeps whatever it compiles, so recompiling equal schemas (tools built per
    // Agent) grew the heap ~6 KB per Agent for good. Equal content now shares one validator.
    const compile = vi.spyOn(Ajv.prototype, "compile");
    // Contents no other test uses: the content cache is module-wide.
    const schema = { type: "object", description: "T2 cache", properties: { q: { type: "string" } } };
    validateToolArguments("t", schema, args({ q: "a" }), ajvValidator);
    validateToolArguments("t", schema, args({ q: "b" }), ajvValidator);
    errorOf(() => validateToolArguments("t", schema, args({ q: {} }), ajvValidator));
    expect(compile).toHaveBeenCalledTimes(1);
    validateToolArguments("t", { ...schema }, args({ q: "c" }), ajvValidator);
    expect(compile).toHaveBeenCalledTimes(1);
    errorOf(() => validateToolArguments("t", { type: "object", description: "T2 cache", properties: { q: { type: "number" } } }, args({ q: "c" }), ajvValidator));
    expect(compile).toHaveBeenCalledTimes(2);
  });
});

describe("T3: invalid arguments get a message the model can act on", () => {
  it("T3: each failing path on its own line, then the received arguments", () => {
    const schema = {
      type: "object",
      properties: {
        path: { type: "string" },
        mode: { enum: ["r", "w"] },
        range: { type: "object", properties: { start: { type: "integer", minimum: 0 } }, required: ["start"] },
        "a/b": { type: "number" },
      },
      required: ["path"],
      additionalProperties: false,
    };
    const received = { mode: "x", range: { start: -1 }, "a/b": "NaN?", stray: 1 };
    const message = errorOf(() => validateToolArguments("edit", schema, args(received)));
    const [head, ...rest] = message.split("\n");
    expect(head).toBe('Invalid arguments for tool "edit":');
    const lines = rest.slice(0, rest.indexOf(""));
    expect(lines.sort()).toEqual(
      ["  - path: is required", "  - stray: is not allowed", '  - mode: must be one of ["r","w"]', "  - range.start: must be >= 0", "  - a/b: must be number"].sort(),
    );
    expect(message).toContain(`Received arguments:\n${JSON.stringify(received, null, 2)}`);
  });

  it("T3: a wrong type at the root or non-object arguments", () => {
    expect(errorOf(() => validateToolArguments("t", { type: "object" }, args([1, 2])))).toBe('Invalid arguments for tool "t": expected a JSON object, received [\n  1,\n  2\n]');
    expect(errorOf(() => validateToolArguments("t", { type: "object" }, args(null)))).toBe('Invalid arguments for tool "t": expected a JSON object, received null');
    expect(errorOf(() => validateToolArguments("t", { type: "object" }, args("{oops")))).toBe('Invalid arguments for tool "t": expected a JSON object, received "{oops"');
  });

  it("T3: an argumentsError from the provider wins over validation", () => {
    expect(errorOf(() => validateToolArguments("t", { type: "object" }, { arguments: {}, argumentsError: "Unterminated string in JSON at position 12" }))).toBe(
      'Invalid arguments for tool "t": Unterminated string in JSON at position 12',
    );
  });

  it("T3: huge received arguments are cut to a readable size", () => {
    const schema = { type: "object", properties: { n: { type: "number" } } };
    const message = errorOf(() => validateToolArguments("t", schema, args({ n: "x", blob: "y".repeat(5000) })));
    expect(message.length).toBeLessThan(2600);
    expect(message).toMatch(/… \(\d+ more characters\)$/);
  });

  it("T3: received arguments are cut after exactly 2 000 characters, the rest counted", () => {
    const schema = { type: "object", properties: { n: { type: "number" } } };
    const blob = (length: number) => "y".repeat(length - JSON.stringify({ n: "x", blob: "" }, null, 2).length);
    const full = errorOf(() => validateToolArguments("t", schema, args({ n: "x", blob: blob(2000) })));
    expect(full.endsWith(`"\n}`)).toBe(true);
    const cut = errorOf(() => validateToolArguments("t", schema, args({ n: "x", blob: blob(2003) })));
    expect(cut.endsWith("\n… (3 more characters)")).toBe(true);
  });

  it("T3: arguments JSON cannot write are shown as text", () => {
    expect(errorOf(() => validateToolArguments("t", { type: "object" }, args(10n)))).toBe('Invalid arguments for tool "t": expected a JSON object, received 10');
  });

  it("T3: an empty list of issues means valid", () => {
    const none: ArgumentValidator = { name: "none", compile: () => () => [] };
    expect(validateToolArguments("t", { type: "object" }, args({ a: 1 }), none)).toEqual({ a: 1 });
  });

  it("T3: duplicate error lines are reported once", () => {
    const schema = { type: "object", properties: { v: { anyOf: [{ type: "string" }, { type: "number" }] } } };
    const message = errorOf(() => validateToolArguments("t", schema, args({ v: {} })));
    const lines = message.split("\n").filter((l) => l.startsWith("  - v:"));
    expect(new Set(lines).size).toBe(lines.length);
  });
});

/** A validator that accepts everything after `change` did what it likes with the arguments. */
function permissive(change: (args: Record<string, unknown>) => void = () => {}): ArgumentValidator {
  return {
    name: "permissive",
    compile: () => (args) => {
      change(args);
      return undefined;
    },
  };
}

describe("T2: which nulls are dropped and restored", () => {
  it("T2: null for a required property is left to the validator, not dropped as omitted", () => {
    const schema = { type: "object", properties: { range: { type: "object" } }, required: ["range"] };
    expect(errorOf(() => validateToolArguments("t", schema, args({ range: null })))).toContain("  - range: must be object\n");
  });

  it("T2: an anyOf or oneOf without a null branch forbids null: the property is dropped", () => {
    const schema = {
      type: "object",
      properties: { a: { anyOf: [{ type: "string" }, { type: "number" }] }, o: { oneOf: [{ type: "string" }, { type: "boolean" }] } },
    };
    expect(validateToolArguments("t", schema, args({ a: null, o: null }))).toEqual({});
  });

  it("T2: boolean subschemas: `true` keeps a null and is walked into safely, `false` drops an optional null", () => {
    const schema = { type: "object", properties: { any: true, meta: true, never: false } };
    expect(validateToolArguments("t", schema, args({ any: null, meta: { note: null }, never: null }))).toEqual({ any: null, meta: { note: null } });
    expect(validateToolArguments("t", schema, args({ meta: [{ note: null }] }))).toEqual({ meta: [{ note: null }] });
    const required = { ...schema, required: ["never"] };
    expect(errorOf(() => validateToolArguments("t", required, args({ never: null })))).toContain("  - never: boolean schema is false\n");
  });

  it("T2: a null, absent or scalar value under an object schema is handed on as it is", () => {
    const schema = {
      type: "object",
      properties: { box: { type: ["object", "null"], properties: { label: { type: "string" } } }, list: { type: "array", items: { type: "object", properties: { n: { type: "number" } } } } },
    };
    expect(validateToolArguments("t", schema, args({ box: null }))).toEqual({ box: null });
    expect(validateToolArguments("t", schema, args({ box: undefined }), permissive())).toStrictEqual({ box: undefined });
    expect(validateToolArguments("t", schema, args({ list: [null, 3, { n: null }] }), permissive())).toEqual({ list: [null, 3, {}] });
    expect(errorOf(() => validateToolArguments("t", schema, args({ box: 4 })))).toContain("  - box: must be object,null\n");
  });

  it("T2: only the schema's own properties count (an inherited property schema is not walked)", () => {
    const properties = Object.assign(Object.create({ note: { type: "string" } }) as object, { city: { type: "string" } });
    const schema = { type: "object", properties };
    expect(validateToolArguments("t", schema, args({ city: "Oslo", note: null }))).toEqual({ city: "Oslo", note: null });
    const inheritedNullable = Object.assign(Object.create({ note: { type: ["string", "null"] } }) as object, { city: { type: "string" } });
    const filled = validateToolArguments("t", { type: "object", properties: inheritedNullable }, args({ note: null }), permissive((a) => (a.note = "filled")));
    expect(filled).toEqual({ note: "filled" });
  });

  it("T2: a schema naming __proto__ (as JSON can) never reaches Object.prototype", () => {
    const before = Object.getOwnPropertyDescriptor(Object.prototype, "__proto__");
    try {
      const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"object","properties":{"__proto__":{"type":"string"}}}}}') as object;
      const validated = validateToolArguments("t", schema, args({}));
      expect(validated).toEqual({});
      expect(Object.getPrototypeOf(validated)).toBe(Object.prototype);
      expect(Object.getOwnPropertyDescriptor(Object.prototype, "__proto__")).toEqual(before);
      const nullable = JSON.parse('{"type":"object","properties":{"__proto__":{"type":["object","null"],"properties":{"__proto__":{"type":["string","null"]}}}}}') as object;
      const restored = validateToolArguments("t", nullable, args({}), permissive((a) => Object.defineProperty(a, "__proto__", { value: JSON.parse('{"__proto__":"v"}'), enumerable: true, writable: true, configurable: true })));
      // The arguments never had a `__proto__` of their own: nothing is restored into it from Object.prototype's.
      expect(JSON.stringify(restored)).toBe('{"__proto__":{"__proto__":"v"}}');
      expect(Object.getOwnPropertyDescriptor(Object.prototype, "__proto__")).toEqual(before);
    } finally {
      if (before && !Object.getOwnPropertyDescriptor(Object.prototype, "__proto__")) Object.defineProperty(Object.prototype, "__proto__", before);
    }
  });

  it("T2: what a validator itself made of a value stands: the restore walk leaves it and does not fail on it", () => {
    const schema = {
      type: "object",
      properties: {
        box: { type: "object", properties: { label: { type: ["string", "null"] } } },
        tags: { type: "array", items: { type: ["string", "null"] } },
        names: { type: "array", items: { type: "string" } },
        note: { type: ["string", "null"] },
      },
    };
    const cases: Array<[Record<string, unknown>, (a: Record<string, unknown>) => void, Record<string, unknown>]> = [
      [{ box: { label: null } }, (a) => (a.box = null), { box: null }],
      [{ box: { label: null } }, (a) => (a.box = undefined), { box: undefined }],
      [{ box: { label: null } }, (a) => (a.box = "text"), { box: "text" }],
      [{ box: undefined }, (a) => (a.box = { label: "x" }), { box: { label: "x" } }],
      [{ tags: { 0: null } }, (a) => (a.tags = ["x"]), { tags: ["x"] }],
      [{ box: null }, (a) => (a.box = { label: "x" }), { box: { label: "x" } }],
      [{ tags: [null, "b"] }, (a) => (a.tags = ["", "b", "c"]), { tags: [null, "b", "c"] }],
      [{ tags: [null, "b", null] }, (a) => (a.tags = ["", "b"]), { tags: [null, "b"] }],
      [{ names: [null] }, (a) => (a.names = [""]), { names: [""] }],
      [{ note: null }, (a) => delete a.note, {}],
    ];
    for (const [raw, change, expected] of cases) expect(validateToolArguments("t", schema, args(raw), permissive(change))).toStrictEqual(expected);
  });

  it("T2: an array without an items schema gets no null back: a coercion from `contains` stands", () => {
    const schema = { type: "object", properties: { tags: { type: "array", contains: { type: "string" } }, any: { type: "array", items: {} } } };
    expect(validateToolArguments("t", schema, args({ tags: [null] }))).toStrictEqual({ tags: [""] });
    expect(validateToolArguments("t", schema, args({ tags: [null, "a"], any: [null] }), permissive((a) => ((a.tags = ["", "a"]), (a.any = ["x"]))))).toStrictEqual({ tags: ["", "a"], any: [null] });
  });

  it("T2: a null under a $ref to a nullable union comes back as sent", () => {
    const schema = { type: "object", definitions: { N: { anyOf: [{ type: "string" }, { type: "null" }] } }, properties: { v: { $ref: "#/definitions/N" } } };
    expect(validateToolArguments("t", schema, args({ v: null }))).toStrictEqual({ v: null });
  });

  it("T2: an anyOf branch that names no type allows null: kept for the validator, and put back after it", () => {
    const schema = { type: "object", properties: { v: { anyOf: [{ type: "string" }, {}] } } };
    expect(validateToolArguments("t", schema, args({ v: null }))).toStrictEqual({ v: null });
    expect(validateToolArguments("t", schema, args({ v: null }), permissive((a) => (a.v = "")))).toStrictEqual({ v: null });
  });

  it("T2: tuple elements (items as an array of schemas) are left as the validator made them", () => {
    const schema = { type: "object", properties: { pair: { type: "array", items: [{ type: "string" }, { type: ["number", "null"] }] } } };
    expect(validateToolArguments("t", schema, args({ pair: [null, null] }), permissive((a) => (a.pair = ["", 0])))).toEqual({ pair: ["", 0] });
  });

  it("T2: a subschema no validator would accept (null) neither fails nor changes the walks: it is left to the validator", () => {
    expect(validateToolArguments("t", { type: "object", properties: { a: null, b: null } }, args({ a: null, b: { c: null } }), permissive())).toEqual({ a: null, b: { c: null } });
  });

});
