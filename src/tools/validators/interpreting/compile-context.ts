/**
 * What the keyword compilers need from the compiler: its state and the checks of a keyword's
 * value that report a bad schema the way ajv's meta-schema would.
 *
 * @module
 */
import type { Node } from "./schema-node.js";

/** The compiler as the keyword compilers see it. */
export interface CompileContext {
  /** The tool's whole schema; every `$ref` resolves inside it. */
  readonly root: Record<string, unknown>;
  /** Whether the schema has a reference anywhere, which makes an embedded `$id` matter. */
  readonly refs: boolean;
  /** Set while only the shape of a schema is checked: no refusals for keywords ajv would ignore there. */
  readonly lenient: boolean;
  /** Definitions waiting until the root is compiled: ajv checks their shape but compiles only those a `$ref` reaches. */
  readonly definitions: Array<[unknown, string]>;
  /** Compiles `schema` found at pointer `at`, once per schema object. */
  node(schema: unknown, at: string): Node;
  /** A schema ajv validates against its meta-schema but never compiles (an unused definition, `then` without `if`). */
  shapeOf(schema: unknown, at: string): void;
  /** Refuses the tool's schema with `message`. */
  fail(message: string): never;
  /** Refuses the schema for a bad `keyword` value at `at`, as ajv's meta-schema would. */
  invalid(at: string, keyword: string, problem: string): never;
  /** The unicode regular expression for `source`, compiled once per source. */
  pattern(source: unknown, at: string, keyword: string): RegExp;
  /** `schema[keyword]`, which must be a non-negative integer. */
  nonNegativeInteger(schema: Record<string, unknown>, keyword: string, at: string): number;
  /** `schema[keyword]`, which must be a number. */
  number(schema: Record<string, unknown>, keyword: string, at: string): number;
  /** `schema[keyword]` compiled, which must be a non-empty array of schemas. */
  schemaArray(schema: Record<string, unknown>, keyword: string, at: string): Node[];
  /** `value`, which must be an array of distinct strings. */
  stringArray(value: unknown, at: string, keyword: string): string[];
}
