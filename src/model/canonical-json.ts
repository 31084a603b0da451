/**
 * JSON that does not depend on key order, to compare values that went through a store or a
 * provider that reorders keys.
 *
 * @module
 */

/**
 * JSON with every object's keys sorted; `undefined` and functions are left out as
 * `JSON.stringify` leaves them out.
 *
 * @example
 * ```ts
 * canonicalJson({ b: 1, a: [2] }) === canonicalJson({ a: [2], b: 1 }); // true
 * ```
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined || typeof item === "function" ? "null" : canonicalJson(item))).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).filter((key) => record[key] !== undefined && typeof record[key] !== "function").sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
