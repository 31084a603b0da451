/**
 * Type checks and ajv's `coerceTypes: "array"` coercion.
 *
 * @module
 */
import { isObject } from "./json-values.js";
import type { Container, Issues, JsonType, Key, SchemaNode } from "./schema-node.js";

/** Whether `value` is of JSON type `type`. */
export function matchesType(type: JsonType, value: unknown): boolean {
  switch (type) {
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    case "object":
      return isObject(value);
    case "integer":
      return typeof value === "number" && !(value % 1) && !Number.isNaN(value);
    default:
      return typeof value === type;
  }
}

/** Whether `value` is of any of `types`. */
export function matchesAny(types: readonly JsonType[], value: unknown): boolean {
  for (const type of types) if (matchesType(type, value)) return true;
  return false;
}

/**
 * ajv's test of an unwrapped one-element array against the schema's types. With several types
 * its generated condition requires all of them at once (so only a single type, or `number` with
 * `integer`, can ever match) and the result decides whether scalar coercion runs next. (Types
 * with `array` never get here: the array matched them.)
 */
function unwrappedMatches(types: readonly JsonType[], value: unknown): boolean {
  const number = types.includes("number");
  for (const type of types) if (!(number && type === "integer") && !matchesType(type, value)) return false;
  return true;
}

/** The value `target` coerces `value` to, or `undefined` when ajv has no rule for the pair. */
function coerceTo(target: JsonType, value: unknown): unknown {
  const kind = typeof value;
  switch (target) {
    case "string":
      if (kind === "number" || kind === "boolean") return `${value as number | boolean}`;
      return value === null ? "" : undefined;
    case "number":
    case "integer": {
      const numeric = kind === "string" && value !== "" && !Number.isNaN(Number(value));
      const whole = target === "number" || !(Number(value) % 1);
      return kind === "boolean" || value === null || (numeric && whole) ? Number(value) : undefined;
    }
    case "boolean":
      if (value === "false" || value === 0 || value === null) return false;
      return value === "true" || value === 1 ? true : undefined;
    case "null":
      return value === "" || value === 0 || value === false ? null : undefined;
    case "array":
      return kind === "string" || kind === "number" || kind === "boolean" || value === null ? [value] : undefined;
  }
  // "object": ajv has no rule that makes an object.
  return undefined;
}

/**
 * ajv's `coerceTypes: "array"`: a one-element array is unwrapped first (and stays unwrapped for
 * the rest of this schema even when no coercion then applies), then the first target type in
 * the schema's order that has a rule for the value wins.
 */
export function coerce(node: SchemaNode, data: unknown, parent: Container | undefined, key: Key, path: string, issues: Issues): unknown {
  let value = data;
  let coerced: unknown = undefined;
  if (node.coerceTo.length > 0) {
    if (Array.isArray(value) && value.length === 1) {
      value = value[0];
      if (unwrappedMatches(node.types, value)) coerced = value;
    }
    if (coerced === undefined) {
      for (const target of node.coerceTo) {
        coerced = coerceTo(target, value);
        if (coerced !== undefined) break;
      }
    }
  }
  if (coerced === undefined) {
    issues.push({ path, message: `must be ${node.typeText}` });
    return value;
  }
  if (parent !== undefined) (parent as Record<Key, unknown>)[key] = coerced;
  return coerced;
}
