/**
 * The tools of a run, checked before it starts (SPEC T1, R1–R3): each mistake named with the tool
 * it is in; and the validator for tools without their own.
 */
import { describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/index.js";
import { assertToolSet } from "../../src/tools/tool-set.js";
import type { ArgumentValidator } from "../../src/model/argument-validator.js";
import { textResult, tool } from "../helpers/fixtures.js";

const accepting: ArgumentValidator = { name: "accepting", compile: () => () => undefined };
const refusing: ArgumentValidator = {
  name: "picky",
  compile: () => {
    throw new Error("unknown keyword frob");
  },
};
const ok = tool("ok", () => textResult("x"));

describe("T1: assertToolSet", () => {
  it("T1: no tools, or an empty list, is fine", () => {
    expect(() => assertToolSet(undefined, refusing)).not.toThrow();
    expect(() => assertToolSet([], refusing)).not.toThrow();
  });

  it("T1: a tool without a usable name is named by its index", () => {
    for (const bad of [null, {}, { ...ok, name: 7 }, { ...ok, name: "" }]) {
      expect(() => assertToolSet([ok, bad as unknown as AgentTool], accepting)).toThrow("The tool at index 1 has no name: every tool needs a non-empty string name.");
    }
  });

  it("T1: two tools with one name", () => {
    expect(() => assertToolSet([ok, tool("b", () => textResult("")), { ...ok }], accepting)).toThrow('Two tools are named "ok": tool names must be unique, the model could not tell them apart. For an MCP server\'s tools, give the connection a prefix, or combine the lists with mergeTools (rxagent/mcp), which leaves out the later one.');
  });

  it("T1: parameters that are not a schema object: missing, null, an array, a string", () => {
    for (const parameters of [undefined, null, [], "object"]) {
      expect(() => assertToolSet([{ ...ok, parameters } as unknown as AgentTool], accepting)).toThrow('Tool "ok" has no parameters schema: give it a JSON Schema object, e.g. { type: "object", properties: {} }.');
    }
  });

  it("T2: a schema the validator refuses names the tool and the validator; the tool's own validator is the one asked", () => {
    expect(() => assertToolSet([ok], refusing)).toThrow('Tool "ok" has an invalid parameters schema (picky): unknown keyword frob');
    expect(() => assertToolSet([{ ...ok, validator: accepting }], refusing)).not.toThrow();
    expect(() => assertToolSet([{ ...ok, validator: refusing }], accepting)).toThrow(/\(picky\)/);
  });

  it("R1 R2 R3: run-control fields of the right kind pass; others are named", () => {
    for (const fine of [{ needsApproval: true }, { needsApproval: false }, { needsApproval: () => true }, { concurrencyKey: () => "k" }, { timeoutMs: 5 }]) {
      expect(() => assertToolSet([{ ...ok, ...fine }], accepting)).not.toThrow();
    }
    expect(() => assertToolSet([{ ...ok, needsApproval: 1 as unknown as boolean }], accepting)).toThrow('Tool "ok": needsApproval must be a boolean or a function of the arguments.');
    expect(() => assertToolSet([{ ...ok, timeoutMs: -1 }], accepting)).toThrow(/^Tool "ok": timeoutMs must be a positive number/);
  });

  it("T1: the checks go tool by tool: a later tool's mistake is found after an earlier one passed", () => {
    expect(() => assertToolSet([ok, { ...ok, name: "b", execute: undefined as unknown as AgentTool["execute"] }], accepting)).toThrow('Tool "b" has no execute function.');
  });
});
