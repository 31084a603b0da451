/**
 * Helpers on JSON values and on the two path notations: issue paths (`a.0.b`) and JSON pointers
 * into the schema (`#/properties/a`).
 *
 * @module
 */
import type { Key } from "./schema-node.js";

/** A plain object: not `null`, not an array. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An own property that is not `undefined`, as ajv's generated `!== undefined` test sees it. */
export function hasOwn(record: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(record, key) && record[key] !== undefined;
}

/** The issue path of a child value. */
export function childPath(path: string, segment: Key): string {
  return path === "" ? String(segment) : `${path}.${segment}`;
}

/** The JSON pointer of a child schema, escaped. */
export function pointer(at: string, segment: Key): string {
  return `${at}/${String(segment).replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

/** The schema's property names ajv looks at: `__proto__` is never one. */
export function schemaKeys(map: unknown): string[] {
  return isObject(map) ? Object.keys(map).filter((key) => key !== "__proto__") : [];
}

/** Code points, not UTF-16 units, as ajv's `ucs2length` counts them. */
export function codePointLength(text: string): number {
  let length = 0;
  for (let pos = 0; pos < text.length; length++) {
    const unit = text.charCodeAt(pos++);
    // Past the end `charCodeAt` is NaN, which is no low surrogate.
    if (unit >= 0xd800 && unit <= 0xdbff && (text.charCodeAt(pos) & 0xfc00) === 0xdc00) pos++;
  }
  return length;
}

/** Deep equality of JSON values, as ajv's `equal` (fast-deep-equal) decides it. */
export function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a && b && typeof a === "object") {
    // An array and an object differ in constructor, as do an object and a primitive; arrays then
    // compare by their keys (indices) like objects.
    if ((a as object).constructor !== (b as object).constructor) return false;
    const left = a as Record<string, unknown>;
    const right = b as Record<string, unknown>;
    const keys = Object.keys(left);
    if (keys.length !== Object.keys(right).length) return false;
    for (const key of keys) if (!Object.prototype.hasOwnProperty.call(right, key) || !equal(left[key], right[key])) return false;
    return true;
  }
  return a !== a && b !== b;
}

/** A default as ajv's generated code writes it: its JSON literal (`-0` becomes `0`). Made once, when the schema is compiled. */
export function literal(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

/** A compiled default, written into the data as a fresh copy each time (as ajv's literal is); a scalar is its own copy. */
export function copyOf(value: unknown): unknown {
  // `null` takes the copy's path too: it comes back as `null`.
  return typeof value === "object" ? JSON.parse(JSON.stringify(value)) : value;
}
