/**
 * The default validator: ajv, compiling each schema to code the first time a run sees it.
 * Fast, complete, and not usable under a Content Security Policy without `'unsafe-eval'` (ajv
 * compiles with `new Function`); see `interpretingValidator` and `precompiledValidator` for that.
 *
 * @module
 */
import { Ajv, type ValidateFunction } from "ajv";
import type { ArgumentValidator, ValidateArguments } from "../../model/argument-validator.js";
import { checkWith } from "./precompiled-validator.js";

// Made on first compile, so an app that picked another validator never constructs it.
let ajv: Ajv | undefined;
const compiled = new WeakMap<object, ValidateArguments>();

/**
 * Validators by schema content. ajv keeps everything it compiles (its cache and code scope) for
 * the life of the instance, so compiling once per schema *object* grew without bound when an app
 * builds its tools per Agent (the soak test: ~6 KB per Agent). Equal schemas share one validator.
 */
const byContent = new Map<string, ValidateArguments>();

/**
 * rxagent's ajv configuration, which the interpreting and precompiled validators reproduce.
 * `ownProperties`: a property is present only when the arguments have it as their own, so
 * `required: ["constructor"]` is not met by the `constructor` every object inherits.
 */
export const AJV_OPTIONS = { allErrors: true, strict: false, coerceTypes: "array", useDefaults: true, validateFormats: false, ownProperties: true } as const;

/**
 * One shared instance registers every schema's `$id`: two tools of different apps (or Agents)
 * may both say `$id: "Args"` and mean different things. A schema whose `$id` is taken gets an
 * instance of its own instead of failing.
 */
function compileWithAjv(schema: object): ValidateFunction {
  ajv ??= new Ajv(AJV_OPTIONS);
  const id = (schema as { $id?: unknown }).$id;
  if (typeof id === "string" && ajv.getSchema(id) !== undefined) return new Ajv(AJV_OPTIONS).compile(schema);
  return ajv.compile(schema);
}

function compile(schema: object): ValidateArguments {
  const known = compiled.get(schema);
  if (known) return known;
  let key: string | undefined;
  try {
    key = JSON.stringify(schema);
  } catch {
    // A schema JSON cannot write (a BigInt, a cycle) is cached by object only.
  }
  let validate: ValidateArguments;
  if (key === undefined) validate = checkWith(compileWithAjv(schema));
  else {
    validate = byContent.get(key) ?? checkWith(compileWithAjv(schema));
    byContent.set(key, validate);
  }
  compiled.set(schema, validate);
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
