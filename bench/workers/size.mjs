/**
 * Bundle size (workload 5): the core entry (`Agent` + `agentLoop`) bundled and minified with
 * esbuild for the browser (ESM, tree-shaken), then gzipped (level 9).
 *
 * - rxagent, own code: `rxjs` external.
 * - rxagent, total: with the rxjs parts it uses (no ajv: the default validator needs none).
 * - reference: pi-agent-core's `Agent` + `agentLoop` with everything it pulls from pi-ai (and
 *   pi-schema), bundled the same way; nothing it imports is external.
 * - Minimal browser apps: an `Agent` with one tool, prompted once, everything bundled: from
 *   `rxagent` with its default validator (`interpretingValidator`), with `precompiledValidator` (the tool's schema
 *   compiled by scripts/precompile-validators.mjs), and from `rxagent` (ajv).
 *
 * Prints one JSON line.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { RXAGENT_ENTRY } from "../lib/runtimes.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const benchDir = path.resolve(here, "..");

async function bundle(name, importFrom, external, contents = `export { Agent, agentLoop } from ${JSON.stringify(importFrom)};`) {
  const result = await build({
    stdin: { contents, resolveDir: benchDir, loader: "js" },
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
  if (parts.length === 1) return file.startsWith("<stdin>") ? "(entry)" : file.endsWith("validators.mjs") ? "(generated validators)" : "rxagent";
  const rest = parts[parts.length - 1].split("/");
  return rest[0].startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0];
}

const SCHEMA = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };

/** An app's source: one Agent, one tool, one prompt; `validator` is an expression over the imports. */
function minimalApp(imports, validator, preamble = "") {
  const option = validator ? `validator: ${validator}, ` : "";
  return `${imports}\n${preamble}\nconst weather = { name: "weather", label: "Weather", description: "The weather in a city.", parameters: ${JSON.stringify(SCHEMA)}, execute: async (_id, { city }) => ({ content: [{ type: "text", text: "Sunny in " + city }] }) };\nconst agent = new Agent({ streamFn: globalThis.streamFn, ${option}initialState: { model: globalThis.model, tools: [weather] } });\nagent.subscribe((event) => console.log(event.type));\nvoid agent.prompt("Weather in Oslo?");\n`;
}

/** The precompiled validators module for the app's schema, written where the bundle can import it. */
async function precompiledModule() {
  const { precompileValidators } = await import(pathToFileURL(path.resolve(benchDir, "../scripts/precompile-validators.mjs")).href);
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "rxagent-size-")), "validators.mjs");
  writeFileSync(file, precompileValidators({ weather: SCHEMA }));
  return file;
}

const validatorsFile = await precompiledModule();
const entry = JSON.stringify(RXAGENT_ENTRY);
const results = {
  rxagentOwn: await bundle("rxagent (own code; rxjs external)", RXAGENT_ENTRY, ["rxjs", "rxjs/*"]),
  rxagentTotal: await bundle("rxagent + the rxjs parts it uses", RXAGENT_ENTRY, []),
  reference: await bundle("pi-agent-core + what it pulls from pi-ai", "@earendil-works/pi-agent-core", []),
  apps: {
    interpreting: await bundle("app: rxagent, the default validator (interpretingValidator)", RXAGENT_ENTRY, [], minimalApp(`import { Agent } from ${entry};`)),
    precompiled: await bundle(
      "app: rxagent + precompiledValidator",
      RXAGENT_ENTRY,
      [],
      minimalApp(`import { Agent, precompiledValidator } from ${entry};\nimport { validators } from ${JSON.stringify(validatorsFile)};`, "precompiledValidator(validators)"),
    ),
    ajv: await bundle("app: rxagent + ajvValidator", RXAGENT_ENTRY, [], minimalApp(`import { Agent, ajvValidator } from ${entry};`, "ajvValidator")),
  },
};
process.stdout.write(JSON.stringify(results) + "\n");
