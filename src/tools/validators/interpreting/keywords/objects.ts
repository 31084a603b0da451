/**
 * The object keywords: `maxProperties`, `minProperties`, `required`, `propertyNames`,
 * `additionalProperties`, `dependencies`, `properties` (with defaults), `patternProperties`.
 *
 * Without allErrors (inside `not` / `if`) the issues are dropped and only whether there were any
 * counts. Loops that coerce nothing (`required`, `propertyNames`) run to the end; the others stop
 * at the first failure, as ajv does, so the values after it stay as they were.
 *
 * @module
 */
import { alwaysValid } from "../ajv-rules.js";
import type { CompileContext } from "../compile-context.js";
import { childPath, hasOwn, isObject, literal, pointer, schemaKeys } from "../json-values.js";
import { run } from "../run.js";
import { ALL_ERRORS, COMPOSITE, type Node, type SchemaNode, type Step } from "../schema-node.js";
import { sizeLimits } from "./size-limits.js";

/** A compiled `patternProperties` entry. */
interface PatternProperty {
  regExp: RegExp;
  node: Node;
}

/** The keywords that make a schema check objects even when they add no step. */
const OBJECT_KEYWORDS = ["maxProperties", "minProperties", "required", "propertyNames", "additionalProperties", "dependencies"];

/** Adds the checks (and property defaults) that run only when the data is an object, compiled in ajv's order. */
export function compileObject(ctx: CompileContext, node: SchemaNode, schema: Record<string, unknown>, at: string): void {
  const steps = sizeLimits(ctx, schema, at, "maxProperties", "minProperties", "properties", (data) => Object.keys(data as object).length);
  if ("required" in schema) steps.push(requiredStep(ctx.stringArray(schema.required, at, "required")));
  if ("propertyNames" in schema) steps.push(propertyNamesStep(ctx.node(schema.propertyNames, pointer(at, "propertyNames"))));
  const properties = schema.properties;
  if (properties !== undefined && !isObject(properties)) ctx.invalid(at, "properties", "must be an object of schemas");
  const patternProperties = schema.patternProperties;
  if (patternProperties !== undefined && !isObject(patternProperties)) ctx.invalid(at, "patternProperties", "must be an object of schemas");
  const declared = schemaKeys(properties);
  const extraChecked = "additionalProperties" in schema && !alwaysValid(schema.additionalProperties);
  const patterns = schemaKeys(patternProperties).flatMap((source): PatternProperty[] => {
    const always = alwaysValid(patternProperties![source]);
    const node = ctx.node(patternProperties![source], pointer(pointer(at, "patternProperties"), source));
    // ajv compiles a pattern only where it checks with it: for its own schema, or for
    // additionalProperties. An invalid pattern elsewhere is no error, as in ajv.
    if (always && !extraChecked) return [];
    return [{ regExp: ctx.pattern(source, pointer(at, "patternProperties"), `patternProperties: ${source}`), node }];
  });
  if ("additionalProperties" in schema) steps.push(additionalPropertiesStep(ctx.node(schema.additionalProperties, pointer(at, "additionalProperties")), new Set(declared), patterns));
  if ("dependencies" in schema) steps.push(compileDependencies(ctx, node, schema.dependencies, at));
  // Without `properties` or `patternProperties`, these two steps check nothing.
  steps.push(compileProperties(ctx, node, properties as Record<string, unknown>, declared, at), patternPropertiesStep(patterns));
  if (properties !== undefined || patternProperties !== undefined || OBJECT_KEYWORDS.some((keyword) => keyword in schema)) node.object = steps;
}

function requiredStep(required: readonly string[]): Step {
  return (data, _p, _k, path, _m, issues) => {
    for (const name of required) {
      if (!hasOwn(data as Record<string, unknown>, name)) issues.push({ path: childPath(path, name), message: "is required" });
    }
    return data;
  };
}

function propertyNamesStep(names: Node): Step {
  return (data, _p, _k, path, mode, issues) => {
    for (const name of Object.keys(data as object)) {
      const before = issues.length;
      // The name is checked at the object's path; there is nowhere to write a coerced name.
      run(names, name, undefined, name, path, mode | COMPOSITE, issues);
      if (issues.length > before) issues.push({ path, message: "property name must be valid" });
    }
    return data;
  };
}

function additionalPropertiesStep(extra: Node, known: ReadonlySet<string>, patterns: readonly PatternProperty[]): Step {
  return (data, _p, _k, path, mode, issues) => {
    const record = data as Record<string, unknown>;
    for (const name of Object.keys(record)) {
      if (known.has(name) || patterns.some((p) => p.regExp.test(name))) continue;
      const before = issues.length;
      if (extra === false) issues.push({ path: childPath(path, name), message: "is not allowed" });
      else run(extra, record[name], record, name, childPath(path, name), mode, issues);
      if (!(mode & ALL_ERRORS) && issues.length > before) break;
    }
    return data;
  };
}

/** `dependencies`: property lists are checked before schemas, whatever their order in the schema, as ajv does. */
function compileDependencies(ctx: CompileContext, node: SchemaNode, dependencies: unknown, at: string): Step {
  if (!isObject(dependencies)) ctx.invalid(at, "dependencies", "must be an object");
  const propertyDeps: Array<[string, string[]]> = [];
  const schemaDeps: Array<[string, Node]> = [];
  // `schemaKeys`: ajv ignores a dependency of `__proto__`, as it ignores such a property schema.
  for (const name of schemaKeys(dependencies)) {
    const value = dependencies[name];
    if (Array.isArray(value)) propertyDeps.push([name, ctx.stringArray(value, pointer(at, "dependencies"), name)]);
    else {
      const dep = ctx.node(value, pointer(pointer(at, "dependencies"), name));
      node.sameData.push(dep);
      schemaDeps.push([name, dep]);
    }
  }
  return (data, parent, key, path, mode, issues) => {
    let value = data;
    for (const [name, deps] of propertyDeps) {
      if (!hasOwn(value as Record<string, unknown>, name)) continue;
      const message = `must have ${deps.length === 1 ? "property" : "properties"} ${deps.join(", ")} when property ${name} is present`;
      for (const dep of deps) {
        if (hasOwn(value as Record<string, unknown>, dep)) continue;
        issues.push({ path, message });
        if (!(mode & ALL_ERRORS)) return value;
      }
    }
    for (const [name, dep] of schemaDeps) {
      if (!hasOwn(value as Record<string, unknown>, name)) continue;
      const before = issues.length;
      value = run(dep, value, parent, key, path, mode, issues);
      if (!(mode & ALL_ERRORS) && issues.length > before) break;
    }
    return value;
  };
}

/** `properties`: compiles every declared property, collects defaults, and checks those present. */
function compileProperties(ctx: CompileContext, node: SchemaNode, properties: Record<string, unknown>, declared: readonly string[], at: string): Step {
  const checks: Array<[string, Node, boolean]> = [];
  for (const name of declared) {
    const propertySchema = properties[name];
    const defaulted = isObject(propertySchema) && propertySchema.default !== undefined;
    checks.push([name, ctx.node(propertySchema, pointer(pointer(at, "properties"), name)), defaulted]);
    if (defaulted) node.objectDefaults.push([name, literal(propertySchema.default)]);
  }
  return (data, _p, _k, path, mode, issues) => {
    const record = data as Record<string, unknown>;
    for (const [name, child, defaulted] of checks) {
      // ajv checks a property with a default without asking whether it is there (the default
      // put it there), outside `not` / `anyOf` …: so a default named like an inherited member
      // (`toString`) checks that member, and all three validators say the same.
      if (!hasOwn(record, name) && !(defaulted && !(mode & COMPOSITE) && record[name] !== undefined)) continue;
      const before = issues.length;
      run(child, record[name], record, name, childPath(path, name), mode, issues);
      if (!(mode & ALL_ERRORS) && issues.length > before) break;
    }
    return data;
  };
}

function patternPropertiesStep(checked: readonly PatternProperty[]): Step {
  return (data, _p, _k, path, mode, issues) => {
    const record = data as Record<string, unknown>;
    for (const { regExp, node: child } of checked) {
      for (const name of Object.keys(record)) {
        if (!regExp.test(name)) continue;
        const before = issues.length;
        run(child, record[name], record, name, childPath(path, name), mode, issues);
        if (!(mode & ALL_ERRORS) && issues.length > before) return data;
      }
    }
    return data;
  };
}
