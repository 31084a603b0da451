/**
 * The browser entries import no Node API (fetch and web streams only; SPEC M3: the
 * core stays provider-free). Follows each entry's import graph through the source files.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../../src");
const PACKAGES = new Set(["rxjs", "eventsource-parser", "partial-json"]);

/** Every file an entry reaches and every bare import it makes. */
function graph(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const source = readFileSync(file, "utf8");
    for (const match of source.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+"([^"]+)"/gm)) {
      const specifier = match[1]!;
      if (specifier.startsWith(".")) visit(resolve(dirname(file), specifier.replace(/\.js$/, ".ts")));
      else packages.add(specifier);
    }
  };
  visit(resolve(SRC, entry));
  return { files: [...files].map((f) => f.slice(SRC.length + 1)), packages: [...packages] };
}

describe("browser-safe entry points", () => {
  for (const entry of ["providers/openai/index.ts", "providers/proxy/index.ts", "providers/retry/index.ts", "providers/pi-ai.ts", "operators/index.ts", "remote/index.ts"]) {
    it(`${entry} reaches only web APIs and ${[...PACKAGES].join(", ")}`, () => {
      const { files, packages } = graph(entry);
      expect(packages.filter((name) => !PACKAGES.has(name))).toEqual([]);
      expect(files).not.toContain("providers/proxy/node-listener.ts");
      for (const file of files) {
        const code = readFileSync(resolve(SRC, file), "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "");
        expect(code, file).not.toMatch(/\b(Buffer|process|require|__dirname|setImmediate)\b/);
      }
    });
  }

  it("the Node adapter is its own entry and the only provider file that names node:http", () => {
    expect(graph("providers/proxy/node.ts").packages).toEqual(["node:http"]);
  });
});
