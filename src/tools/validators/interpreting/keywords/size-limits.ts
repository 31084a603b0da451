/**
 * The `max*` / `min*` pairs that bound a size: characters of a string, items of an array,
 * properties of an object.
 *
 * @module
 */
import type { CompileContext } from "../compile-context.js";
import type { Step } from "../schema-node.js";

/** The steps for `max` then `min`, each present one checked against `size(data)`; `unit` names what is counted. */
export function sizeLimits(ctx: CompileContext, schema: Record<string, unknown>, at: string, max: string, min: string, unit: string, size: (data: unknown) => number): Step[] {
  const steps: Step[] = [];
  for (const [keyword, comparison, tooMany] of [
    [max, "more", true],
    [min, "fewer", false],
  ] as const) {
    if (!(keyword in schema)) continue;
    const limit = ctx.nonNegativeInteger(schema, keyword, at);
    const message = `must NOT have ${comparison} than ${limit} ${unit}`;
    steps.push((data, _p, _k, path, _m, issues) => {
      const count = size(data);
      if (tooMany ? count > limit : count < limit) issues.push({ path, message });
      return data;
    });
  }
  return steps;
}
