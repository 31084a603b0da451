/**
 * Tool-argument validation (SPEC T2, T3): ajv, one compiled validator per schema, arguments
 * cloned, common model mistakes coerced, precise error messages.
 */
import { Ajv } from "ajv";
import { afterEach, describe, expect, it, vi } from "vitest";
import { validateToolArguments } from "../../src/tools/validation.js";

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

  it("T2: the same schema object is compiled once; an equal new object reuses its validator, a different one is compiled", () => {
    // The soak found: ajv keeps whatever it compiles, so recompiling equal schemas (tools built per
    // Agent) grew the heap ~6 KB per Agent for good. Equal content now shares one validator.
    const compile = vi.spyOn(Ajv.prototype, "compile");
    // Contents no other test uses: the content cache is module-wide.
    const schema = { type: "object", description: "T2 cache", properties: { q: { type: "string" } } };
    validateToolArguments("t", schema, args({ q: "a" }));
    validateToolArguments("t", schema, args({ q: "b" }));
    errorOf(() => validateToolArguments("t", schema, args({ q: {} })));
    expect(compile).toHaveBeenCalledTimes(1);
    validateToolArguments("t", { ...schema }, args({ q: "c" }));
    expect(compile).toHaveBeenCalledTimes(1);
    errorOf(() => validateToolArguments("t", { type: "object", description: "T2 cache", properties: { q: { type: "number" } } }, args({ q: "c" })));
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

  it("T3: duplicate error lines are reported once", () => {
    const schema = { type: "object", properties: { v: { anyOf: [{ type: "string" }, { type: "number" }] } } };
    const message = errorOf(() => validateToolArguments("t", schema, args({ v: {} })));
    const lines = message.split("\n").filter((l) => l.startsWith("  - v:"));
    expect(new Set(lines).size).toBe(lines.length);
  });
});
