/**
 * The walkable form of a schema, which the compiler builds once per schema object and `run`
 * walks on every call, and the evaluation-mode bits both share.
 *
 * @module
 */
import type { ValidationIssue } from "../../../model/argument-validator.js";

/** A JSON Schema `type` name. */
export type JsonType = "array" | "boolean" | "integer" | "null" | "number" | "object" | "string";
/** An object or array that a coerced value or a default is written into. */
export type Container = Record<string, unknown> | unknown[];
/** A property name or an array index. */
export type Key = string | number;
/** The list a walk appends its issues to. */
export type Issues = ValidationIssue[];

/** Bits of the evaluation mode, as ajv's `allErrors` and `compositeRule` flags. */
export const ALL_ERRORS = 1;
/** Inside `anyOf` / `oneOf` / `not` / `if` / `contains` / `propertyNames` ajv applies no defaults. */
export const COMPOSITE = 2;

/** One compiled check; returns what ajv's local `data` variable holds afterwards. */
export type Step = (data: unknown, parent: Container | undefined, key: Key, path: string, mode: number, issues: Issues) => unknown;
/** A compiled schema: boolean schemas stay booleans. */
export type Node = boolean | SchemaNode;

/** A compiled object schema, its checks grouped by the type of data they apply to, as ajv groups them. */
export interface SchemaNode {
  schema: Record<string, unknown>;
  types: JsonType[];
  typeText: string;
  coerceTo: JsonType[];
  untyped: Step[];
  number: Step[];
  string: Step[];
  array: Step[];
  object: Step[] | undefined;
  objectDefaults: Array<[string, unknown]>;
  tupleDefaults: Array<[number, unknown]>;
  /** Schemas evaluated on the same data; a cycle through these would never terminate. */
  sameData: Node[];
}

/** What `type` (with `nullable`) compiles to: the types, their error text, the coercion targets. */
export type TypedPart = Pick<SchemaNode, "types" | "typeText" | "coerceTo">;

/** A node for `schema` with its types and nothing else compiled into it yet. */
export function emptyNode(schema: Record<string, unknown>, typed: TypedPart): SchemaNode {
  return {
    schema,
    ...typed,
    untyped: [],
    number: [],
    string: [],
    array: [],
    object: undefined,
    objectDefaults: [],
    tupleDefaults: [],
    sameData: [],
  };
}
