/**
 * Bundle size (workload 5): the core entry (`Agent` + `agentLoop`) bundled and minified with
 * esbuild for the browser (ESM, tree-shaken), then gzipped (level 9).
 *
 * - rxagent, own code: `rxjs` and `ajv` external.
 * - rxagent, total: with the rxjs parts it uses and ajv bundled in.
 * - reference: pi-agent-core's `Agent` + `agentLoop` with everything it pulls from pi-ai (and
 *   pi-schema), bundled the same way; nothing it imports is external.
 *
 * Prints one JSON line.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { RXAGENT_ENTRY } from "../lib/runtimes.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const benchDir = path.resolve(here, "..");

async function bundle(name, importFrom, external) {
  const result = await build({
    stdin: { contents: `export { Agent, agentLoop } from ${JSON.stringify(importFrom)};`, resolveDir: benchDir, loader: "js" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    external,
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  const code = result.outputFiles[0].contents;
  const inputs = {};
  for (const [file, info] of Object.entries(result.metafile.outputs)[0][1].inputs ? Object.entries(Object.values(result.metafile.outputs)[0].inputs) : []) {
    const pkg = packageOf(file);
    inputs[pkg] = (inputs[pkg] ?? 0) + info.bytesInOutput;
  }
  return {
    name,
    external,
    minified: code.length,
    gzipped: gzipSync(code, { level: 9 }).length,
    bytesInOutputByPackage: inputs,
    warnings: result.warnings.map((w) => w.text),
  };
}

function packageOf(file) {
  const parts = file.split("node_modules/");
  if (parts.length === 1) return file.startsWith("<stdin>") ? "(entry)" : "rxagent";
  const rest = parts[parts.length - 1].split("/");
  return rest[0].startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0];
}

const results = {
  rxagentOwn: await bundle("rxagent (own code; rxjs, ajv external)", RXAGENT_ENTRY, ["rxjs", "rxjs/*", "ajv", "ajv/*"]),
  rxagentTotal: await bundle("rxagent + the rxjs parts it uses + ajv", RXAGENT_ENTRY, []),
  reference: await bundle("pi-agent-core + what it pulls from pi-ai", "@earendil-works/pi-agent-core", []),
};
process.stdout.write(JSON.stringify(results) + "\n");
