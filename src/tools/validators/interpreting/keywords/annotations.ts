/**
 * The keywords that check nothing in the data: annotations, `definitions`, and the newer-draft
 * keywords the interpreter refuses rather than ignores.
 *
 * @module
 */
import { VIA_AJV } from "../ajv-rules.js";
import type { CompileContext } from "../compile-context.js";
import { isObject, pointer } from "../json-values.js";

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

/** Checks the annotation keywords' shapes and queues `definitions` for a shape check after the root. */
export function checkAnnotations(ctx: CompileContext, schema: Record<string, unknown>, at: string, isRoot: boolean): void {
  for (const keyword of Object.keys(schema)) {
    const hint = UNSUPPORTED[keyword];
    if (hint !== undefined && !ctx.lenient) ctx.fail(`"${keyword}" at ${at} is not supported: ${hint}.`);
  }
  if ("id" in schema) ctx.invalid(at, "id", 'is the draft-04 spelling, which ajv refuses; use "$id"');
  for (const keyword of ["$id", "$comment", "title", "description", "format", "contentMediaType", "contentEncoding"]) {
    if (keyword in schema && typeof schema[keyword] !== "string") ctx.invalid(at, keyword, "must be a string");
  }
  if ("readOnly" in schema && typeof schema.readOnly !== "boolean") ctx.invalid(at, "readOnly", "must be a boolean");
  if ("examples" in schema && !Array.isArray(schema.examples)) ctx.invalid(at, "examples", "must be an array");
  if (!isRoot && "$id" in schema && ctx.refs && !ctx.lenient) {
    ctx.fail(`"$id" at ${at} is not supported: an embedded "$id" changes what "$ref" resolves to. Move the schema under "$defs" and refer to it with "#/$defs/...", or: ${VIA_AJV}`);
  }
  if ("definitions" in schema) {
    if (!isObject(schema.definitions)) ctx.invalid(at, "definitions", "must be an object of schemas");
    // ajv's meta-schema checks the shape of every definition, used or not.
    for (const name of Object.keys(schema.definitions)) ctx.definitions.push([schema.definitions[name], pointer(pointer(at, "definitions"), name)]);
  }
}
