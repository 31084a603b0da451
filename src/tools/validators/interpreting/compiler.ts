/**
 * The compiler driver: builds the walkable form of one tool's schema, checking it the way ajv's
 * meta-schema and code generator would, and hands each keyword to its compiler.
 *
 * @module
 */
import { hasRef } from "./ajv-rules.js";
import type { CompileContext } from "./compile-context.js";
import { isObject, pointer } from "./json-values.js";
import { checkAnnotations } from "./keywords/annotations.js";
import { compileArray } from "./keywords/arrays.js";
import { compileCombinators } from "./keywords/combinators.js";
import { compileNumber } from "./keywords/numbers.js";
import { compileObject } from "./keywords/objects.js";
import { compileRef } from "./keywords/refs.js";
import { compileString } from "./keywords/strings.js";
import { compileType, compileValues } from "./keywords/types-and-values.js";
import { emptyNode, type Node, type SchemaNode } from "./schema-node.js";

const DRAFT_07 = new Set(["http://json-schema.org/draft-07/schema", "http://json-schema.org/draft-07/schema#"]);

/** A schema the interpreter refuses at compile time. */
export class SchemaError extends Error {
  override name = "SchemaError";
}

/** Builds the walkable form of one tool's schema; one instance per `compile`. */
export class Compiler implements CompileContext {
  private readonly nodes = new Map<object, SchemaNode>();
  /** Schemas ajv only checks the shape of; never run, and kept apart so a shared object is still compiled fully where it is used. */
  private readonly shapeOnly = new Map<object, SchemaNode>();
  readonly refs: boolean;
  readonly definitions: Array<[unknown, string]> = [];
  lenient = false;

  constructor(
    readonly root: Record<string, unknown>,
    private readonly toolName: string,
  ) {
    this.refs = hasRef(root);
  }

  /** Compiles the root schema, then the shape of every definition, then refuses cycles. */
  compileRoot(): Node {
    const root = this.root;
    if ("$schema" in root && !DRAFT_07.has(root.$schema as string)) {
      this.invalid("#", "$schema", `must be the draft-07 meta-schema "http://json-schema.org/draft-07/schema#" or absent (got ${JSON.stringify(root.$schema)}); ajv rejects any other`);
    }
    const node = this.node(root, "#", true);
    for (let i = 0; i < this.definitions.length; i++) this.shapeOf(...this.definitions[i]!);
    this.checkCycles([...this.nodes.values()]);
    return node;
  }

  shapeOf(schema: unknown, at: string): void {
    const lenient = this.lenient;
    this.lenient = true;
    try {
      this.node(schema, at);
    } finally {
      this.lenient = lenient;
    }
  }

  fail(message: string): never {
    throw new SchemaError(`interpreting validator, tool "${this.toolName}": ${message}`);
  }

  invalid(at: string, keyword: string, problem: string): never {
    this.fail(`invalid schema: "${keyword}" at ${at} ${problem}. Fix the schema; ajv rejects it too.`);
  }

  pattern(source: unknown, at: string, keyword: string): RegExp {
    if (typeof source !== "string") this.invalid(at, keyword, "must be a string");
    try {
      return new RegExp(source, "u");
    } catch (error) {
      this.invalid(at, keyword, `is not a valid unicode regular expression (${(error as Error).message})`);
    }
  }

  nonNegativeInteger(schema: Record<string, unknown>, keyword: string, at: string): number {
    const value = schema[keyword];
    if (typeof value !== "number" || value % 1 || value < 0) this.invalid(at, keyword, `must be a non-negative integer (got ${JSON.stringify(value)})`);
    return value;
  }

  number(schema: Record<string, unknown>, keyword: string, at: string): number {
    const value = schema[keyword];
    if (typeof value !== "number") this.invalid(at, keyword, `must be a number (got ${JSON.stringify(value)})`);
    return value;
  }

  schemaArray(schema: Record<string, unknown>, keyword: string, at: string): Node[] {
    const value = schema[keyword];
    if (!Array.isArray(value) || value.length === 0) this.invalid(at, keyword, "must be a non-empty array of schemas");
    return value.map((item, i) => this.node(item, pointer(pointer(at, keyword), i)));
  }

  stringArray(value: unknown, at: string, keyword: string): string[] {
    if (!Array.isArray(value) || value.some((item) => typeof item !== "string")) this.invalid(at, keyword, "must be an array of strings");
    if (new Set(value).size !== value.length) this.invalid(at, keyword, "must not repeat a name");
    return value as string[];
  }

  node(schema: unknown, at: string, isRoot = false): Node {
    if (typeof schema === "boolean") return schema;
    if (!isObject(schema)) this.fail(`invalid schema at ${at}: expected a schema (an object or a boolean), got ${JSON.stringify(schema)}. Fix the schema; ajv rejects it too.`);
    const cache = this.lenient ? this.shapeOnly : this.nodes;
    const known = cache.get(schema);
    if (known) return known;
    // Annotations and types first: they compile no subschema, so nothing can meet this node half-built.
    checkAnnotations(this, schema, at, isRoot);
    const node = emptyNode(schema, compileType(this, schema, at));
    cache.set(schema, node);
    try {
      this.compileKeywords(node, schema, at);
    } catch (error) {
      // A half-built node must not be found again as if it were valid.
      cache.delete(schema);
      throw error;
    }
    return node;
  }

  /** After the type, in ajv's order: `$ref`, untyped keywords, then the number, string, array and object groups. */
  private compileKeywords(node: SchemaNode, schema: Record<string, unknown>, at: string): void {
    // A `$ref` runs first among the untyped keywords; alone (with annotations), it is all that runs.
    if (schema.$ref !== undefined) compileRef(this, node, schema.$ref, at);
    compileValues(this, node, schema, at);
    compileCombinators(this, node, schema, at);
    compileNumber(this, node, schema, at);
    compileString(this, node, schema, at);
    compileArray(this, node, schema, at);
    compileObject(this, node, schema, at);
  }

  /** ajv would recurse until the stack overflows; refuse the schema instead. */
  private checkCycles(reachable: readonly SchemaNode[]): void {
    const state = new Map<SchemaNode, 1 | 2>();
    const visit = (node: Node): void => {
      if (typeof node === "boolean") return;
      const seen = state.get(node);
      // A finished node, visited again, would find the same nodes and no cycle: skipping it saves the time.
      if (seen === 2) return;
      if (seen === 1) this.fail('invalid schema: a "$ref" cycle checks the same value against itself forever (e.g. "anyOf": [{ "$ref": "#" }]). Make each cycle go through "properties" or "items".');
      state.set(node, 1);
      for (const next of node.sameData) visit(next);
      state.set(node, 2);
    };
    for (const node of reachable) visit(node);
  }
}
