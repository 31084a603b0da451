/**
 * SPEC T2: the ajv validator compiles once per schema — by object, and by content where the
 * schema is JSON — on one shared ajv instance, giving a schema whose `$id` is taken an instance
 * of its own.
 */
import { Ajv } from "ajv";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ajvValidator } from "../../../src/tools/validators/ajv-validator.js";

afterEach(() => vi.restoreAllMocks());

const numberSchema = (extra: object) => ({ type: "object", properties: { a: { type: "number" } }, ...extra });
const stringSchema = (extra: object) => ({ type: "object", properties: { a: { type: "string" } }, ...extra });

describe("T2: ajvValidator", () => {
  it("T2: one shared ajv instance; a schema whose $id is taken gets its own and checks its own content", () => {
    const compile = vi.spyOn(Ajv.prototype, "compile");
    const plainA = ajvValidator.compile(numberSchema({ description: "T2 shared A" }), "t");
    const plainB = ajvValidator.compile(stringSchema({ description: "T2 shared B" }), "t");
    const firstArgs = ajvValidator.compile(numberSchema({ $id: "T2-Args" }), "t");
    const secondArgs = ajvValidator.compile(stringSchema({ $id: "T2-Args" }), "t");
    expect(compile).toHaveBeenCalledTimes(4);
    const [a, b, first, second] = compile.mock.contexts;
    expect(b).toBe(a);
    expect(first).toBe(a);
    expect(second).not.toBe(a);
    expect(plainA({ a: "x" })).toEqual([{ path: "a", message: "must be number" }]);
    expect(plainB({ a: "x" })).toBeUndefined();
    expect(firstArgs({ a: "x" })).toEqual([{ path: "a", message: "must be number" }]);
    expect(secondArgs({ a: "x" })).toBeUndefined();
  });

  it("T2: a schema JSON cannot write is compiled once per object, and two of them are never confused", () => {
    const compile = vi.spyOn(Ajv.prototype, "compile");
    const numbers = numberSchema({ "x-limit": 10n });
    const strings = stringSchema({ "x-limit": 10n });
    const checkNumbers = ajvValidator.compile(numbers, "t");
    expect(ajvValidator.compile(numbers, "t")).toBe(checkNumbers);
    expect(compile).toHaveBeenCalledTimes(1);
    const checkStrings = ajvValidator.compile(strings, "t");
    expect(compile).toHaveBeenCalledTimes(2);
    expect(checkNumbers({ a: "x" })).toEqual([{ path: "a", message: "must be number" }]);
    expect(checkStrings({ a: "x" })).toBeUndefined();
  });

  it("T2: invalid arguments read as invalid, with ajv's errors as issues", () => {
    expect(ajvValidator.compile(numberSchema({ required: ["a"], description: "T2 required" }), "t")({})).toEqual([{ path: "a", message: "is required" }]);
    expect(ajvValidator.name).toBe("ajv");
  });
});
