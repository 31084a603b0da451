/**
 * Tool-argument validation (SPEC T2): arguments cloned before the validator coerces them, `null`
 * for an omitted optional property dropped, a `null` the schema allows kept, and one error text
 * for the model whichever validator (`ArgumentValidator`) does the check.
 *
 * @module
 */
import type { ToolCall } from "../model/messages.js";
import { copyArguments } from "./copy-arguments.js";
import { interpretingValidator } from "./validators/interpreting-validator.js";
import type { ArgumentValidator, ValidationIssue } from "../model/argument-validator.js";

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema | Schema[];
  nullable?: boolean;
  anyOf?: Schema[];
  oneOf?: Schema[];
};

/** A subschema's object form (an array of tuple schemas included); `undefined` for anything that is not an object. */
function objectSchema(schema: unknown): Schema | undefined {
  return typeof schema === "object" && schema !== null ? (schema as Schema) : undefined;
}

/**
 * Whether `schema` lets a `null` through, as far as it says itself: a schema that names no type
 * (`{}`, `true`, a `$ref`, an `allOf`) counts as allowing it. No schema at all (an array without
 * `items`) does not: a `null` coerced there came from elsewhere, e.g. `contains`.
 */
function allowsNull(schema: unknown): boolean {
  const object = objectSchema(schema);
  if (object === undefined) return schema !== false && schema !== undefined;
  if (object.nullable) return true;
  const types = object.type === undefined ? undefined : Array.isArray(object.type) ? object.type : [object.type];
  if (types?.includes("null")) return true;
  const variants = object.anyOf ?? object.oneOf;
  if (variants) return variants.some(allowsNull);
  return types === undefined;
}

/*
 * The two walks below read a property only where both the schema and the arguments have it as
 * their own: a schema parsed from JSON may name `__proto__`, and following it into an argument
 * object that lacks it would reach (and change) `Object.prototype`. Tuple elements (`items` an
 * array of schemas) are left as the validator made them.
 */

/** Models send `null` for an optional property they mean to omit: drop it where the schema forbids null. */
function dropNullOptionals(value: unknown, schema: unknown): void {
  const object = objectSchema(schema);
  if (object === undefined || value === null || typeof value !== "object") return;
  if (Array.isArray(value)) {
    for (const item of value) dropNullOptionals(item, object.items);
    return;
  }
  const record = value as Record<string, unknown>;
  const properties = object.properties;
  // `for…in` over the schema, no Set or entries array: this runs for every tool call.
  for (const key in properties) {
    if (!Object.hasOwn(properties, key) || !Object.hasOwn(record, key)) continue;
    const propertySchema = properties[key];
    if (record[key] === null && !(Array.isArray(object.required) && object.required.includes(key)) && !allowsNull(propertySchema)) delete record[key];
    else dropNullOptionals(record[key], propertySchema);
  }
}

/**
 * ajv coerces inside `anyOf` / `oneOf` branch by branch, so a `null` the schema allows (e.g.
 * `anyOf: [{ type: "string" }, { type: "null" }]`) comes out of the first branch as `""` or `0`.
 * Put the model's `null` back wherever the schema allows it: the tool must get what was sent.
 * (`$ref` is not followed: a `null` under a reference to a string schema comes back as `null`.)
 */
function restoreAllowedNulls(validated: unknown, raw: unknown, schema: unknown): void {
  const object = objectSchema(schema);
  if (object === undefined || validated === null || typeof validated !== "object" || raw === null || typeof raw !== "object") return;
  const target = validated as Record<string, unknown>;
  const source = raw as Record<string, unknown>;
  if (Array.isArray(target)) {
    const items = object.items;
    if (!Array.isArray(source) || Array.isArray(items)) return;
    for (let index = 0; index < target.length; index++) {
      if (source[index] === null && allowsNull(items)) target[index] = null;
      else restoreAllowedNulls(target[index], source[index], items);
    }
    return;
  }
  const properties = object.properties;
  for (const key in properties) {
    if (!Object.hasOwn(properties, key) || !Object.hasOwn(source, key) || !Object.hasOwn(target, key)) continue;
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
 * received, written for the model to read and correct.
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
  dropNullOptionals(args, schema);
  const issues = validator.compile(schema, toolName)(args);
  if (!issues || issues.length === 0) {
    restoreAllowedNulls(args, raw, schema);
    return args;
  }
  const lines = issues.map(line);
  throw new Error(`Invalid arguments for tool "${toolName}":\n${[...new Set(lines)].join("\n")}\n\nReceived arguments:\n${preview(raw)}`);
}

/**
 * The validated arguments of `toolCall` for `schema`, as the loop checks them (coerced, defaults
 * applied), by the interpreting validator unless `validator` names another. Throws an `Error`
 * whose message names each failing path and shows what was received.
 *
 * @example
 * ```ts
 * validateToolArguments("add", { type: "object", properties: { a: { type: "number" } } }, call);
 * validateToolArguments("add", schema, call, ajvValidator); // generated code: faster, needs 'unsafe-eval'
 * ```
 */
export function validateToolArguments(
  toolName: string,
  schema: object,
  toolCall: Pick<ToolCall, "arguments" | "argumentsError">,
  validator: ArgumentValidator = interpretingValidator,
): unknown {
  return checkToolArguments(toolName, schema, toolCall, validator);
}
