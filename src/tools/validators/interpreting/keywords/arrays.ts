/**
 * The array keywords: `maxItems`, `minItems`, `items` (one schema or a tuple, with
 * `additionalItems`), `contains`, `uniqueItems`.
 *
 * @module
 */
import type { CompileContext } from "../compile-context.js";
import { childPath, equal, isObject, literal, pointer } from "../json-values.js";
import { run } from "../run.js";
import { ALL_ERRORS, COMPOSITE, type Issues, type JsonType, type Node, type SchemaNode, type Step } from "../schema-node.js";
import { matchesAny } from "../type-coercion.js";
import { sizeLimits } from "./size-limits.js";

/** Adds the checks (and tuple defaults) that run only when the data is an array. */
export function compileArray(ctx: CompileContext, node: SchemaNode, schema: Record<string, unknown>, at: string): void {
  const steps = node.array;
  steps.push(...sizeLimits(ctx, schema, at, "maxItems", "minItems", "items", (data) => (data as unknown[]).length));
  const items = schema.items;
  if (Array.isArray(items)) {
    compileTuple(ctx, node, schema, items, at, steps);
  } else if (items !== undefined) {
    steps.push(eachItem(ctx.node(items, pointer(at, "items")), 0));
  } else if ("additionalItems" in schema) {
    // `additionalItems` without `items` checks nothing, as in ajv, which still checks its shape.
    ctx.shapeOf(schema.additionalItems, pointer(at, "additionalItems"));
  }
  if ("contains" in schema) steps.push(compileContains(ctx, schema, at));
  if ("uniqueItems" in schema) {
    if (typeof schema.uniqueItems !== "boolean") ctx.invalid(at, "uniqueItems", "must be a boolean");
    if (schema.uniqueItems) steps.push(uniqueItems(schema));
  }
}

/** `items` as an array: one schema per position, then `additionalItems` for the rest. */
function compileTuple(ctx: CompileContext, node: SchemaNode, schema: Record<string, unknown>, items: unknown[], at: string, steps: Step[]): void {
  if (items.length === 0) ctx.invalid(at, "items", "must be a schema or a non-empty array of schemas");
  const tuple = items.map((item, i) => ctx.node(item, pointer(pointer(at, "items"), i)));
  node.tupleDefaults = items.flatMap((item, i): Array<[number, unknown]> => (isObject(item) && item.default !== undefined ? [[i, literal(item.default)]] : []));
  if ("additionalItems" in schema) {
    const extra = ctx.node(schema.additionalItems, pointer(at, "additionalItems"));
    if (extra === false) {
      const message = `must NOT have more than ${tuple.length} items`;
      steps.push((data, _p, _k, path, _m, issues) => {
        if ((data as unknown[]).length > tuple.length) issues.push({ path, message });
        return data;
      });
    } else {
      steps.push(eachItem(extra, tuple.length));
    }
  }
  steps.push((data, _p, _k, path, mode, issues) => {
    const array = data as unknown[];
    const length = Math.min(array.length, tuple.length);
    for (let i = 0; i < length; i++) {
      const before = issues.length;
      run(tuple[i]!, array[i], array, i, childPath(path, i), mode, issues);
      if (!(mode & ALL_ERRORS) && issues.length > before) break;
    }
    return data;
  });
}

/** Checks every item from index `from` on against `each`. */
function eachItem(each: Node, from: number): Step {
  return (data, _p, _k, path, mode, issues) => {
    const array = data as unknown[];
    const length = array.length;
    for (let i = from; i < length; i++) {
      const before = issues.length;
      run(each, array[i], array, i, childPath(path, i), mode, issues);
      if (!(mode & ALL_ERRORS) && issues.length > before) break;
    }
    return data;
  };
}

function compileContains(ctx: CompileContext, schema: Record<string, unknown>, at: string): Step {
  const contains = ctx.node(schema.contains, pointer(at, "contains"));
  const message = "must contain at least 1 valid item(s)";
  return (data, _p, _k, path, mode, issues) => {
    const array = data as unknown[];
    const start = issues.length;
    let found = false;
    for (let i = 0; !found && i < array.length; i++) {
      const before = issues.length;
      run(contains, array[i], array, i, childPath(path, i), mode | COMPOSITE, issues);
      found = issues.length === before;
    }
    if (found) issues.length = start;
    else issues.push({ path, message });
    return data;
  };
}

/** ajv reports the last duplicate pair it meets scanning from the end, and names the pair differently for scalar item types. */
function uniqueItems(schema: Record<string, unknown>): Step {
  const items = schema.items;
  const itemTypes = (isObject(items) && items.type !== undefined ? [items.type].flat() : []) as JsonType[];
  const scalar = itemTypes.length > 0 && !itemTypes.some((t) => t === "object" || t === "array");
  // As ajv reads the types: a nullable `items` (which always has a `type`) compares nulls too.
  if (isObject(items) && items.nullable === true) itemTypes.push("null");
  const report = (path: string, issues: Issues, j: number, i: number): void => {
    issues.push({ path, message: `must NOT have duplicate items (items ## ${j} and ${i} are identical)` });
  };
  return (data, _p, _k, path, _m, issues) => {
    const array = data as unknown[];
    // One item repeats nothing; this saves the scalar path its map.
    if (array.length <= 1) return data;
    if (scalar) {
      const seen = new Map<unknown, number>();
      for (let i = array.length; i--; ) {
        const item = array[i];
        if (!matchesAny(itemTypes, item)) continue;
        const later = seen.get(item);
        if (later !== undefined) {
          report(path, issues, later, i);
          break;
        }
        seen.set(item, i);
      }
      return data;
    }
    outer: for (let i = array.length; i--; ) {
      for (let j = i; j--; ) {
        if (equal(array[i], array[j])) {
          report(path, issues, j, i);
          break outer;
        }
      }
    }
    return data;
  };
}
