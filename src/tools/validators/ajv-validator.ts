/**
 * The default validator: ajv, compiling each schema to code on first use. Fast, complete, and
 * not usable under a Content Security Policy without `'unsafe-eval'` (ajv compiles with
 * `new Function`); see `interpretingValidator` and `precompiledValidator` for that.
 *
 * @module
 */
import { Ajv, type ValidateFunction } from "ajv";
import type { ArgumentValidator, ValidateArguments } from "./argument-validator.js";
import { issuesFromAjvErrors } from "./precompiled-validator.js";

// Made on first compile, so an app that picked another validator never constructs it.
let ajv: Ajv | undefined;
const compiled = new WeakMap<object, ValidateArguments>();

/**
 * Validators by schema content. ajv keeps everything it compiles (its cache and code scope) for
 * the life of the instance, so compiling once per schema *object* grew without bound when an app
 * builds its tools per Agent (the soak test: ~6 KB per Agent). Equal schemas share one validator.
 */
const byContent = new Map<string, ValidateArguments>();

function contentKey(schema: object): string | undefined {
  try {
    return JSON.stringify(schema);
  } catch {
    return undefined;
  }
}

function wrap(validate: ValidateFunction): ValidateArguments {
  return (args) => (validate(args) ? undefined : issuesFromAjvErrors(validate.errors ?? []));
}

function compile(schema: object): ValidateArguments {
  let validate = compiled.get(schema);
  if (!validate) {
    const key = contentKey(schema);
    validate = key !== undefined ? byContent.get(key) : undefined;
    if (!validate) {
      ajv ??= new Ajv({ allErrors: true, strict: false, coerceTypes: "array", useDefaults: true, validateFormats: false });
      validate = wrap(ajv.compile(schema));
      if (key !== undefined) byContent.set(key, validate);
    }
    compiled.set(schema, validate);
  }
  return validate;
}

/**
 * ajv with the coercions models need: numeric strings to numbers, a scalar where an array is
 * expected (and back), defaults filled in. The default validator of every Agent and loop.
 *
 * @example
 * ```ts
 * const check = ajvValidator.compile({ type: "object", properties: { n: { type: "number" } } }, "count");
 * check({ n: "3" }); // undefined (valid), and the object now holds n: 3
 * ```
 */
export const ajvValidator: ArgumentValidator = { name: "ajv", compile };
