/**
 * The tools of a run, checked before it starts (SPEC T1): names unique, every schema one the
 * validator accepts. A mistake here is the app's, so it is an error for the app at `prompt()`
 * or `agentLoop(...)`, not an error result the model reads when it first calls the tool.
 *
 * @module
 */
import { describeError } from "../model/describe-error.js";
import { checkDelay } from "../model/run-limits.js";
import type { AgentTool } from "../model/tool-types.js";
import type { ArgumentValidator } from "../model/argument-validator.js";

/**
 * Throws an `Error` naming the first tool that is not usable: a missing or repeated name, a
 * missing `execute`, or a `parameters` schema its validator rejects.
 *
 * @example
 * ```ts
 * assertToolSet([search, search], ajvValidator); // Error: Two tools are named "search": tool names must be unique.
 * ```
 */
export function assertToolSet(tools: readonly AgentTool[] | undefined, validator: ArgumentValidator): void {
  if (!tools) return;
  const seen = new Set<string>();
  for (const [index, tool] of tools.entries()) {
    const name: unknown = tool?.name;
    if (typeof name !== "string" || name === "") throw new Error(`The tool at index ${index} has no name: every tool needs a non-empty string name.`);
    if (seen.has(name)) throw new Error(`Two tools are named "${name}": tool names must be unique, the model could not tell them apart. For an MCP server's tools, give the connection a prefix, or combine the lists with mergeTools (rxagent/mcp), which leaves out the later one.`);
    seen.add(name);
    if (typeof tool.execute !== "function") throw new Error(`Tool "${name}" has no execute function.`);
    checkRunControlOfTool(tool, name);
    const schema: unknown = tool.parameters;
    if (schema === null || typeof schema !== "object" || Array.isArray(schema)) {
      throw new Error(`Tool "${name}" has no parameters schema: give it a JSON Schema object, e.g. { type: "object", properties: {} }.`);
    }
    const checker = tool.validator ?? validator;
    try {
      checker.compile(schema, name);
    } catch (error) {
      throw new Error(`Tool "${name}" has an invalid parameters schema (${checker.name}): ${describeError(error)}`);
    }
  }
}

/** A tool's run-control fields (SPEC R1–R3), when it has them, are of the right kind. */
function checkRunControlOfTool(tool: AgentTool, name: string): void {
  const { needsApproval, concurrencyKey, timeoutMs } = tool;
  if (needsApproval !== undefined && typeof needsApproval !== "boolean" && typeof needsApproval !== "function") {
    throw new Error(`Tool "${name}": needsApproval must be a boolean or a function of the arguments.`);
  }
  if (concurrencyKey !== undefined && typeof concurrencyKey !== "function") throw new Error(`Tool "${name}": concurrencyKey must be a function of the arguments.`);
  try {
    checkDelay("timeoutMs", timeoutMs);
  } catch (error) {
    throw new Error(`Tool "${name}": ${describeError(error)}`);
  }
}
