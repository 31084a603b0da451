/**
 * An MCP tool's `inputSchema` as the `parameters` of an rxagent tool: a JSON Schema the
 * validators read (draft-07, the dialect of rxagent's ajv setup and of `interpretingValidator`).
 *
 * MCP servers write their schemas with whatever their library emits: zod's draft-07 output with
 * a `$schema` line, draft 2020-12 (`prefixItems`, `dependentRequired`), OpenAPI's `nullable`, the
 * old boolean `exclusiveMinimum`. ajv compiled with draft-07 throws on an unknown `$schema`, and
 * the interpreting validator refuses newer-draft keywords, so one tool with such a schema would
 * make `prompt()` reject for every tool. Each is rewritten to its draft-07 form where there is
 * one; the few keywords without one are left out, which only loosens the check: the server still
 * validates its own arguments, and its refusal reaches the model as an error result.
 *
 * @module
 */

type Schema = Record<string, unknown>;

const isObject = (value: unknown): value is Schema => value !== null && typeof value === "object" && !Array.isArray(value);

/** Keywords of newer drafts with no draft-07 form, and annotations of no use to a validator. */
const DROPPED = new Set([
  "$schema",
  "$anchor",
  "$dynamicAnchor",
  "$dynamicRef",
  "$recursiveAnchor",
  "$recursiveRef",
  "$vocabulary",
  "unevaluatedProperties",
  "unevaluatedItems",
  "minContains",
  "maxContains",
]);

/** Keywords whose value is one subschema. */
const ONE = ["additionalProperties", "additionalItems", "contains", "propertyNames", "not", "if", "then", "else"];
/** Keywords whose value is a list of subschemas. */
const LIST = ["anyOf", "oneOf", "allOf"];
/** Keywords whose value maps names to subschemas. */
const MAP = ["properties", "patternProperties", "$defs", "definitions"];

/** One (sub)schema in draft-07 form; `value` is a fresh copy, never the server's object. */
function draft07(value: unknown): unknown {
  if (typeof value === "boolean") return value;
  if (!isObject(value)) return value;
  const out: Schema = {};
  for (const [key, child] of Object.entries(value)) {
    if (DROPPED.has(key)) continue;
    if (ONE.includes(key)) out[key] = draft07(child);
    else if (LIST.includes(key)) out[key] = Array.isArray(child) ? child.map(draft07) : child;
    else if (MAP.includes(key)) out[key] = isObject(child) ? Object.fromEntries(Object.entries(child).map(([name, schema]) => [name, draft07(schema)])) : child;
    else if (key === "items") out[key] = Array.isArray(child) ? child.map(draft07) : draft07(child);
    else if (key === "dependencies") out[key] = isObject(child) ? Object.fromEntries(Object.entries(child).map(([name, entry]) => [name, Array.isArray(entry) ? [...entry] : draft07(entry)])) : child;
    else out[key] = structuredCloneJson(child);
  }
  // 2020-12 tuples: `prefixItems` + `items` (the rest) are draft-07's `items` list + `additionalItems`.
  if (Array.isArray(value.prefixItems)) {
    delete out.prefixItems;
    out.items = value.prefixItems.map(draft07);
    if ("items" in value) out.additionalItems = draft07(value.items);
  }
  // 2019-09 split draft-07's `dependencies` in two; merge them back.
  if (isObject(value.dependentRequired) || isObject(value.dependentSchemas)) {
    const merged: Schema = isObject(out.dependencies) ? { ...out.dependencies } : {};
    for (const [name, names] of Object.entries(isObject(value.dependentRequired) ? value.dependentRequired : {})) merged[name] = Array.isArray(names) ? [...names] : names;
    for (const [name, schema] of Object.entries(isObject(value.dependentSchemas) ? value.dependentSchemas : {})) merged[name] = draft07(schema);
    delete out.dependentRequired;
    delete out.dependentSchemas;
    out.dependencies = merged;
  }
  // Draft-04 bounds: `exclusiveMinimum: true` qualified `minimum`; draft-07 makes it the number.
  for (const [flag, bound] of [["exclusiveMinimum", "minimum"], ["exclusiveMaximum", "maximum"]] as const) {
    if (typeof value[flag] !== "boolean") continue;
    delete out[flag];
    if (value[flag] === true && typeof value[bound] === "number") {
      out[flag] = value[bound];
      delete out[bound];
    }
  }
  // `nullable` (OpenAPI) qualifies a `type`; alone, ajv rejects the schema.
  if ("nullable" in out && out.type === undefined) delete out.nullable;
  return out;
}

/** A deep copy of JSON data (`enum`, `const`, `default`, `examples` values). */
function structuredCloneJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(structuredCloneJson);
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, structuredCloneJson(child)]));
  return value;
}

/**
 * The `parameters` schema for an MCP tool's `inputSchema`: a copy in draft-07 form (see the
 * module comment), always an object schema with `properties`, which some model APIs require.
 *
 * @example
 * ```ts
 * mcpToolParameters({ type: "object", $schema: "https://json-schema.org/draft/2020-12/schema", properties: { at: { type: "array", prefixItems: [{ type: "number" }, { type: "number" }] } } });
 * // { type: "object", properties: { at: { type: "array", items: [{ type: "number" }, { type: "number" }] } } }
 * ```
 */
export function mcpToolParameters(inputSchema: unknown): Schema {
  const schema = isObject(inputSchema) ? (draft07(inputSchema) as Schema) : {};
  if (schema.type === undefined) schema.type = "object";
  if (schema.type === "object" && !isObject(schema.properties)) schema.properties = {};
  return schema;
}
