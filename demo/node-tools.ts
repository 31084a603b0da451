/**
 * The demo's Node-only tool: `read_file`, confined to one directory (the repository).
 * Kept apart from `tools.ts` so browser bundles never see `node:fs`.
 *
 * @module
 */
import { readFile, stat } from "node:fs/promises";
import { relative, resolve, sep } from "node:path";
import type { AgentTool } from "../src/index.js";
import type { ToolProgress } from "./tools.js";

/** What a finished `read_file` reports in `details`. */
export interface ReadFileDetails {
  path: string;
  lines: number;
  bytes: number;
}

/**
 * `read_file`: the first lines of a file under `root`. A promise tool that reports progress
 * through `onUpdate` (each call becomes a `tool_execution_update`).
 */
export function readFileTool(root: string): AgentTool<{ path: string; maxLines?: number }, ToolProgress | ReadFileDetails> {
  const base = resolve(root);
  return {
    name: "read_file",
    label: "Read file",
    description: "Reads the first lines of a text file in the project directory.",
    parameters: {
      type: "object",
      properties: {
        path: { type: "string", description: "Path relative to the project root, e.g. package.json" },
        maxLines: { type: "integer", minimum: 1, maximum: 200, description: "How many lines to return (default 12)" },
      },
      required: ["path"],
      additionalProperties: false,
    },
    execute: async (_id, { path, maxLines = 12 }, signal, onUpdate) => {
      const full = resolve(base, path);
      if (full !== base && !full.startsWith(base + sep)) throw new Error(`Refusing to read outside the project: ${path}`);
      const shown = relative(base, full) || ".";
      onUpdate({ content: [{ type: "text", text: `${shown}: checking…` }], details: { progress: 0.3, step: "checking" } });
      const info = await stat(full).catch(() => undefined);
      if (!info) throw new Error(`No such file: ${shown}`);
      if (!info.isFile()) throw new Error(`Not a file: ${shown}`);
      if (info.size > 1_000_000) throw new Error(`${shown} is too large to show (${info.size} bytes)`);
      onUpdate({ content: [{ type: "text", text: `${shown}: reading ${info.size} bytes…` }], details: { progress: 0.6, step: "reading" } });
      const content = await readFile(full, { encoding: "utf8", signal });
      const lines = content.split("\n");
      if (lines[lines.length - 1] === "") lines.pop();
      const head = lines.slice(0, maxLines).join("\n");
      const more = lines.length > maxLines ? `\n… (${lines.length - maxLines} more lines)` : "";
      return {
        content: [{ type: "text", text: `${shown} (${lines.length} lines):\n${head}${more}` }],
        details: { path: shown, lines: lines.length, bytes: info.size },
      };
    },
  };
}
