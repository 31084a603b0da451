/**
 * The validator seam (SPEC T2): how a tool's JSON Schema becomes a check of its arguments.
 *
 * rxagent owns everything around the check — the copy of the model's arguments, `null` for an
 * omitted optional property, the error text the model reads — and a validator owns the check
 * itself. Three ship with the package:
 *
 * | validator | schemas | CSP `script-src 'self'` | cost |
 * | --- | --- | --- | --- |
 * | `interpretingValidator` (the default) | known at run time, the keywords models' tools use | yes | walks the schema on every call, ~7 KB min+gz |
 * | `ajvValidator` | any, compiled at first use | no: ajv compiles with `new Function` | fastest per call, ~38 KB min+gz |
 * | `precompiledValidator` | known at build time (ajv standalone code) | yes | as fast as ajv, code per schema |
 *
 * @module
 */

/** One reason the arguments do not match the schema. */
export interface ValidationIssue {
  /** Dotted path of the offending value, e.g. `items.0.name`; `""` for the arguments object itself. */
  path: string;
  /** What is wrong, e.g. `must be number`, `is required`. */
  message: string;
}

/**
 * The check for one schema. It may coerce and fill defaults in place (the arguments it gets are
 * the loop's own copy) and returns the issues it found, or `undefined` when the arguments are
 * valid.
 */
export type ValidateArguments = (args: Record<string, unknown>) => readonly ValidationIssue[] | undefined;

/**
 * Turns a tool's schema into its check. `compile` runs when a prompt starts (so an invalid schema
 * is an error then, not when the model first calls the tool) and again per call: implementations
 * cache by schema object.
 *
 * @example
 * ```ts
 * const agent = new Agent({ streamFn, validator: interpretingValidator });
 * const tool: AgentTool = { ...search, validator: precompiledValidator({ search: validateSearch }) };
 * ```
 */
export interface ArgumentValidator {
  /** Shown in errors, e.g. `ajv`. */
  readonly name: string;
  /** Throws an `Error` when `schema` is not a schema this validator can check. */
  compile(schema: object, toolName: string): ValidateArguments;
}
