/**
 * `rxagent/ai-sdk` needs nothing of the AI SDK (rule V1 proposed): its import graph names no
 * `@ai-sdk/*` package, not even for types (so its declarations type-check without the SDK's,
 * from ESM and CommonJS alike), its other packages are the core's own, and no file names a
 * Node-only API, so the entry runs wherever `fetch` and web streams do.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../../../src");
const RUNTIME_PACKAGES = new Set(["rxjs", "eventsource-parser", "partial-json"]);

/** Every source file the entry reaches, with each bare import and whether it is type-only. */
function graph(entry: string): { files: string[]; imports: { file: string; specifier: string; typeOnly: boolean }[] } {
  const files = new Set<string>();
  const imports: { file: string; specifier: string; typeOnly: boolean }[] = [];
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const source = readFileSync(file, "utf8");
    for (const match of source.matchAll(/^\s*(import|export)(\s+type)?\s[^;]*?from\s+"([^"]+)"/gm)) {
      const specifier = match[3]!;
      if (specifier.startsWith(".")) visit(resolve(dirname(file), specifier.replace(/\.js$/, ".ts")));
      else imports.push({ file: file.slice(SRC.length + 1), specifier, typeOnly: match[2] !== undefined });
    }
  };
  visit(resolve(SRC, entry));
  return { files: [...files].map((f) => f.slice(SRC.length + 1)), imports };
}

describe("the rxagent/ai-sdk entry (V1)", () => {
  const { files, imports } = graph("providers/ai-sdk/index.ts");

  it("V1 · imports nothing of @ai-sdk/*, and at run time only the core's packages", () => {
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter((i) => i.specifier.startsWith("@ai-sdk/"))).toEqual([]);
    expect(imports.filter((i) => !i.typeOnly && !RUNTIME_PACKAGES.has(i.specifier))).toEqual([]);
  });

  it("V1 · exports what an app uses (fromAiSdk, aiSdkModel, AI_SDK_API, getProviderFailure and the types), none of the bridge's internals", async () => {
    const entry = await import("../../../src/providers/ai-sdk/index.js");
    expect(Object.keys(entry).sort()).toEqual(["AI_SDK_API", "aiSdkModel", "fromAiSdk", "getProviderFailure"]);
    // The entry's value exports, as written: no re-export of a module the app has no use for.
    const source = readFileSync(resolve(SRC, "providers/ai-sdk/index.ts"), "utf8");
    for (const internal of ["ai-sdk-stream-reader", "ai-sdk-usage", "ai-sdk-finish-reason", "ai-sdk-failure", "provider-metadata", "ai-sdk-prompt"]) {
      expect(source, internal).not.toContain(`./${internal}.js`);
    }
  });

  it("V1 · reaches no Node-only API", () => {
    expect(files).toContain("providers/ai-sdk/from-ai-sdk.ts");
    for (const file of files) {
      const code = readFileSync(resolve(SRC, file), "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "");
      expect(code, file).not.toMatch(/\b(Buffer|process|require|__dirname|setImmediate)\b|from "node:/);
    }
  });
});
