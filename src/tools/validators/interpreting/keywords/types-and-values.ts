/**
 * `type` (with `nullable`), which decides coercion, and `const` / `enum`, which compare values.
 *
 * @module
 */
import type { CompileContext } from "../compile-context.js";
import { equal } from "../json-values.js";
import type { JsonType, SchemaNode, TypedPart } from "../schema-node.js";

const JSON_TYPES: ReadonlySet<string> = new Set(["array", "boolean", "integer", "null", "number", "object", "string"]);

/** Reads `type` and `nullable`: the node's types, error text and coercion targets. */
export function compileType(ctx: CompileContext, schema: Record<string, unknown>, at: string): TypedPart {
  const type = schema.type;
  let types: JsonType[] = [];
  if (type !== undefined) {
    const list = Array.isArray(type) ? type : [type];
    const allowed = [...JSON_TYPES].join(", ");
    if (list.length === 0) ctx.invalid(at, "type", "must not be an empty array");
    for (const item of list) {
      if (!JSON_TYPES.has(item)) ctx.invalid(at, "type", `must be one of ${allowed}, or an array of them (got ${JSON.stringify(item)})`);
    }
    if (new Set(list).size !== list.length) ctx.invalid(at, "type", "must not repeat a type");
    types = [...(list as JsonType[])];
  }
  if ("nullable" in schema) {
    if (typeof schema.nullable !== "boolean") ctx.invalid(at, "nullable", "must be a boolean");
    if (types.includes("null")) {
      if (schema.nullable === false) ctx.invalid(at, "nullable", 'is false but "type" allows null');
    } else {
      if (types.length === 0) ctx.invalid(at, "nullable", 'cannot be used without "type"');
      if (schema.nullable) types.push("null");
    }
  }
  return { types, typeText: Array.isArray(type) ? type.join(",") : String(type), coerceTo: types.filter((t) => t !== "object") };
}

/** `const` and `enum`, in that order, as ajv runs them. */
export function compileValues(ctx: CompileContext, node: SchemaNode, schema: Record<string, unknown>, at: string): void {
  if ("const" in schema) {
    const expected = schema.const;
    node.untyped.push((data, _p, _k, path, _m, issues) => {
      if (!equal(data, expected)) issues.push({ path, message: "must be equal to constant" });
      return data;
    });
  }
  if ("enum" in schema) {
    const allowed = schema.enum;
    if (!Array.isArray(allowed) || allowed.length === 0) ctx.invalid(at, "enum", "must be a non-empty array");
    if (allowed.some((value, i) => allowed.findIndex((other) => equal(value, other)) !== i)) ctx.invalid(at, "enum", "must not repeat a value");
    const message = `must be one of ${JSON.stringify(allowed)}`;
    node.untyped.push((data, _p, _k, path, _m, issues) => {
      if (!allowed.some((value) => equal(data, value))) issues.push({ path, message });
      return data;
    });
  }
}
