/**
 * Tool-argument validation with ajv (SPEC T2): one compiled validator per schema object,
 * arguments cloned before coercion, and the coercions models commonly need — numeric strings,
 * a scalar where an array is expected, and `null` for an omitted optional property.
 *
 * @module
 */
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import type { ToolCall } from "../model/messages.js";

const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: "array", useDefaults: true, validateFormats: false });
const compiled = new WeakMap<object, ValidateFunction>();

/**
 * Validators by schema content. ajv keeps everything it compiles (its cache and code scope) for
 * the life of the instance, so compiling once per schema *object* grew without bound when an app
 * builds its tools per Agent (the soak test: ~6 KB per Agent). Equal schemas share one validator.
 */
const byContent = new Map<string, ValidateFunction>();

function contentKey(schema: object): string | undefined {
  try {
    return JSON.stringify(schema);
  } catch {
    return undefined;
  }
}

function validatorFor(schema: object): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    const key = contentKey(schema);
    validate = (key !== undefined ? byContent.get(key) : undefined) ?? ajv.compile(schema);
    if (key !== undefined) byContent.set(key, validate);
    compiled.set(schema, validate);
  }
  return validate;
}

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema | Schema[];
  nullable?: boolean;
  anyOf?: Schema[];
  oneOf?: Schema[];
};

function allowsNull(schema: Schema | undefined): boolean {
  if (!schema || typeof schema !== "object") return true;
  if (schema.nullable) return true;
  const types = schema.type === undefined ? undefined : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types?.includes("null")) return true;
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return variants.some(allowsNull);
  return types === undefined;
}

/** Models send `null` for an optional property they mean to omit: drop it where the schema forbids null. */
function dropNullOptionals(value: unknown, schema: Schema | undefined): void {
  if (!schema || typeof schema !== "object" || value === null || typeof value !== "object") return;
  if (Array.isArray(value)) {
    if (schema.items && !Array.isArray(schema.items)) for (const item of value) dropNullOptionals(item, schema.items);
    return;
  }
  const record = value as Record<string, unknown>;
  const required = new Set(schema.required ?? []);
  for (const [key, propertySchema] of Object.entries(schema.properties ?? {})) {
    if (!(key in record)) continue;
    if (record[key] === null && !required.has(key) && !allowsNull(propertySchema)) delete record[key];
    else dropNullOptionals(record[key], propertySchema);
  }
}

/**
 * ajv coerces inside `anyOf` / `oneOf` branch by branch, so a `null` the schema allows (e.g.
 * `anyOf: [{ type: "string" }, { type: "null" }]`) comes out of the first branch as `""` or `0`.
 * Put the model's `null` back wherever the schema allows it: the tool must get what was sent.
 */
function restoreAllowedNulls(validated: unknown, raw: unknown, schema: Schema | undefined): void {
  if (!schema || typeof schema !== "object" || validated === null || typeof validated !== "object" || raw === null || typeof raw !== "object") return;
  if (Array.isArray(validated)) {
    const items = schema.items;
    if (!Array.isArray(raw) || !items || Array.isArray(items)) return;
    validated.forEach((item, index) => {
      if (raw[index] === null && allowsNull(items)) validated[index] = null;
      else restoreAllowedNulls(item, raw[index], items);
    });
    return;
  }
  const target = validated as Record<string, unknown>;
  const source = raw as Record<string, unknown>;
  for (const [key, propertySchema] of Object.entries(schema.properties ?? {})) {
    if (!(key in source) || !(key in target)) continue;
    if (source[key] === null && allowsNull(propertySchema)) target[key] = null;
    else restoreAllowedNulls(target[key], source[key], propertySchema);
  }
}

function pathOf(error: ErrorObject): string {
  const segments = error.instancePath.split("/").slice(1).map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  if (error.keyword === "required") segments.push(String((error.params as { missingProperty: string }).missingProperty));
  if (error.keyword === "additionalProperties") segments.push(String((error.params as { additionalProperty: string }).additionalProperty));
  return segments.length > 0 ? segments.join(".") : "(root)";
}

function describe(error: ErrorObject): string {
  if (error.keyword === "required") return "is required";
  if (error.keyword === "additionalProperties") return "is not allowed";
  if (error.keyword === "enum") return `must be one of ${JSON.stringify((error.params as { allowedValues: unknown[] }).allowedValues)}`;
  return error.message ?? error.keyword;
}

/** Renders `value` for an error message, cut to a readable size. */
function preview(value: unknown, limit = 2000): string {
  let text: string;
  try {
    text = JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > limit ? `${text.slice(0, limit)}\n… (${text.length - limit} more characters)` : text;
}

/**
 * The validated arguments of `toolCall` for `schema`, coerced and with defaults applied.
 * Throws an `Error` whose message names each failing path and shows what was received,
 * written for the model to read and correct.
 *
 * @example
 * ```ts
 * validateToolArguments("add", { type: "object", properties: { a: { type: "number" } } }, call);
 * ```
 */
export function validateToolArguments(toolName: string, schema: object, toolCall: Pick<ToolCall, "arguments" | "argumentsError">): unknown {
  if (toolCall.argumentsError) {
    throw new Error(`Invalid arguments for tool "${toolName}": ${toolCall.argumentsError}`);
  }
  const raw = toolCall.arguments;
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new Error(`Invalid arguments for tool "${toolName}": expected a JSON object, received ${preview(raw)}`);
  }
  const args = structuredClone(raw) as Record<string, unknown>;
  dropNullOptionals(args, schema as Schema);
  const validate = validatorFor(schema);
  if (validate(args)) {
    restoreAllowedNulls(args, raw, schema as Schema);
    return args;
  }
  const lines = (validate.errors ?? []).map((error) => `  - ${pathOf(error)}: ${describe(error)}`);
  throw new Error(`Invalid arguments for tool "${toolName}":\n${[...new Set(lines)].join("\n")}\n\nReceived arguments:\n${preview(raw)}`);
}
