/**
 * The app's tools and its servers' tools in one list with unique names. The Agent refuses two
 * tools of one name (SPEC T1: `prompt()` rejects), and a server's tool list is the server's to
 * choose: a server that adds a tool named like one of the app's would stop every prompt. Merged
 * here, the later tool of a taken name is left out, with a warning, and the run goes on.
 *
 * @module
 */
import type { AgentTool } from "../model/tool-types.js";

/** A tool {@link mergeTools} left out because an earlier tool has its name. */
export interface ToolCollision {
  /** The name both tools have. */
  name: string;
  /** The server of the tool left out, when it is an MCP tool. */
  server?: string;
  /** The tool left out. */
  tool: AgentTool;
  /** What happened and what to do, e.g. `Tool "search" of MCP server "web" is left out: … Give the connection a \`prefix\` …`. */
  message: string;
}

/** Options of {@link mergeTools}. */
export interface MergeToolsOptions {
  /** Called for each tool left out. Default: `console.warn` with the message. */
  onCollision?: ((collision: ToolCollision) => void) | undefined;
}

type ToolList = readonly AgentTool[];

const serverOf = (tool: AgentTool): string | undefined => {
  const server = (tool as { mcp?: { server?: unknown } }).mcp?.server;
  return typeof server === "string" ? server : undefined;
};

function collision(tool: AgentTool): ToolCollision {
  const server = serverOf(tool);
  const taken = "is left out: a tool of that name is already in the list.";
  if (server === undefined) return { name: tool.name, tool, message: `Tool "${tool.name}" ${taken}` };
  const prefix = `${server.replace(/[^A-Za-z0-9_-]/g, "_")}_`;
  return { name: tool.name, server, tool, message: `Tool "${tool.name}" of MCP server "${server}" ${taken} Give the connection a \`prefix\` (e.g. "${prefix}") to keep both.` };
}

/**
 * The tools of every list, in order, each name once: the first tool of a name is kept (put the
 * app's own tools first), every later one is left out and reported to `onCollision` (default
 * `console.warn`). Give each server a `prefix` so that nothing collides in the first place.
 *
 * @example
 * ```ts
 * server.tools$.subscribe((tools) => (agent.state.tools = mergeTools(localTools, tools)));
 * // a server tool named like a local one: left out, with a warning; prompt() runs
 * ```
 */
export function mergeTools(...lists: Array<ToolList | MergeToolsOptions>): AgentTool[] {
  const last = lists.at(-1);
  const options: MergeToolsOptions = last !== undefined && !Array.isArray(last) ? (last as MergeToolsOptions) : {};
  const report = options.onCollision ?? ((found: ToolCollision) => console.warn(`rxagent: ${found.message}`));
  const seen = new Set<string>();
  const merged: AgentTool[] = [];
  for (const list of lists) {
    if (!Array.isArray(list)) continue;
    for (const tool of list as ToolList) {
      if (seen.has(tool.name)) {
        report(collision(tool));
        continue;
      }
      seen.add(tool.name);
      merged.push(tool);
    }
  }
  return merged;
}
