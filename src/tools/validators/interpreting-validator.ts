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
 * The compiler and the walk live in `./interpreting/`; this module is the public face.
 *
 * @module
 */
import type { ArgumentValidator, ValidateArguments } from "../../model/argument-validator.js";
import { Compiler, SchemaError } from "./interpreting/compiler.js";
import { isObject } from "./interpreting/json-values.js";
import { run } from "./interpreting/run.js";
import { ALL_ERRORS, type Issues } from "./interpreting/schema-node.js";

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
        run(
          root,
          args,
          undefined,
          // Stryker disable next-line StringLiteral: the root has no parent, so its key is never read (coercion writes through the parent only).
          "",
          "",
          ALL_ERRORS,
          issues,
        );
        return issues.length > 0 ? issues : undefined;
      };
      compiled.set(schema, validate);
    }
    return validate;
  },
};
