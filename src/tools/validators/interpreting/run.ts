/**
 * The walk: checks data against a compiled node, coercing and filling defaults in place, in the
 * order ajv's generated code would.
 *
 * @module
 */
import { copyOf, isObject } from "./json-values.js";
import { ALL_ERRORS, COMPOSITE, type Container, type Issues, type Key, type Node, type Step } from "./schema-node.js";
import { coerce, matchesAny } from "./type-coercion.js";

/** Runs `steps` in order, threading the value through; without allErrors it stops at the first failing one. */
export function runSteps(steps: readonly Step[], data: unknown, parent: Container | undefined, key: Key, path: string, mode: number, issues: Issues): unknown {
  let value = data;
  for (const step of steps) {
    const before = issues.length;
    value = step(value, parent, key, path, mode, issues);
    if (!(mode & ALL_ERRORS) && issues.length > before) break;
  }
  return value;
}

/** Checks `data` against `node`, coercing in place; returns what ajv's local `data` variable holds afterwards. */
export function run(node: Node, data: unknown, parent: Container | undefined, key: Key, path: string, mode: number, issues: Issues): unknown {
  if (node === true) return data;
  if (node === false) {
    issues.push({ path, message: "boolean schema is false" });
    return data;
  }
  const start = issues.length;
  // Without allErrors (inside `not` / `if`) ajv still runs the untyped keywords after a type
  // error, but stops before the next group once anything failed.
  const failFast = !(mode & ALL_ERRORS);
  let value = data;
  // `type: "object"` alone, with object keywords, is checked where those keywords run, after
  // the untyped ones (which may unwrap a one-element array first), as ajv orders it.
  const objectCheckedLate = node.object !== undefined && node.types.length === 1 && node.types[0] === "object";
  if (node.types.length > 0 && !objectCheckedLate && !matchesAny(node.types, value)) value = coerce(node, value, parent, key, path, issues);
  value = runSteps(node.untyped, value, parent, key, path, mode, issues);
  if (failFast && issues.length > start) return value;
  // One group at most applies to a value (it is a number, a string, an array or an object), so
  // after a group nothing else runs that could fail fast.
  if (typeof value === "number") runSteps(node.number, value, parent, key, path, mode, issues);
  else if (typeof value === "string") runSteps(node.string, value, parent, key, path, mode, issues);
  else if (Array.isArray(value)) {
    if (!(mode & COMPOSITE)) for (const [index, fallback] of node.tupleDefaults) if (value[index] === undefined) value[index] = copyOf(fallback);
    runSteps(node.array, value, parent, key, path, mode, issues);
  }
  if (node.object && isObject(value)) {
    // As ajv's generated `data[name] === undefined`: no default over a member the object
    // inherits (`toString`), so all three validators hand the tool the same arguments.
    if (!(mode & COMPOSITE)) for (const [name, fallback] of node.objectDefaults) if (value[name] === undefined) value[name] = copyOf(fallback);
    runSteps(node.object, value, parent, key, path, mode, issues);
  } else if (objectCheckedLate) {
    issues.push({ path, message: "must be object" });
  }
  return value;
}

/** `node` as a step, for lists of schemas applied one after another (`allOf`). */
export function toStep(node: Node): Step {
  return (data, parent, key, path, mode, issues) => run(node, data, parent, key, path, mode, issues);
}
