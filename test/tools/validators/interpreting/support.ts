/**
 * Runs a schema through ajv, configured as rxagent configures it, and through the interpreting
 * validator, and checks that both agree.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { expect } from "vitest";
import { AJV_OPTIONS } from "../../../../src/tools/validators/ajv-validator.js";
import type { ValidationIssue } from "../../../../src/model/argument-validator.js";
import { interpretingValidator } from "../../../../src/tools/validators/interpreting-validator.js";
import { issuesFromAjvErrors } from "../../../../src/tools/validators/precompiled-validator.js";

const ajv = new Ajv(AJV_OPTIONS);

const ajvCache = new WeakMap<object, ValidateFunction | Error>();
function ajvCompile(s: object): ValidateFunction | Error {
  let compiled = ajvCache.get(s);
  if (!compiled) {
    try {
      compiled = ajv.compile(s);
    } catch (error) {
      compiled = error as Error;
    }
    ajvCache.set(s, compiled);
  }
  return compiled;
}

function interpreterCompile(s: object) {
  try {
    return interpretingValidator.compile(s, "t");
  } catch (error) {
    return error as Error;
  }
}

const texts = (issues: readonly ValidationIssue[]) => issues.map((i) => `${i.path}: ${i.message}`);
const sorted = (issues: readonly ValidationIssue[]) => [...new Set(texts(issues))].sort();

/** How `runBoth` compares the issues: as sets (the default), or in ajv's order. */
export interface Comparison {
  ordered?: boolean;
}

/**
 * Compiles `s` with both and validates a copy of `input` with each: both must refuse the schema
 * or neither; then agree on validity, on the data after coercion and defaults, and on the issues.
 */
export function runBoth(s: object, input: Record<string, unknown>, { ordered = false }: Comparison = {}): "valid" | "invalid" | "refused" | "skipped" {
  const byAjv = ajvCompile(s);
  const byInterpreter = interpreterCompile(s);
  // A `$ref` cycle on the same value would recurse forever in ajv; the interpreter refuses it up front.
  if (byInterpreter instanceof Error && /cycle/.test(byInterpreter.message)) return "skipped";
  expect(byInterpreter instanceof Error, `compile: ajv ${byAjv instanceof Error ? byAjv.message : "ok"}, interpreter ${byInterpreter instanceof Error ? byInterpreter.message : "ok"}`).toBe(byAjv instanceof Error);
  if (byAjv instanceof Error || byInterpreter instanceof Error) return "refused";
  const forAjv = structuredClone(input);
  const forInterpreter = structuredClone(input);
  let ajvValid: boolean;
  try {
    ajvValid = byAjv(forAjv);
  } catch (error) {
    // ajv's generated code can overflow the stack on a recursive `$ref` reached on the same value.
    if (error instanceof RangeError) return "skipped";
    throw error;
  }
  const issues = byInterpreter(forInterpreter);
  expect(issues === undefined, "validity").toBe(ajvValid);
  expect(forInterpreter, "coerced and defaulted data").toStrictEqual(forAjv);
  if (!ajvValid) {
    const expected = issuesFromAjvErrors(byAjv.errors as ErrorObject[]);
    expect(issues!.length).toBeGreaterThan(0);
    if (ordered) expect(texts(issues!), "issues in order").toEqual(texts(expected));
    else expect(sorted(issues!), "issues").toEqual(sorted(expected));
  }
  return ajvValid ? "valid" : "invalid";
}

/** What ajv alone makes of `input` under `s`. */
export function ajvOutcome(s: object, input: Record<string, unknown>): "valid" | "invalid" | "refused" {
  const byAjv = ajvCompile(s);
  if (byAjv instanceof Error) return "refused";
  return byAjv(structuredClone(input)) ? "valid" : "invalid";
}

/** A tool schema with one property `a` under `schema`. */
export const under = (schema: unknown): object => ({ type: "object", properties: { a: schema } });

/** The message the interpreting validator refuses `schema` with (for a tool named "t"). */
export function compileError(schema: object): string {
  const compiled = interpreterCompile(schema);
  if (compiled instanceof Error) return compiled.message;
  throw new Error(`expected ${JSON.stringify(schema)} to be refused`);
}

/** The full refusal for a bad keyword value, as the interpreter words it. */
export const invalid = (keyword: string, at: string, problem: string) =>
  `interpreting validator, tool "t": invalid schema: "${keyword}" at ${at} ${problem}. Fix the schema; ajv rejects it too.`;

/** `"type"` refused at `at` for the misspelt `"strnig"`. */
export const badType = (at: string) => invalid("type", at, 'must be one of array, boolean, integer, null, number, object, string, or an array of them (got "strnig")');

/** A misspelt type, to put where a schema is expected. */
export const STRNIG = { type: "strnig" };

/**
 * `schema` where a failing keyword stops the walk (inside `not` and `if`, as ajv compiles them
 * without allErrors), so what it did or did not coerce shows in the data; and `schema` alone.
 */
export const failFastPlaces = (schema: object): object[] => [schema, { not: schema }, { if: schema, then: false }, { if: schema, else: false }];
