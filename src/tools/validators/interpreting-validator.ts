/**
 * A validator that walks the JSON Schema on every call instead of generating code, so it runs
 * under a Content Security Policy without `'unsafe-eval'` (`script-src 'self'`).
 *
 * It reproduces rxagent's ajv configuration (`allErrors`, `coerceTypes: "array"`,
 * `useDefaults`, formats ignored, draft-07) keyword by keyword, including the order ajv checks
 * keywords in, because coercion and defaults change the data as they go and a different order
 * would give the tool different arguments. Where ajv's behaviour is odd but observable (a
 * one-element array unwrapped for a failed coercion is what later keywords of that schema see;
 * `anyOf` skipped entirely when a branch is `{}`) the interpreter does the same.
 *
 * @module
 */
import type { ArgumentValidator, ValidateArguments, ValidationIssue } from "./argument-validator.js";

type JsonType = "array" | "boolean" | "integer" | "null" | "number" | "object" | "string";
type Container = Record<string, unknown> | unknown[];
type Key = string | number;
type Issues = ValidationIssue[];

const JSON_TYPES: ReadonlySet<string> = new Set(["array", "boolean", "integer", "null", "number", "object", "string"]);

/**
 * The keywords ajv has rules for in this configuration. ajv treats a schema with none of them as
 * always valid and skips it (an `anyOf` with such a branch is not evaluated at all), so the
 * interpreter must tell the same schemas apart.
 */
const AJV_RULES: ReadonlySet<string> = new Set([
  "$comment", "id", "$ref", "maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum", "multipleOf", "maxLength", "minLength",
  "pattern", "maxProperties", "minProperties", "required", "maxItems", "minItems", "uniqueItems", "type", "nullable", "const", "enum",
  "not", "anyOf", "oneOf", "allOf", "if", "then", "else", "propertyNames", "additionalProperties", "dependencies", "properties",
  "patternProperties", "additionalItems", "items", "contains", "format",
]);

/** ajv inlines a referenced schema only when nothing inside it has one of these keys. */
const REF_KEYWORDS: ReadonlySet<string> = new Set(["$ref", "$recursiveRef", "$recursiveAnchor", "$dynamicRef", "$dynamicAnchor"]);

const DRAFT_07 = new Set(["http://json-schema.org/draft-07/schema", "http://json-schema.org/draft-07/schema#"]);

const VIA_AJV = 'Validate this tool with ajv (`validator: ajvValidator`, needs eval) or with precompiled standalone code (`precompiledValidator`).';
const IGNORED_BY_AJV = "rxagent's ajv configuration (draft-07) ignores it, so no validator would check it";

/** Keywords that validate data in newer drafts. ajv's draft-07 configuration skips them silently; the interpreter says so instead. */
const UNSUPPORTED: Readonly<Record<string, string>> = {
  prefixItems: `${IGNORED_BY_AJV}; write the draft-07 form, "items": [...] with "additionalItems"`,
  dependentRequired: `${IGNORED_BY_AJV}; write the draft-07 form, "dependencies": { "a": ["b"] }`,
  dependentSchemas: `${IGNORED_BY_AJV}; write the draft-07 form, "dependencies": { "a": { ...schema } }`,
  minContains: `${IGNORED_BY_AJV}; remove it or check the count in the tool`,
  maxContains: `${IGNORED_BY_AJV}; remove it or check the count in the tool`,
  unevaluatedProperties: `${IGNORED_BY_AJV}; use "additionalProperties"`,
  unevaluatedItems: `${IGNORED_BY_AJV}; use "additionalItems"`,
  $dynamicRef: `${IGNORED_BY_AJV}; use a local "$ref" such as "#/$defs/node"`,
  $recursiveRef: `${IGNORED_BY_AJV}; use a local "$ref" such as "#"`,
};

/** Bits of the evaluation mode, as ajv's `allErrors` and `compositeRule` flags. */
const ALL_ERRORS = 1;
/** Inside `anyOf` / `oneOf` / `not` / `if` / `contains` / `propertyNames` ajv applies no defaults. */
const COMPOSITE = 2;

type Step = (data: unknown, parent: Container | undefined, key: Key, path: string, mode: number, issues: Issues) => unknown;
type Node = boolean | SchemaNode;

interface SchemaNode {
  schema: Record<string, unknown>;
  /** Only `$ref` (and annotations): ajv runs the reference and nothing else, not even a type check. */
  refOnly: boolean;
  ref: Step | undefined;
  types: JsonType[];
  typeText: string;
  coerceTo: JsonType[];
  untyped: Step[];
  number: Step[];
  string: Step[];
  array: Step[] | undefined;
  object: Step[] | undefined;
  objectDefaults: Array<[string, unknown]>;
  tupleDefaults: Array<[number, unknown]>;
  /** Schemas evaluated on the same data; a cycle through these would never terminate. */
  sameData: Node[];
}

class SchemaError extends Error {
  override name = "SchemaError";
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function childPath(path: string, segment: Key): string {
  return path === "" ? String(segment) : `${path}.${segment}`;
}

function pointer(at: string, segment: Key): string {
  return `${at}/${String(segment).replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

function hasOwn(record: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(record, key) && record[key] !== undefined;
}

function matchesType(type: JsonType, value: unknown): boolean {
  switch (type) {
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    case "object":
      return isObject(value);
    case "integer":
      return typeof value === "number" && !(value % 1) && !Number.isNaN(value);
    default:
      return typeof value === type;
  }
}

function matchesAny(types: readonly JsonType[], value: unknown): boolean {
  for (const type of types) if (matchesType(type, value)) return true;
  return false;
}

/**
 * ajv's test of an unwrapped one-element array against the schema's types. With several types
 * its generated condition requires all of them at once (so only a single type, or `number` with
 * `integer`, can ever match) and the result decides whether scalar coercion runs next.
 */
function unwrappedMatches(types: readonly JsonType[], value: unknown): boolean {
  if (types.length === 1) return matchesType(types[0]!, value);
  const remaining = new Set(types);
  let matches = true;
  if (remaining.has("array") && remaining.has("object")) {
    matches = remaining.has("null") ? typeof value !== "object" : !value || typeof value !== "object";
    remaining.delete("null");
    remaining.delete("array");
    remaining.delete("object");
  }
  if (remaining.has("number")) remaining.delete("integer");
  for (const type of remaining) matches = matches && matchesType(type, value);
  return matches;
}

/** Code points, not UTF-16 units, as ajv's `ucs2length` counts them. */
function codePointLength(text: string): number {
  let length = 0;
  for (let pos = 0; pos < text.length; length++) {
    const unit = text.charCodeAt(pos++);
    if (unit >= 0xd800 && unit <= 0xdbff && pos < text.length && (text.charCodeAt(pos) & 0xfc00) === 0xdc00) pos++;
  }
  return length;
}

/** Deep equality of JSON values, as ajv's `equal` (fast-deep-equal) decides it. */
function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a && b && typeof a === "object" && typeof b === "object") {
    if (Array.isArray(a) !== Array.isArray(b) || (a as object).constructor !== (b as object).constructor) return false;
    if (Array.isArray(a)) {
      const other = b as unknown[];
      if (a.length !== other.length) return false;
      for (let i = a.length; i-- !== 0; ) if (!equal(a[i], other[i])) return false;
      return true;
    }
    const left = a as Record<string, unknown>;
    const right = b as Record<string, unknown>;
    const keys = Object.keys(left);
    if (keys.length !== Object.keys(right).length) return false;
    for (const key of keys) if (!Object.prototype.hasOwnProperty.call(right, key) || !equal(left[key], right[key])) return false;
    return true;
  }
  return a !== a && b !== b;
}

function alwaysValid(schema: unknown): boolean {
  if (typeof schema === "boolean") return schema;
  for (const key in schema as object) if (AJV_RULES.has(key)) return false;
  return true;
}

function hasRef(schema: unknown): boolean {
  for (const key in schema as object) {
    if (REF_KEYWORDS.has(key)) return true;
    const value = (schema as Record<string, unknown>)[key];
    if (Array.isArray(value) ? value.some(hasRef) : typeof value === "object" && value !== null && hasRef(value)) return true;
  }
  return false;
}

/** A default is written into the data as a fresh copy each time, as ajv's generated literal is. */
function copyOf(value: unknown): unknown {
  return typeof value === "object" && value !== null ? JSON.parse(JSON.stringify(value)) : value;
}

/** The schema's property names ajv looks at: `__proto__` is never one. */
function schemaKeys(map: unknown): string[] {
  return isObject(map) ? Object.keys(map).filter((key) => key !== "__proto__") : [];
}

/**
 * ajv's `coerceTypes: "array"`: a one-element array is unwrapped first (and stays unwrapped for
 * the rest of this schema even when no coercion then applies), then the first target type in
 * the schema's order that has a rule for the value wins.
 */
function coerce(node: SchemaNode, data: unknown, parent: Container | undefined, key: Key, path: string, issues: Issues): unknown {
  let value = data;
  let coerced: unknown = undefined;
  if (node.coerceTo.length > 0) {
    if (Array.isArray(value) && value.length === 1) {
      value = value[0];
      if (unwrappedMatches(node.types, value)) coerced = value;
    }
    const kind = typeof value;
    for (let i = 0; coerced === undefined && i < node.coerceTo.length; i++) {
      switch (node.coerceTo[i]) {
        case "string":
          if (kind === "number" || kind === "boolean") coerced = `${value as number | boolean}`;
          else if (value === null) coerced = "";
          break;
        case "number":
        case "integer": {
          const numeric = kind === "string" && value !== "" && !Number.isNaN(Number(value));
          const whole = node.coerceTo[i] === "number" || !(Number(value) % 1);
          if (kind === "boolean" || value === null || (numeric && whole)) coerced = Number(value);
          break;
        }
        case "boolean":
          if (value === "false" || value === 0 || value === null) coerced = false;
          else if (value === "true" || value === 1) coerced = true;
          break;
        case "null":
          if (value === "" || value === 0 || value === false) coerced = null;
          break;
        case "array":
          if (kind === "string" || kind === "number" || kind === "boolean" || value === null) coerced = [value];
          break;
      }
    }
  }
  if (coerced === undefined) {
    issues.push({ path, message: `must be ${node.typeText}` });
    return value;
  }
  if (parent !== undefined) (parent as Record<Key, unknown>)[key] = coerced;
  return coerced;
}

function runSteps(steps: readonly Step[], data: unknown, parent: Container | undefined, key: Key, path: string, mode: number, issues: Issues): unknown {
  let value = data;
  for (const step of steps) {
    const before = issues.length;
    value = step(value, parent, key, path, mode, issues);
    if (!(mode & ALL_ERRORS) && issues.length > before) break;
  }
  return value;
}

/** Checks `data` against `node`, coercing in place; returns what ajv's local `data` variable holds afterwards. */
function run(node: Node, data: unknown, parent: Container | undefined, key: Key, path: string, mode: number, issues: Issues): unknown {
  if (node === true) return data;
  if (node === false) {
    issues.push({ path, message: "boolean schema is false" });
    return data;
  }
  if (node.refOnly) return node.ref!(data, parent, key, path, mode, issues);
  const start = issues.length;
  // Without allErrors (inside `not` / `if`) ajv still runs the untyped keywords after a type
  // error, but stops before the next group once anything failed.
  const failFast = !(mode & ALL_ERRORS);
  let value = data;
  // `type: "object"` alone, with object keywords, is checked where those keywords run, after
  // the untyped ones (which may unwrap a one-element array first), as ajv orders it.
  const objectCheckedLate = node.object !== undefined && node.types.length === 1 && node.types[0] === "object";
  if (node.types.length > 0 && !objectCheckedLate && !matchesAny(node.types, value)) value = coerce(node, value, parent, key, path, issues);
  if (node.untyped.length > 0) value = runSteps(node.untyped, value, parent, key, path, mode, issues);
  if (failFast && issues.length > start) return value;
  if (node.number.length > 0 && typeof value === "number") {
    runSteps(node.number, value, parent, key, path, mode, issues);
    if (failFast && issues.length > start) return value;
  }
  if (node.string.length > 0 && typeof value === "string") {
    runSteps(node.string, value, parent, key, path, mode, issues);
    if (failFast && issues.length > start) return value;
  }
  if (node.array && Array.isArray(value)) {
    if (!(mode & COMPOSITE)) for (const [index, fallback] of node.tupleDefaults) if (value[index] === undefined) value[index] = copyOf(fallback);
    runSteps(node.array, value, parent, key, path, mode, issues);
    if (failFast && issues.length > start) return value;
  }
  if (node.object && isObject(value)) {
    if (!(mode & COMPOSITE)) for (const [name, fallback] of node.objectDefaults) if (!hasOwn(value, name)) value[name] = copyOf(fallback);
    runSteps(node.object, value, parent, key, path, mode, issues);
  } else if (objectCheckedLate) {
    issues.push({ path, message: "must be object" });
  }
  return value;
}

/** Builds the walkable form of one tool's schema, checking it the way ajv's meta-schema and code generator would. */
class Compiler {
  private readonly nodes = new Map<object, SchemaNode>();
  /** Schemas ajv only checks the shape of; never run, and kept apart so a shared object is still compiled fully where it is used. */
  private readonly shapeOnly = new Map<object, SchemaNode>();
  private readonly patterns = new Map<string, RegExp>();
  private readonly refs: boolean;
  /** Definitions wait until the root is compiled: ajv checks their shape but compiles only those a `$ref` reaches. */
  private readonly definitions: Array<[unknown, string]> = [];
  private lenient = false;

  constructor(
    private readonly root: Record<string, unknown>,
    private readonly toolName: string,
  ) {
    this.refs = hasRef(root);
  }

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

  /** A schema ajv validates against its meta-schema but never compiles (an unused definition, `then` without `if`). */
  private shapeOf(schema: unknown, at: string): void {
    const lenient = this.lenient;
    this.lenient = true;
    try {
      this.node(schema, at);
    } finally {
      this.lenient = lenient;
    }
  }

  private fail(message: string): never {
    throw new SchemaError(`interpreting validator, tool "${this.toolName}": ${message}`);
  }

  private invalid(at: string, keyword: string, problem: string): never {
    this.fail(`invalid schema: "${keyword}" at ${at} ${problem}. Fix the schema; ajv rejects it too.`);
  }

  private pattern(source: unknown, at: string, keyword: string): RegExp {
    if (typeof source !== "string") this.invalid(at, keyword, "must be a string");
    let regExp = this.patterns.get(source);
    if (!regExp) {
      try {
        regExp = new RegExp(source, "u");
      } catch (error) {
        this.invalid(at, keyword, `is not a valid unicode regular expression (${(error as Error).message})`);
      }
      this.patterns.set(source, regExp);
    }
    return regExp;
  }

  private nonNegativeInteger(schema: Record<string, unknown>, keyword: string, at: string): number {
    const value = schema[keyword];
    if (typeof value !== "number" || value % 1 || value < 0) this.invalid(at, keyword, `must be a non-negative integer (got ${JSON.stringify(value)})`);
    return value;
  }

  private number(schema: Record<string, unknown>, keyword: string, at: string): number {
    const value = schema[keyword];
    if (typeof value !== "number") this.invalid(at, keyword, `must be a number (got ${JSON.stringify(value)})`);
    return value;
  }

  private schemaArray(schema: Record<string, unknown>, keyword: string, at: string): Node[] {
    const value = schema[keyword];
    if (!Array.isArray(value) || value.length === 0) this.invalid(at, keyword, "must be a non-empty array of schemas");
    return value.map((item, i) => this.node(item, pointer(pointer(at, keyword), i)));
  }

  private stringArray(value: unknown, at: string, keyword: string): string[] {
    if (!Array.isArray(value) || value.some((item) => typeof item !== "string")) this.invalid(at, keyword, "must be an array of strings");
    if (new Set(value).size !== value.length) this.invalid(at, keyword, "must not repeat a name");
    return value as string[];
  }

  private node(schema: unknown, at: string, isRoot = false): Node {
    if (typeof schema === "boolean") return schema;
    if (!isObject(schema)) this.fail(`invalid schema at ${at}: expected a schema (an object or a boolean), got ${JSON.stringify(schema)}. Fix the schema; ajv rejects it too.`);
    const cache = this.lenient ? this.shapeOnly : this.nodes;
    const known = this.nodes.get(schema) ?? cache.get(schema);
    if (known) return known;
    const node: SchemaNode = {
      schema,
      refOnly: false,
      ref: undefined,
      types: [],
      typeText: "",
      coerceTo: [],
      untyped: [],
      number: [],
      string: [],
      array: undefined,
      object: undefined,
      objectDefaults: [],
      tupleDefaults: [],
      sameData: [],
    };
    cache.set(schema, node);
    try {
      this.checkAnnotations(schema, at, isRoot);
      this.compileType(node, schema, at);
      if (schema.$ref !== undefined) {
        node.ref = this.compileRef(node, schema.$ref, at);
        node.refOnly = !Object.keys(schema).some((key) => key !== "$ref" && AJV_RULES.has(key));
        if (node.refOnly) return node;
        node.untyped.push(node.ref);
      }
      this.compileUntyped(node, schema, at);
      this.compileNumber(node, schema, at);
      this.compileString(node, schema, at);
      this.compileArray(node, schema, at);
      this.compileObject(node, schema, at);
    } catch (error) {
      // A half-built node must not be found again as if it were valid.
      cache.delete(schema);
      throw error;
    }
    return node;
  }

  private checkAnnotations(schema: Record<string, unknown>, at: string, isRoot: boolean): void {
    for (const keyword of Object.keys(schema)) {
      const hint = UNSUPPORTED[keyword];
      if (hint !== undefined && !this.lenient) this.fail(`"${keyword}" at ${at} is not supported: ${hint}.`);
    }
    if ("id" in schema) this.invalid(at, "id", 'is the draft-04 spelling, which ajv refuses; use "$id"');
    for (const keyword of ["$id", "$comment", "title", "description", "format", "contentMediaType", "contentEncoding"]) {
      if (keyword in schema && typeof schema[keyword] !== "string") this.invalid(at, keyword, "must be a string");
    }
    if ("readOnly" in schema && typeof schema.readOnly !== "boolean") this.invalid(at, "readOnly", "must be a boolean");
    if ("examples" in schema && !Array.isArray(schema.examples)) this.invalid(at, "examples", "must be an array");
    if (!isRoot && "$id" in schema && this.refs && !this.lenient) {
      this.fail(`"$id" at ${at} is not supported: an embedded "$id" changes what "$ref" resolves to. Move the schema under "$defs" and refer to it with "#/$defs/...", or: ${VIA_AJV}`);
    }
    if ("definitions" in schema) {
      if (!isObject(schema.definitions)) this.invalid(at, "definitions", "must be an object of schemas");
      // ajv's meta-schema checks the shape of every definition, used or not.
      for (const name of Object.keys(schema.definitions)) this.definitions.push([schema.definitions[name], pointer(pointer(at, "definitions"), name)]);
    }
  }

  private compileType(node: SchemaNode, schema: Record<string, unknown>, at: string): void {
    const type = schema.type;
    let types: JsonType[] = [];
    if (type !== undefined) {
      const list = Array.isArray(type) ? type : [type];
      const allowed = [...JSON_TYPES].join(", ");
      if (list.length === 0) this.invalid(at, "type", "must not be an empty array");
      for (const item of list) {
        if (typeof item !== "string" || !JSON_TYPES.has(item)) this.invalid(at, "type", `must be one of ${allowed}, or an array of them (got ${JSON.stringify(item)})`);
      }
      if (new Set(list).size !== list.length) this.invalid(at, "type", "must not repeat a type");
      types = [...(list as JsonType[])];
    }
    if ("nullable" in schema) {
      if (typeof schema.nullable !== "boolean") this.invalid(at, "nullable", "must be a boolean");
      if (types.includes("null")) {
        if (schema.nullable === false) this.invalid(at, "nullable", 'is false but "type" allows null');
      } else {
        if (types.length === 0) this.invalid(at, "nullable", 'cannot be used without "type"');
        if (schema.nullable) types.push("null");
      }
    }
    node.types = types;
    node.typeText = Array.isArray(type) ? type.join(",") : String(type);
    node.coerceTo = types.filter((t) => t !== "object");
  }

  private compileRef(node: SchemaNode, ref: unknown, at: string): Step {
    if (typeof ref !== "string") this.invalid(at, "$ref", "must be a string");
    if (!this.lenient) return this.resolveRef(node, ref, at);
    // ajv never resolves a reference in a schema it does not compile; neither does the interpreter.
    try {
      return this.resolveRef(node, ref, at);
    } catch {
      return (data) => data;
    }
  }

  private resolveRef(node: SchemaNode, ref: string, at: string): Step {
    const seen = new Set<string>();
    let target: unknown = this.root;
    let current = ref;
    let toRoot = false;
    // ajv follows a chain of schemas that are only a `$ref` and inlines the end of it.
    for (;;) {
      if (seen.has(current)) this.invalid(at, "$ref", `"${ref}" only refers to itself`);
      seen.add(current);
      target = this.resolve(current, at, ref);
      toRoot = target === this.root;
      if (toRoot || !isObject(target) || target.$ref === undefined || Object.keys(target).some((key) => key !== "$ref" && AJV_RULES.has(key))) break;
      current = target.$ref as string;
      if (typeof current !== "string") break;
    }
    const targetNode = this.node(target, current);
    if (!toRoot && !hasRef(target)) {
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

  private resolve(ref: string, at: string, original: string): unknown {
    if (!ref.startsWith("#")) {
      this.fail(`"$ref": "${original}" at ${at} is not supported: only references inside the tool's own schema ("#", "#/$defs/...", "#/definitions/...") are. Put the referenced schema under "$defs", or: ${VIA_AJV}`);
    }
    if (ref === "#" || ref === "#/") return this.root;
    if (ref[1] !== "/") {
      this.fail(`"$ref": "${original}" at ${at} is not supported: anchors ("#name") are not resolved, only JSON pointers such as "#/$defs/name". ${VIA_AJV}`);
    }
    let target: unknown = this.root;
    for (const part of ref.slice(2).split("/")) {
      let name: string;
      try {
        name = decodeURIComponent(part).replace(/~1/g, "/").replace(/~0/g, "~");
      } catch {
        this.invalid(at, "$ref", `"${original}" is not a valid URI fragment`);
      }
      target = typeof target === "object" && target !== null ? (target as Record<string, unknown>)[name] : undefined;
      if (target === undefined) this.invalid(at, "$ref", `"${original}" does not resolve to anything in the schema`);
    }
    return target;
  }

  private compileUntyped(node: SchemaNode, schema: Record<string, unknown>, at: string): void {
    if ("const" in schema) {
      const expected = schema.const;
      node.untyped.push((data, _p, _k, path, _m, issues) => {
        if (!equal(data, expected)) issues.push({ path, message: "must be equal to constant" });
        return data;
      });
    }
    if ("enum" in schema) {
      const allowed = schema.enum;
      if (!Array.isArray(allowed) || allowed.length === 0) this.invalid(at, "enum", "must be a non-empty array");
      if (allowed.some((value, i) => allowed.findIndex((other) => equal(value, other)) !== i)) this.invalid(at, "enum", "must not repeat a value");
      const message = `must be one of ${JSON.stringify(allowed)}`;
      node.untyped.push((data, _p, _k, path, _m, issues) => {
        if (!allowed.some((value) => equal(data, value))) issues.push({ path, message });
        return data;
      });
    }
    if ("not" in schema) {
      const not = this.node(schema.not, pointer(at, "not"));
      node.sameData.push(not);
      const notAlwaysValid = alwaysValid(schema.not);
      node.untyped.push((data, parent, key, path, mode, issues) => {
        let value = data;
        let valid = true;
        if (!notAlwaysValid) {
          const before = issues.length;
          value = run(not, data, parent, key, path, (mode & ~ALL_ERRORS) | COMPOSITE, issues);
          valid = issues.length === before;
          issues.length = before;
        }
        if (valid) issues.push({ path, message: "must NOT be valid" });
        return value;
      });
    }
    if ("anyOf" in schema) {
      // ajv skips the whole anyOf (no coercion in any branch) when one branch is always valid,
      // and so never compiles the others.
      const skipped = Array.isArray(schema.anyOf) && schema.anyOf.some(alwaysValid);
      const branches = skipped ? [] : this.schemaArray(schema, "anyOf", at);
      if (skipped) (schema.anyOf as unknown[]).forEach((branch, i) => this.shapeOf(branch, pointer(pointer(at, "anyOf"), i)));
      node.sameData.push(...branches);
      if (!skipped) {
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
    }
    if ("oneOf" in schema) {
      const branches = this.schemaArray(schema, "oneOf", at);
      node.sameData.push(...branches);
      const skip = (schema.oneOf as unknown[]).map(alwaysValid);
      node.untyped.push((data, parent, key, path, mode, issues) => {
        const start = issues.length;
        let value = data;
        let valid = false;
        for (let i = 0; i < branches.length; i++) {
          let passed = true;
          if (!skip[i]) {
            const before = issues.length;
            value = run(branches[i]!, value, parent, key, path, mode | COMPOSITE, issues);
            passed = issues.length === before;
          }
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
    if ("allOf" in schema) {
      const branches = this.schemaArray(schema, "allOf", at).filter((_, i) => !alwaysValid((schema.allOf as unknown[])[i]));
      node.sameData.push(...branches);
      const steps = branches.map(toStep);
      if (steps.length > 0) node.untyped.push((data, parent, key, path, mode, issues) => runSteps(steps, data, parent, key, path, mode, issues));
    }
    const hasThen = "then" in schema && !alwaysValid(schema.then);
    const hasElse = "else" in schema && !alwaysValid(schema.else);
    const used = "if" in schema && (hasThen || hasElse);
    const clause = (keyword: "if" | "then" | "else"): Node | undefined => {
      if (!(keyword in schema)) return undefined;
      if (used) return this.node(schema[keyword], pointer(at, keyword));
      this.shapeOf(schema[keyword], pointer(at, keyword));
      return undefined;
    };
    const ifNode = clause("if");
    const thenNode = clause("then");
    const elseNode = clause("else");
    if (ifNode !== undefined) {
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
  }

  private compileNumber(node: SchemaNode, schema: Record<string, unknown>, at: string): void {
    const limits: Array<[string, string, (value: number, limit: number) => boolean]> = [
      ["maximum", "<=", (v, l) => v <= l],
      ["minimum", ">=", (v, l) => v >= l],
      ["exclusiveMaximum", "<", (v, l) => v < l],
      ["exclusiveMinimum", ">", (v, l) => v > l],
    ];
    for (const [keyword, comparison, ok] of limits) {
      if (!(keyword in schema)) continue;
      const limit = this.number(schema, keyword, at);
      const message = `must be ${comparison} ${limit}`;
      node.number.push((data, _p, _k, path, _m, issues) => {
        if (!ok(data as number, limit)) issues.push({ path, message });
        return data;
      });
    }
    if ("multipleOf" in schema) {
      const divisor = this.number(schema, "multipleOf", at);
      if (!(divisor > 0)) this.invalid(at, "multipleOf", "must be greater than 0");
      const message = `must be multiple of ${divisor}`;
      node.number.push((data, _p, _k, path, _m, issues) => {
        // ajv's test, floating point error included: 0.3 is not a multiple of 0.1.
        const ratio = (data as number) / divisor;
        if (ratio !== parseInt(String(ratio), 10)) issues.push({ path, message });
        return data;
      });
    }
  }

  private compileString(node: SchemaNode, schema: Record<string, unknown>, at: string): void {
    if ("maxLength" in schema) {
      const limit = this.nonNegativeInteger(schema, "maxLength", at);
      const message = `must NOT have more than ${limit} characters`;
      node.string.push((data, _p, _k, path, _m, issues) => {
        if (codePointLength(data as string) > limit) issues.push({ path, message });
        return data;
      });
    }
    if ("minLength" in schema) {
      const limit = this.nonNegativeInteger(schema, "minLength", at);
      const message = `must NOT have fewer than ${limit} characters`;
      node.string.push((data, _p, _k, path, _m, issues) => {
        if (codePointLength(data as string) < limit) issues.push({ path, message });
        return data;
      });
    }
    if ("pattern" in schema) {
      const regExp = this.pattern(schema.pattern, at, "pattern");
      const message = `must match pattern "${schema.pattern as string}"`;
      node.string.push((data, _p, _k, path, _m, issues) => {
        if (!regExp.test(data as string)) issues.push({ path, message });
        return data;
      });
    }
  }

  private compileArray(node: SchemaNode, schema: Record<string, unknown>, at: string): void {
    const steps: Step[] = [];
    let used = false;
    for (const [keyword, comparison, tooMany] of [
      ["maxItems", "more", true],
      ["minItems", "fewer", false],
    ] as const) {
      if (!(keyword in schema)) continue;
      used = true;
      const limit = this.nonNegativeInteger(schema, keyword, at);
      const message = `must NOT have ${comparison} than ${limit} items`;
      steps.push((data, _p, _k, path, _m, issues) => {
        const length = (data as unknown[]).length;
        if (tooMany ? length > limit : length < limit) issues.push({ path, message });
        return data;
      });
    }
    const items = schema.items;
    if (Array.isArray(items)) {
      if (items.length === 0) this.invalid(at, "items", "must be a schema or a non-empty array of schemas");
      const tuple = items.map((item, i) => this.node(item, pointer(pointer(at, "items"), i)));
      node.tupleDefaults = items.flatMap((item, i): Array<[number, unknown]> => (isObject(item) && item.default !== undefined ? [[i, item.default]] : []));
      used = true;
      if ("additionalItems" in schema) {
        const extra = this.node(schema.additionalItems, pointer(at, "additionalItems"));
        if (extra === false) {
          const message = `must NOT have more than ${tuple.length} items`;
          steps.push((data, _p, _k, path, _m, issues) => {
            if ((data as unknown[]).length > tuple.length) issues.push({ path, message });
            return data;
          });
        } else if (!alwaysValid(schema.additionalItems)) {
          steps.push(this.eachItem(extra, tuple.length));
        }
      }
      const checks = tuple.map((item, i) => (alwaysValid(items[i]) ? undefined : item));
      steps.push((data, _p, _k, path, mode, issues) => {
        const array = data as unknown[];
        const length = array.length;
        for (let i = 0; i < checks.length; i++) {
          const check = checks[i];
          if (check === undefined || length <= i) continue;
          const before = issues.length;
          run(check, array[i], array, i, childPath(path, i), mode, issues);
          if (!(mode & ALL_ERRORS) && issues.length > before) break;
        }
        return data;
      });
    } else if (items !== undefined) {
      used = true;
      const each = this.node(items, pointer(at, "items"));
      if (!alwaysValid(items)) steps.push(this.eachItem(each, 0));
    } else if ("additionalItems" in schema) {
      this.shapeOf(schema.additionalItems, pointer(at, "additionalItems"));
    }
    if ("contains" in schema) {
      used = true;
      const contains = this.node(schema.contains, pointer(at, "contains"));
      const always = alwaysValid(schema.contains);
      const message = "must contain at least 1 valid item(s)";
      steps.push((data, _p, _k, path, mode, issues) => {
        const array = data as unknown[];
        const start = issues.length;
        let found = always && array.length >= 1;
        for (let i = 0; !always && !found && i < array.length; i++) {
          const before = issues.length;
          run(contains, array[i], array, i, childPath(path, i), mode | COMPOSITE, issues);
          found = issues.length === before;
        }
        if (found) issues.length = start;
        else issues.push({ path, message });
        return data;
      });
    }
    if ("uniqueItems" in schema) {
      used = true;
      if (typeof schema.uniqueItems !== "boolean") this.invalid(at, "uniqueItems", "must be a boolean");
      if (schema.uniqueItems) steps.push(this.uniqueItems(schema));
    }
    if (used) node.array = steps;
  }

  private eachItem(each: Node, from: number): Step {
    return (data, _p, _k, path, mode, issues) => {
      const array = data as unknown[];
      const length = array.length;
      for (let i = from; i < length; i++) {
        const before = issues.length;
        run(each, array[i], array, i, childPath(path, i), mode, issues);
        if (!(mode & ALL_ERRORS) && issues.length > before) break;
      }
      return data;
    };
  }

  /** ajv reports the last duplicate pair it meets scanning from the end, and names the pair differently for scalar item types. */
  private uniqueItems(schema: Record<string, unknown>): Step {
    const items = schema.items;
    const itemTypes: JsonType[] = [];
    if (isObject(items) && items.type !== undefined) itemTypes.push(...((Array.isArray(items.type) ? items.type : [items.type]) as JsonType[]));
    if (isObject(items) && items.nullable === true && itemTypes.length > 0 && !itemTypes.includes("null")) itemTypes.push("null");
    const scalar = itemTypes.length > 0 && !itemTypes.some((t) => t === "object" || t === "array");
    const report = (path: string, issues: Issues, j: number, i: number): void => {
      issues.push({ path, message: `must NOT have duplicate items (items ## ${j} and ${i} are identical)` });
    };
    return (data, _p, _k, path, _m, issues) => {
      const array = data as unknown[];
      if (array.length <= 1) return data;
      if (scalar) {
        const seen = new Map<unknown, number>();
        for (let i = array.length; i--; ) {
          const item = array[i];
          if (!matchesAny(itemTypes, item)) continue;
          const later = seen.get(item);
          if (later !== undefined) {
            report(path, issues, later, i);
            break;
          }
          seen.set(item, i);
        }
        return data;
      }
      outer: for (let i = array.length; i--; ) {
        for (let j = i; j--; ) {
          if (equal(array[i], array[j])) {
            report(path, issues, j, i);
            break outer;
          }
        }
      }
      return data;
    };
  }

  private compileObject(node: SchemaNode, schema: Record<string, unknown>, at: string): void {
    const steps: Step[] = [];
    let used = false;
    for (const [keyword, comparison, tooMany] of [
      ["maxProperties", "more", true],
      ["minProperties", "fewer", false],
    ] as const) {
      if (!(keyword in schema)) continue;
      used = true;
      const limit = this.nonNegativeInteger(schema, keyword, at);
      const message = `must NOT have ${comparison} than ${limit} properties`;
      steps.push((data, _p, _k, path, _m, issues) => {
        const count = Object.keys(data as object).length;
        if (tooMany ? count > limit : count < limit) issues.push({ path, message });
        return data;
      });
    }
    if ("required" in schema) {
      used = true;
      const required = this.stringArray(schema.required, at, "required");
      steps.push((data, _p, _k, path, mode, issues) => {
        for (const name of required) {
          if (hasOwn(data as Record<string, unknown>, name)) continue;
          issues.push({ path: childPath(path, name), message: "is required" });
          if (!(mode & ALL_ERRORS)) break;
        }
        return data;
      });
    }
    if ("propertyNames" in schema) {
      used = true;
      const names = this.node(schema.propertyNames, pointer(at, "propertyNames"));
      if (!alwaysValid(schema.propertyNames)) {
        steps.push((data, _p, _k, path, mode, issues) => {
          for (const name of Object.keys(data as object)) {
            const before = issues.length;
            // The name is checked at the object's path; there is nowhere to write a coerced name.
            run(names, name, undefined, name, path, mode | COMPOSITE, issues);
            if (issues.length > before) {
              issues.push({ path, message: "property name must be valid" });
              if (!(mode & ALL_ERRORS)) break;
            }
          }
          return data;
        });
      }
    }
    const properties = schema.properties;
    if (properties !== undefined && !isObject(properties)) this.invalid(at, "properties", "must be an object of schemas");
    const patternProperties = schema.patternProperties;
    if (patternProperties !== undefined && !isObject(patternProperties)) this.invalid(at, "patternProperties", "must be an object of schemas");
    const declared = schemaKeys(properties);
    const patterns = schemaKeys(patternProperties).map((source) => ({
      regExp: this.pattern(source, pointer(at, "patternProperties"), `patternProperties: ${source}`),
      node: this.node(patternProperties![source], pointer(pointer(at, "patternProperties"), source)),
      always: alwaysValid(patternProperties![source]),
    }));
    if ("additionalProperties" in schema) {
      used = true;
      const extra = this.node(schema.additionalProperties, pointer(at, "additionalProperties"));
      if (!alwaysValid(schema.additionalProperties)) {
        const known = new Set(declared);
        steps.push((data, _p, _k, path, mode, issues) => {
          const record = data as Record<string, unknown>;
          for (const name of Object.keys(record)) {
            if (known.has(name) || patterns.some((p) => p.regExp.test(name))) continue;
            const before = issues.length;
            if (extra === false) issues.push({ path: childPath(path, name), message: "is not allowed" });
            else run(extra, record[name], record, name, childPath(path, name), mode, issues);
            if (!(mode & ALL_ERRORS) && issues.length > before) break;
          }
          return data;
        });
      }
    }
    if ("dependencies" in schema) {
      used = true;
      const dependencies = schema.dependencies;
      if (!isObject(dependencies)) this.invalid(at, "dependencies", "must be an object");
      const propertyDeps: Array<[string, string[]]> = [];
      const schemaDeps: Array<[string, Node]> = [];
      for (const name of Object.keys(dependencies)) {
        const value = dependencies[name];
        if (Array.isArray(value)) propertyDeps.push([name, this.stringArray(value, pointer(at, "dependencies"), name)]);
        else {
          const dep = this.node(value, pointer(pointer(at, "dependencies"), name));
          node.sameData.push(dep);
          if (!alwaysValid(value)) schemaDeps.push([name, dep]);
        }
      }
      steps.push((data, parent, key, path, mode, issues) => {
        let value = data;
        for (const [name, deps] of propertyDeps) {
          if (deps.length === 0 || !hasOwn(value as Record<string, unknown>, name)) continue;
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
      });
    }
    if (properties !== undefined) {
      used = true;
      const checks: Array<[string, Node]> = [];
      for (const name of declared) {
        const child = this.node(properties[name], pointer(pointer(at, "properties"), name));
        const propertySchema = properties[name];
        if (isObject(propertySchema) && propertySchema.default !== undefined) node.objectDefaults.push([name, propertySchema.default]);
        if (!alwaysValid(propertySchema)) checks.push([name, child]);
      }
      if (checks.length > 0) {
        steps.push((data, _p, _k, path, mode, issues) => {
          const record = data as Record<string, unknown>;
          for (const [name, child] of checks) {
            if (!hasOwn(record, name)) continue;
            const before = issues.length;
            run(child, record[name], record, name, childPath(path, name), mode, issues);
            if (!(mode & ALL_ERRORS) && issues.length > before) break;
          }
          return data;
        });
      }
    }
    if (patternProperties !== undefined) {
      used = true;
      const checked = patterns.filter((p) => !p.always);
      if (checked.length > 0) {
        steps.push((data, _p, _k, path, mode, issues) => {
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
        });
      }
    }
    if (used) node.object = steps;
  }

  /** ajv would recurse until the stack overflows; refuse the schema instead. */
  private checkCycles(reachable: readonly SchemaNode[]): void {
    const state = new Map<SchemaNode, 1 | 2>();
    const visit = (node: Node): void => {
      if (typeof node === "boolean") return;
      const seen = state.get(node);
      if (seen === 2) return;
      if (seen === 1) this.fail('invalid schema: a "$ref" cycle checks the same value against itself forever (e.g. "anyOf": [{ "$ref": "#" }]). Make each cycle go through "properties" or "items".');
      state.set(node, 1);
      for (const next of node.sameData) visit(next);
      state.set(node, 2);
    };
    for (const node of reachable) visit(node);
  }
}

function toStep(node: Node): Step {
  return (data, parent, key, path, mode, issues) => run(node, data, parent, key, path, mode, issues);
}

const compiled = new WeakMap<object, ValidateArguments>();

/**
 * Checks tool arguments by walking the schema at call time: no `eval`, no `new Function`, so it
 * works under `Content-Security-Policy: script-src 'self'`. Results, coercions, defaults and
 * messages match rxagent's ajv configuration on the draft-07 keywords; `compile` throws for a
 * schema ajv would reject and for keywords it cannot check (newer-draft keywords, remote `$ref`).
 *
 * @example
 * ```ts
 * import { Agent, interpretingValidator } from "rxagent";
 * const agent = new Agent({ streamFn, validator: interpretingValidator });
 * ```
 */
export const interpretingValidator: ArgumentValidator = {
  name: "interpreting",
  compile(schema: object, toolName: string): ValidateArguments {
    let validate = compiled.get(schema);
    if (!validate) {
      if (!isObject(schema)) throw new SchemaError(`interpreting validator, tool "${toolName}": the parameters schema must be an object, got ${JSON.stringify(schema)}.`);
      const root = new Compiler(schema, toolName).compileRoot();
      validate = (args) => {
        const issues: Issues = [];
        run(root, args, undefined, "", "", ALL_ERRORS, issues);
        return issues.length > 0 ? issues : undefined;
      };
      compiled.set(schema, validate);
    }
    return validate;
  },
};
