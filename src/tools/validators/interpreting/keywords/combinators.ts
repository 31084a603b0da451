/**
 * The keywords that apply other schemas to the same data: `not`, `anyOf`, `oneOf`, `allOf` and
 * `if` / `then` / `else`.
 *
 * @module
 */
import { alwaysValid } from "../ajv-rules.js";
import type { CompileContext } from "../compile-context.js";
import { pointer } from "../json-values.js";
import { run, runSteps, toStep } from "../run.js";
import { ALL_ERRORS, COMPOSITE, type Node, type SchemaNode } from "../schema-node.js";

/** Adds the combinators' untyped steps, in ajv's order. */
export function compileCombinators(ctx: CompileContext, node: SchemaNode, schema: Record<string, unknown>, at: string): void {
  if ("not" in schema) compileNot(ctx, node, schema, at);
  if ("anyOf" in schema) compileAnyOf(ctx, node, schema, at);
  if ("oneOf" in schema) compileOneOf(ctx, node, schema, at);
  if ("allOf" in schema) compileAllOf(ctx, node, schema, at);
  compileConditional(ctx, node, schema, at);
}

function compileNot(ctx: CompileContext, node: SchemaNode, schema: Record<string, unknown>, at: string): void {
  const not = ctx.node(schema.not, pointer(at, "not"));
  node.sameData.push(not);
  node.untyped.push((data, parent, key, path, mode, issues) => {
    const before = issues.length;
    const value = run(not, data, parent, key, path, (mode & ~ALL_ERRORS) | COMPOSITE, issues);
    const valid = issues.length === before;
    issues.length = before;
    if (valid) issues.push({ path, message: "must NOT be valid" });
    return value;
  });
}

function compileAnyOf(ctx: CompileContext, node: SchemaNode, schema: Record<string, unknown>, at: string): void {
  // ajv skips the whole anyOf (no coercion in any branch) when one branch is always valid,
  // and so never compiles the others.
  if (Array.isArray(schema.anyOf) && schema.anyOf.some(alwaysValid)) {
    schema.anyOf.forEach((branch, i) => ctx.shapeOf(branch, pointer(pointer(at, "anyOf"), i)));
    return;
  }
  const branches = ctx.schemaArray(schema, "anyOf", at);
  node.sameData.push(...branches);
  node.untyped.push((data, parent, key, path, mode, issues) => {
    const start = issues.length;
    let value = data;
    for (const branch of branches) {
      const before = issues.length;
      value = run(branch, value, parent, key, path, mode | COMPOSITE, issues);
      if (issues.length === before) {
        issues.length = start;
        return value;
      }
    }
    issues.push({ path, message: "must match a schema in anyOf" });
    return value;
  });
}

function compileOneOf(ctx: CompileContext, node: SchemaNode, schema: Record<string, unknown>, at: string): void {
  const branches = ctx.schemaArray(schema, "oneOf", at);
  node.sameData.push(...branches);
  node.untyped.push((data, parent, key, path, mode, issues) => {
    const start = issues.length;
    let value = data;
    let valid = false;
    for (const branch of branches) {
      const before = issues.length;
      value = run(branch, value, parent, key, path, mode | COMPOSITE, issues);
      const passed = issues.length === before;
      if (passed && valid) {
        valid = false;
        break;
      }
      if (passed) valid = true;
    }
    if (valid) issues.length = start;
    else issues.push({ path, message: "must match exactly one schema in oneOf" });
    return value;
  });
}

function compileAllOf(ctx: CompileContext, node: SchemaNode, schema: Record<string, unknown>, at: string): void {
  const branches = ctx.schemaArray(schema, "allOf", at);
  node.sameData.push(...branches);
  const steps = branches.map(toStep);
  node.untyped.push((data, parent, key, path, mode, issues) => runSteps(steps, data, parent, key, path, mode, issues));
}

/** `if` with a `then` or `else` that checks something; otherwise ajv only checks the three schemas' shapes. */
function compileConditional(ctx: CompileContext, node: SchemaNode, schema: Record<string, unknown>, at: string): void {
  const hasThen = "then" in schema && !alwaysValid(schema.then);
  const hasElse = "else" in schema && !alwaysValid(schema.else);
  const used = "if" in schema && (hasThen || hasElse);
  const clause = (keyword: "if" | "then" | "else"): Node | undefined => {
    if (!(keyword in schema)) return undefined;
    if (used) return ctx.node(schema[keyword], pointer(at, keyword));
    ctx.shapeOf(schema[keyword], pointer(at, keyword));
    return undefined;
  };
  const ifNode = clause("if");
  const thenNode = clause("then");
  const elseNode = clause("else");
  if (ifNode === undefined) return;
  node.sameData.push(ifNode, ...[thenNode, elseNode].filter((n): n is Node => n !== undefined));
  node.untyped.push((data, parent, key, path, mode, issues) => {
    const before = issues.length;
    let value = run(ifNode, data, parent, key, path, (mode & ~ALL_ERRORS) | COMPOSITE, issues);
    const matched = issues.length === before;
    issues.length = before;
    const [branch, name] = matched ? [hasThen ? thenNode : undefined, "then"] : [hasElse ? elseNode : undefined, "else"];
    if (branch !== undefined) {
      value = run(branch, value, parent, key, path, mode, issues);
      if (issues.length > before) issues.push({ path, message: `must match "${name}" schema` });
    }
    return value;
  });
}
