/**
 * The number keywords: `maximum`, `minimum`, `exclusiveMaximum`, `exclusiveMinimum`, `multipleOf`.
 *
 * @module
 */
import type { CompileContext } from "../compile-context.js";
import type { SchemaNode } from "../schema-node.js";

const LIMITS: ReadonlyArray<[string, string, (value: number, limit: number) => boolean]> = [
  ["maximum", "<=", (v, l) => v <= l],
  ["minimum", ">=", (v, l) => v >= l],
  ["exclusiveMaximum", "<", (v, l) => v < l],
  ["exclusiveMinimum", ">", (v, l) => v > l],
];

/** Adds the checks that run only when the data is a number. */
export function compileNumber(ctx: CompileContext, node: SchemaNode, schema: Record<string, unknown>, at: string): void {
  for (const [keyword, comparison, ok] of LIMITS) {
    if (!(keyword in schema)) continue;
    const limit = ctx.number(schema, keyword, at);
    const message = `must be ${comparison} ${limit}`;
    node.number.push((data, _p, _k, path, _m, issues) => {
      if (!ok(data as number, limit)) issues.push({ path, message });
      return data;
    });
  }
  if ("multipleOf" in schema) {
    const divisor = ctx.number(schema, "multipleOf", at);
    if (!(divisor > 0)) ctx.invalid(at, "multipleOf", "must be greater than 0");
    const message = `must be multiple of ${divisor}`;
    node.number.push((data, _p, _k, path, _m, issues) => {
      // ajv's test, floating point error included: 0.3 is not a multiple of 0.1.
      const ratio = (data as number) / divisor;
      if (ratio !== parseInt(String(ratio), 10)) issues.push({ path, message });
      return data;
    });
  }
}
