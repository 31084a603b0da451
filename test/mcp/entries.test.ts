/**
 * `rxagent/mcp` is browser-safe and `rxagent/mcp/stdio` is where Node comes in (SPEC MCP1):
 * the entry's import graph through the source files reaches web APIs, rxjs, ajv and the MCP
 * SDK's client, its Streamable HTTP transport and types only; the stdio entry adds the SDK's
 * stdio transport and nothing of Node itself.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../../src");

function graph(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const match of readFileSync(file, "utf8").matchAll(/^\s*(?:import|export)\s(?!type\s)[^;]*?from\s+"([^"]+)"/gm)) {
      const specifier = match[1]!;
      if (specifier.startsWith(".")) visit(resolve(dirname(file), specifier.replace(/\.js$/, ".ts")));
      else packages.add(specifier);
    }
  };
  visit(resolve(SRC, entry));
  return { files: [...files].map((file) => file.slice(SRC.length + 1)).sort(), packages: [...packages].sort() };
}

describe("the MCP entries", () => {
  it("MCP1 · rxagent/mcp reaches only rxjs and the SDK's client, HTTP transport and types (no ajv: the default validator needs none); no Node API", () => {
    const { files, packages } = graph("mcp/index.ts");
    expect(packages).toEqual(["@modelcontextprotocol/sdk/client/index.js", "@modelcontextprotocol/sdk/client/streamableHttp.js", "@modelcontextprotocol/sdk/types.js", "rxjs"]);
    expect(files).not.toContain("mcp/stdio.ts");
    for (const file of files) {
      const code = readFileSync(resolve(SRC, file), "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "");
      expect(code, file).not.toMatch(/\b(Buffer|process|require|__dirname|setImmediate)\b/);
    }
  });

  it("MCP1 · rxagent/mcp/stdio adds the SDK's stdio transport, and re-exports the browser entry", () => {
    const stdio = graph("mcp/stdio.ts");
    const browser = graph("mcp/index.ts");
    expect(stdio.packages.filter((name) => !browser.packages.includes(name))).toEqual(["@modelcontextprotocol/sdk/client/stdio.js"]);
    expect(stdio.files).toEqual([...browser.files, "mcp/stdio.ts"].sort());
  });
});
