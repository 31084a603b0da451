/**
 * Which schemas ajv treats as always valid and which it inlines, as its code generator decides.
 *
 * @module
 */

/**
 * The keywords ajv has rules for in this configuration. ajv treats a schema with none of them as
 * always valid and skips it (an `anyOf` with such a branch is not evaluated at all), so the
 * interpreter must tell the same schemas apart.
 */
// Not listed though ajv has rules for them: `id` (the interpreter refuses it, as ajv does) and
// `nullable` (never without `type`, which is listed).
export const AJV_RULES: ReadonlySet<string> = new Set([
  "$comment", "$ref", "maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum", "multipleOf", "maxLength", "minLength",
  "pattern", "maxProperties", "minProperties", "required", "maxItems", "minItems", "uniqueItems", "type", "const", "enum",
  "not", "anyOf", "oneOf", "allOf", "if", "then", "else", "propertyNames", "additionalProperties", "dependencies", "properties",
  "patternProperties", "additionalItems", "items", "contains", "format",
]);

/** ajv inlines a referenced schema only when nothing inside it has one of these keys. */
const REF_KEYWORDS: ReadonlySet<string> = new Set(["$ref", "$recursiveRef", "$recursiveAnchor", "$dynamicRef", "$dynamicAnchor"]);

/** The way out offered for schemas the interpreter refuses but ajv accepts. */
export const VIA_AJV = 'Validate this tool with ajv (`validator: ajvValidator`, needs eval) or with precompiled standalone code (`precompiledValidator`).';

/** Whether ajv skips `schema` as always valid (`true`, or no keyword it has a rule for). */
export function alwaysValid(schema: unknown): boolean {
  if (typeof schema === "boolean") return schema;
  for (const key in schema as object) if (AJV_RULES.has(key)) return false;
  return true;
}

/** Whether `schema` has a reference anywhere inside it. */
export function hasRef(schema: unknown): boolean {
  for (const key in schema as object) {
    if (REF_KEYWORDS.has(key)) return true;
    // Arrays are walked by index the same way; `null` has no keys to walk.
    const value = (schema as Record<string, unknown>)[key];
    if (typeof value === "object" && hasRef(value)) return true;
  }
  return false;
}
