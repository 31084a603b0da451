/**
 * Tool-argument validation (SPEC T2): arguments cloned before the validator coerces them, `null`
 * for an omitted optional property dropped, a `null` the schema allows kept, and one error text
 * for the model whichever validator (`ArgumentValidator`) does the check.
 *
 * @module
 */
import type { ToolCall } from "../model/messages.js";
import { copyArguments } from "./copy-arguments.js";
import { ajvValidator } from "./validators/ajv-validator.js";
import type { ArgumentValidator, ValidationIssue } from "./validators/argument-validator.js";

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
  const properties = schema.properties;
  if (!properties) return;
  // `for…in` over the schema, no Set or entries array: this runs for every tool call.
  for (const key in properties) {
    if (!Object.hasOwn(properties, key) || !(key in record)) continue;
    const propertySchema = properties[key];
    if (record[key] === null && !(Array.isArray(schema.required) && schema.required.includes(key)) && !allowsNull(propertySchema)) delete record[key];
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
  const properties = schema.properties;
  if (!properties) return;
  for (const key in properties) {
    if (!Object.hasOwn(properties, key) || !(key in source) || !(key in target)) continue;
    const propertySchema = properties[key];
    if (source[key] === null && allowsNull(propertySchema)) target[key] = null;
    else restoreAllowedNulls(target[key], source[key], propertySchema);
  }
}

function line(issue: ValidationIssue): string {
  return `  - ${issue.path === "" ? "(root)" : issue.path}: ${issue.message}`;
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
 * The validated arguments of `toolCall` for `schema`, coerced and with defaults applied by
 * `validator`. Throws an `Error` whose message names each failing path and shows what was
 * received, written for the model to read and correct. (The loop's own check: no default
 * validator, so a bundle that never names ajv does not carry it.)
 */
export function checkToolArguments(toolName: string, schema: object, toolCall: Pick<ToolCall, "arguments" | "argumentsError">, validator: ArgumentValidator): unknown {
  if (toolCall.argumentsError) {
    throw new Error(`Invalid arguments for tool "${toolName}": ${toolCall.argumentsError}`);
  }
  const raw = toolCall.arguments;
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new Error(`Invalid arguments for tool "${toolName}": expected a JSON object, received ${preview(raw)}`);
  }
  const args = copyArguments(raw) as Record<string, unknown>;
  dropNullOptionals(args, schema as Schema);
  const issues = validator.compile(schema, toolName)(args);
  if (!issues || issues.length === 0) {
    restoreAllowedNulls(args, raw, schema as Schema);
    return args;
  }
  const lines = issues.map(line);
  throw new Error(`Invalid arguments for tool "${toolName}":\n${[...new Set(lines)].join("\n")}\n\nReceived arguments:\n${preview(raw)}`);
}

/**
 * {@link checkToolArguments} with ajv unless told otherwise.
 *
 * @example
 * ```ts
 * validateToolArguments("add", { type: "object", properties: { a: { type: "number" } } }, call);
 * validateToolArguments("add", schema, call, interpretingValidator); // no eval: strict-CSP pages
 * ```
 */
export function validateToolArguments(
  toolName: string,
  schema: object,
  toolCall: Pick<ToolCall, "arguments" | "argumentsError">,
  validator: ArgumentValidator = ajvValidator,
): unknown {
  return checkToolArguments(toolName, schema, toolCall, validator);
}
