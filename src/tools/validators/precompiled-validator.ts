/**
 * A validator for schemas known at build time: it runs validation functions that ajv generated
 * ahead of time (`ajv/dist/standalone`, written by `scripts/precompile-validators.mjs`), so the
 * app needs neither ajv's compiler nor `eval` at run time.
 *
 * The types here describe ajv's output structurally; importing ajv's own types would tie this
 * module (and a bundle that uses it) to ajv.
 *
 * @module
 */
import type { ArgumentValidator, ValidateArguments, ValidationIssue } from "../../model/argument-validator.js";

/**
 * One error as ajv reports it (its `ErrorObject`), reduced to what rxagent reads.
 *
 * @example
 * ```ts
 * const error: StandaloneError = { keyword: "type", instancePath: "/limit", params: { type: "integer" }, message: "must be integer" };
 * ```
 */
export interface StandaloneError {
  keyword: string;
  /** JSON pointer of the offending value, e.g. `/items/0/name`; `""` for the root. */
  instancePath: string;
  schemaPath?: string | undefined;
  params: Record<string, unknown>;
  message?: string | undefined;
}

/**
 * A validation function from ajv standalone code: returns whether `data` is valid (coercing and
 * filling defaults in place, as configured when it was generated) and leaves the reasons in
 * `errors`. `schemaKey`, set by `scripts/precompile-validators.mjs`, fingerprints the schema the
 * code was generated from.
 *
 * @example
 * ```ts
 * import { validators } from "./generated/tool-validators.js";
 * const validateSearch: StandaloneValidate = validators.search;
 * ```
 */
export interface StandaloneValidate {
  (data: unknown): boolean;
  errors?: readonly StandaloneError[] | null | undefined;
  schemaKey?: string | undefined;
}

/**
 * Options of {@link precompiledValidator}.
 *
 * @example
 * ```ts
 * const options: PrecompiledValidatorOptions = { fallback: interpretingValidator };
 * ```
 */
export interface PrecompiledValidatorOptions {
  /** Checks the tools that have no precompiled function (e.g. `interpretingValidator`); without it they fail at compile. */
  fallback?: ArgumentValidator | undefined;
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}

/**
 * ajv's errors as rxagent's issues: dotted paths, `required` / `additionalProperties` naming the
 * property itself, `enum` listing the allowed values, every other message as ajv wrote it. Every
 * validator words its issues this way, so the model reads the same text whichever one runs.
 *
 * @example
 * ```ts
 * issuesFromAjvErrors([{ keyword: "required", instancePath: "/range", params: { missingProperty: "start" } }]);
 * // [{ path: "range.start", message: "is required" }]
 * ```
 */
export function issuesFromAjvErrors(errors: readonly StandaloneError[]): ValidationIssue[] {
  return errors.map((error) => {
    // "" (the root) splits to [""]: no segments after the first.
    const segments = error.instancePath.split("/").slice(1).map(unescapePointer);
    let message = error.message ?? error.keyword;
    if (error.keyword === "required") {
      segments.push(String(error.params.missingProperty));
      message = "is required";
    } else if (error.keyword === "additionalProperties") {
      segments.push(String(error.params.additionalProperty));
      message = "is not allowed";
    } else if (error.keyword === "enum") {
      message = `must be one of ${JSON.stringify(error.params.allowedValues)}`;
    }
    return { path: segments.join("."), message };
  });
}

/**
 * The fingerprint `scripts/precompile-validators.mjs` stores as `schemaKey`: a 53-bit hash of
 * `JSON.stringify(schema)`, enough to notice generated code that is older than its schema.
 *
 * @example
 * ```ts
 * schemaKeyOf({ type: "object" }); // e.g. "1fk3v2x9q0a"
 * ```
 */
export function schemaKeyOf(schema: unknown): string {
  const text = JSON.stringify(schema) ?? "";
  // cyrb53: small, fast, and the same in the build script and the browser.
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/** The check of an ajv validation function, generated ahead of time or by ajv at run time. */
export function checkWith(validate: StandaloneValidate): ValidateArguments {
  return (args) => {
    if (validate(args)) return undefined;
    const issues = issuesFromAjvErrors(validate.errors ?? []);
    // Invalid must never read as valid, even if the code left no errors behind.
    return issues.length > 0 ? issues : [{ path: "", message: "must match the schema" }];
  };
}

const HOW_TO_GENERATE = "Generate it at build time with `node scripts/precompile-validators.mjs <tools module or schemas.json> <output.js>` and pass the module's `validators`";

/**
 * Checks tool arguments with validation code generated at build time by ajv standalone, looked
 * up by tool name. No compiler and no `eval` at run time, so it works under
 * `Content-Security-Policy: script-src 'self'` at ajv's speed. Tools without generated code go
 * to `fallback`, or fail when the prompt starts.
 *
 * @example
 * ```ts
 * import { validators } from "./generated/tool-validators.js"; // from scripts/precompile-validators.mjs
 * const agent = new Agent({ streamFn, validator: precompiledValidator(validators, { fallback: interpretingValidator }) });
 * ```
 */
export function precompiledValidator(validators: Readonly<Record<string, StandaloneValidate>>, options: PrecompiledValidatorOptions = {}): ArgumentValidator {
  const { fallback } = options;
  const wrapped = new Map<StandaloneValidate, ValidateArguments>();
  const checked = new WeakMap<object, StandaloneValidate>();
  return {
    name: "precompiled",
    compile(schema: object, toolName: string): ValidateArguments {
      const validate = Object.prototype.hasOwnProperty.call(validators, toolName) ? validators[toolName] : undefined;
      if (typeof validate !== "function") {
        if (fallback) return fallback.compile(schema, toolName);
        throw new Error(`precompiled validator: no generated validation code for tool "${toolName}". ${HOW_TO_GENERATE}, or pass a \`fallback\` validator.`);
      }
      // Code generated from an older schema would silently check the wrong thing.
      if (checked.get(schema) !== validate) {
        if (validate.schemaKey !== undefined && validate.schemaKey !== schemaKeyOf(schema)) {
          throw new Error(`precompiled validator: the generated code for tool "${toolName}" was made from a different schema than the tool has now. Regenerate it: ${HOW_TO_GENERATE}.`);
        }
        checked.set(schema, validate);
      }
      let check = wrapped.get(validate);
      if (!check) {
        check = checkWith(validate);
        wrapped.set(validate, check);
      }
      return check;
    },
  };
}
