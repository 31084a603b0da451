/**
 * What each entry point of package.json `exports` gives an app at run time: exactly the values
 * listed here, and nothing else. An entry is its public surface: what the docs and examples show
 * (`agentSession`, `openaiCompatible`, `connectMcpHttp`, …), the error classes an app catches
 * (`SessionConflictError`, …), and the few helpers a documented contract names
 * (`getProviderFailure`, `isRetryableFailure`, `mcpToolResult`). Internals — journal replay,
 * lease rules, request builders, the proxy's event encoder and decoder, MCP's naming and schema
 * helpers, message texts and default values the docs give by value — stay in their modules,
 * where rxagent's own code and these tests import them. A new value in an entry, an internal
 * leaking out through a re-export above all, fails here until the list says it is meant.
 *
 * The lists are of the source entry each `exports` key builds from (`./dist/X.js` ← `src/X.ts`);
 * test/package/tarball.test.ts loads the built ones, from ESM and CommonJS alike. Types are not
 * values and are not listed: `tsc` and the consumer projects of the tarball test check those.
 *
 * A name means one value in every entry: where two entries export the same name (`rxagent/core`
 * re-exports `rxagent`, SPEC R6; `rxagent/mcp/stdio` re-exports `rxagent/mcp`, SPEC MCP1;
 * `rxagent/openai` and `rxagent/ai-sdk` both give `getProviderFailure`), it is the same object, so
 * an `instanceof` or a `WeakMap` lookup never depends on which entry an app imported it from.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { PUBLIC_VALUES } from "../helpers/public-values.js";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** The values of `rxagent` itself (and of `rxagent/core`, which re-exports it). */
const MAIN = PUBLIC_VALUES;

const MCP = ["connectMcp", "connectMcpHttp", "mcpToolResult", "mergeTools"];

/** Every entry of package.json `exports` (but `./package.json`), with its values, sorted. */
const EXPECTED: Record<string, string[]> = {
  ".": MAIN,
  "./core": MAIN,
  "./testing": ["fauxProvider", "fauxText", "fauxThinking", "fauxToolCall", "settleVirtualTime"],
  "./operators": ["assistantText", "committedMessages", "ofType", "textDeltas", "toolCalls"],
  "./session": [
    "InMemorySessionStore",
    "SessionConflictError",
    "SessionCorruptError",
    "SessionError",
    "SessionFencedError",
    "SessionIdError",
    "SessionLeaseHeldError",
    "agentSession",
    "forkSession",
  ],
  "./session/file": ["FileSessionStore"],
  "./session/indexeddb": ["IndexedDbSessionStore"],
  "./session/postgres": ["PostgresSessionStore"],
  "./openai": ["getProviderFailure", "openaiCompatible"],
  "./proxy": ["createProxyHandler", "streamProxy"],
  "./proxy/node": ["createProxyServer", "toNodeListener"],
  "./retry": ["isRetryableFailure", "withRetry"],
  "./pi-ai": ["fromPiAi", "fromPiAiModel"],
  "./mcp": MCP,
  "./mcp/stdio": [...MCP, "connectMcpStdio"].sort(),
  "./otel": ["instrumentAgent", "traceAgent", "tracingListener"],
  // SPEC V1: "The entry exports fromAiSdk, aiSdkModel, AI_SDK_API, getProviderFailure and types only".
  "./ai-sdk": ["AI_SDK_API", "aiSdkModel", "fromAiSdk", "getProviderFailure"],
  "./ag-ui": ["AG_UI_PROTOCOL_VERSION", "checkRunAgentInput", "createAgUiHandler", "encodeAgUiEvent", "fromAgUiMessages", "toAgUiEvents"],
  "./server": ["createSessionServer"],
  "./server/node": ["toNodeListener"],
  "./server/postgres": ["postgresRelay"],
  "./remote": ["RemoteAgent"],
  "./angular": ["AGENT", "injectAgent", "messageText", "provideAgent"],
};

type Conditions = { import: { default: string } };
const manifest = JSON.parse(readFileSync(resolve(REPO, "package.json"), "utf8")) as { exports: Record<string, string | Conditions> };

/** The source file an `exports` key is built from: `./dist/session/index.js` ← `src/session/index.ts`. */
function sourceOf(key: string): string {
  const target = manifest.exports[key]!;
  const built = typeof target === "string" ? target : target.import.default;
  const match = /^\.\/dist\/(.+)\.js$/.exec(built);
  if (!match) throw new Error(`${key}: ${built} is not a file of dist/`);
  return `src/${match[1]}.ts`;
}

const keys = Object.keys(manifest.exports).filter((key) => key !== "./package.json");
const modules = new Map<string, Record<string, unknown>>();
for (const key of keys) modules.set(key, (await import(pathToFileURL(resolve(REPO, sourceOf(key))).href)) as Record<string, unknown>);

/** The entries whose source re-exports another entry's whole source (`export * from`). */
function reExports(): Array<[string, string]> {
  const bySource = new Map(keys.map((key) => [resolve(REPO, sourceOf(key)), key]));
  const pairs: Array<[string, string]> = [];
  for (const key of keys) {
    const file = resolve(REPO, sourceOf(key));
    for (const match of readFileSync(file, "utf8").matchAll(/^export \* from "([^"]+)";/gm)) {
      const other = bySource.get(resolve(dirname(file), match[1]!.replace(/\.js$/, ".ts")));
      if (other !== undefined) pairs.push([key, other]);
    }
  }
  return pairs;
}

describe("the values each entry point exports", () => {
  it("every entry of package.json exports is listed here, and every listed one is an entry", () => {
    expect([...keys].sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const [key, names] of Object.entries(EXPECTED)) {
    it(`${key === "." ? "rxagent" : `rxagent${key.slice(1)}`} (${sourceOf(key)}) exports ${names.join(", ")}, and nothing else`, () => {
      expect(Object.keys(modules.get(key)!).sort()).toEqual(names);
    });
  }
});

describe("one name, one value across the entries", () => {
  it("R6, MCP1: rxagent/core re-exports rxagent and rxagent/mcp/stdio re-exports rxagent/mcp, each name the same value", () => {
    const pairs = reExports();
    expect(pairs).toEqual(expect.arrayContaining([["./core", "."], ["./mcp/stdio", "./mcp"]]));
    for (const [key, other] of pairs) {
      const reExporter = modules.get(key)!;
      const reExported = modules.get(other)!;
      for (const [name, value] of Object.entries(reExported)) {
        expect(Object.hasOwn(reExporter, name), `${key} re-exports ${other}: ${name} is missing`).toBe(true);
        expect(reExporter[name], `${key} ${name} is ${other}'s`).toBe(value);
      }
    }
  });

  it("a name two entries share is the same value in both (getProviderFailure of rxagent/openai and rxagent/ai-sdk reads one record)", () => {
    const first = new Map<string, { key: string; value: unknown }>();
    const shared: string[] = [];
    for (const key of keys) {
      for (const [name, value] of Object.entries(modules.get(key)!)) {
        const seen = first.get(name);
        if (!seen) first.set(name, { key, value });
        else {
          shared.push(name);
          expect(value, `${name}: ${key}'s is not ${seen.key}'s`).toBe(seen.value);
        }
      }
    }
    expect(shared).toContain("getProviderFailure");
  });
});
