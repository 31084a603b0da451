/**
 * The string keywords: `maxLength`, `minLength`, `pattern`.
 *
 * @module
 */
import type { CompileContext } from "../compile-context.js";
import { codePointLength } from "../json-values.js";
import type { SchemaNode } from "../schema-node.js";
import { sizeLimits } from "./size-limits.js";

/** Adds the checks that run only when the data is a string. */
export function compileString(ctx: CompileContext, node: SchemaNode, schema: Record<string, unknown>, at: string): void {
  node.string.push(...sizeLimits(ctx, schema, at, "maxLength", "minLength", "characters", (data) => codePointLength(data as string)));
  if ("pattern" in schema) {
    const regExp = ctx.pattern(schema.pattern, at, "pattern");
    const message = `must match pattern "${schema.pattern as string}"`;
    node.string.push((data, _p, _k, path, _m, issues) => {
      if (!regExp.test(data as string)) issues.push({ path, message });
      return data;
    });
  }
}
