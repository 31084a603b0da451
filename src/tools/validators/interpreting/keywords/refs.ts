/**
 * `$ref`: local JSON-pointer references, inlined or run as a separate function the way ajv
 * decides.
 *
 * @module
 */
import { AJV_RULES, hasRef, VIA_AJV } from "../ajv-rules.js";
import type { CompileContext } from "../compile-context.js";
import { isObject } from "../json-values.js";
import { run } from "../run.js";
import { ALL_ERRORS, type SchemaNode, type Step } from "../schema-node.js";

/** Adds the step for `node`'s `$ref`, which must run before its other untyped keywords. */
export function compileRef(ctx: CompileContext, node: SchemaNode, ref: unknown, at: string): void {
  if (typeof ref !== "string") ctx.invalid(at, "$ref", "must be a string");
  // ajv never resolves a reference in a schema it only checks the shape of, and such a node never runs.
  if (!ctx.lenient) node.untyped.push(resolveRef(ctx, node, ref, at));
}

function resolveRef(ctx: CompileContext, node: SchemaNode, ref: string, at: string): Step {
  const seen = new Set<string>();
  let target: unknown = ctx.root;
  let current = ref;
  // ajv follows a chain of schemas that are only a `$ref` and inlines the end of it.
  for (;;) {
    if (seen.has(current)) ctx.invalid(at, "$ref", `"${ref}" only refers to itself`);
    seen.add(current);
    target = resolvePointer(ctx, current, at, ref);
    // Booleans, arrays and `null` have no `$ref` to follow.
    const next = (target as { $ref?: unknown } | null)?.$ref;
    if (typeof next !== "string" || Object.keys(target as object).some((key) => key !== "$ref" && AJV_RULES.has(key))) break;
    current = next;
  }
  // ajv checks nothing against a number, a string or an array it reaches (and throws on null).
  if (typeof target !== "boolean" && !isObject(target)) {
    ctx.fail(`"$ref": "${ref}" at ${at} points at ${JSON.stringify(target)}, which is not a schema. Point it at a schema (an object or a boolean).`);
  }
  const targetNode = ctx.node(target, current);
  // A reference to the root is never inlined: the root holds that very reference.
  if (!hasRef(target)) {
    // Inlined by ajv: same mode, and the caller sees the coerced value.
    node.sameData.push(targetNode);
    return (data, parent, key, path, mode, issues) => run(targetNode, data, parent, key, path, mode, issues);
  }
  // A separately compiled ajv function: it starts afresh (allErrors, defaults on), and what it
  // coerces reaches the parent object but not the caller's own view of the value.
  node.sameData.push(targetNode);
  return (data, parent, key, path, _mode, issues) => {
    run(targetNode, data, parent, key, path, ALL_ERRORS, issues);
    return data;
  };
}

function resolvePointer(ctx: CompileContext, ref: string, at: string, original: string): unknown {
  if (!ref.startsWith("#")) {
    ctx.fail(`"$ref": "${original}" at ${at} is not supported: only references inside the tool's own schema ("#", "#/$defs/...", "#/definitions/...") are. Put the referenced schema under "$defs", or: ${VIA_AJV}`);
  }
  if (ref === "#" || ref === "#/") return ctx.root;
  if (ref[1] !== "/") {
    ctx.fail(`"$ref": "${original}" at ${at} is not supported: anchors ("#name") are not resolved, only JSON pointers such as "#/$defs/name". ${VIA_AJV}`);
  }
  let target: unknown = ctx.root;
  for (const part of ref.slice(2).split("/")) {
    let name: string;
    try {
      name = decodeURIComponent(part).replace(/~1/g, "/").replace(/~0/g, "~");
    } catch {
      ctx.invalid(at, "$ref", `"${original}" is not a valid URI fragment`);
    }
    // Indexed as ajv does, a string included ("abc"/length is 3).
    target = (target as Record<string, unknown> | null)?.[name];
    if (target === undefined) ctx.invalid(at, "$ref", `"${original}" does not resolve to anything in the schema`);
  }
  return target;
}
