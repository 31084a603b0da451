#!/usr/bin/env node
/**
 * Generates validation code for tool schemas at build time, for `precompiledValidator`.
 *
 *   node scripts/precompile-validators.mjs <tools module | schemas.json> <output.js>
 *   node --import tsx scripts/precompile-validators.mjs src/tools.ts src/generated/tool-validators.js
 *
 * Input: a JSON file `{ "toolName": schema }` (or an array of `{ name, parameters }`), or an ES
 * module whose exports are tools (`{ name, parameters }`), arrays of tools, or, as the default
 * export, a `{ toolName: schema }` record.
 *
 * Output: one ES module, `export const validators = { toolName: validate, ... }`, with ajv's
 * standalone code for each schema, compiled with the options `src/tools/validation.ts` uses so
 * the results are the same as at run time. The output imports nothing: the two ajv runtime
 * helpers standalone code `require`s (`ucs2length` for string lengths in code points, and
 * `equal`, which is fast-deep-equal, for `const` / `enum` / `uniqueItems`) are inlined from the
 * installed packages, so the file works in Node and in any bundler without CommonJS interop.
 *
 * @example
 * ```js
 * import { precompileValidators } from "./scripts/precompile-validators.mjs";
 * const code = precompileValidators({ search: { type: "object", properties: { q: { type: "string" } } } });
 * ```
 */
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, extname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Ajv } from "ajv";
import standalone from "ajv/dist/standalone/index.js";

const standaloneCode = standalone.default ?? standalone;
const require = createRequire(import.meta.url);

/** The options of `src/tools/validation.ts`, plus what standalone code needs. */
export const AJV_OPTIONS = Object.freeze({
  allErrors: true,
  strict: false,
  coerceTypes: "array",
  useDefaults: true,
  validateFormats: false,
  // Own properties only: an inherited `constructor` or `toString` is not a property the arguments have.
  ownProperties: true,
  code: { source: true, esm: true },
});

/** Source of each runtime helper ajv's code may require, and how to get the function from its CommonJS exports. */
const RUNTIME = {
  "ajv/dist/runtime/ucs2length": { file: () => require.resolve("ajv/dist/runtime/ucs2length"), pick: "module.exports.default" },
  // ajv's own equal.js only re-exports fast-deep-equal; inline that directly.
  "ajv/dist/runtime/equal": { file: () => createRequire(require.resolve("ajv")).resolve("fast-deep-equal"), pick: "module.exports" },
};

/** Same as `schemaKeyOf` in src/tools/validators/precompiled-validator.ts (cyrb53 of the JSON); the test checks they agree. */
export function schemaKeyOf(schema) {
  const text = JSON.stringify(schema) ?? "";
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

function isRecord(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isTool(value) {
  return isRecord(value) && typeof value.name === "string" && isRecord(value.parameters);
}

/**
 * The `{ toolName: schema }` record in a module's exports or a parsed JSON file.
 *
 * @example
 * ```js
 * toolSchemas({ default: [{ name: "search", parameters: { type: "object" } }] }); // { search: { type: "object" } }
 * ```
 */
export function toolSchemas(exports) {
  const schemas = {};
  const add = (name, schema, from) => {
    if (!isRecord(schema)) throw new Error(`precompile-validators: the schema of tool "${name}" (${from}) is not an object`);
    if (name in schemas && schemas[name] !== schema) throw new Error(`precompile-validators: two different schemas for tool "${name}"`);
    schemas[name] = schema;
  };
  const addValue = (value, from, recordOfSchemas) => {
    if (isTool(value)) add(value.name, value.parameters, from);
    else if (Array.isArray(value)) value.forEach((item, i) => (isTool(item) ? add(item.name, item.parameters, `${from}[${i}]`) : undefined));
    else if (recordOfSchemas && isRecord(value)) for (const [name, schema] of Object.entries(value)) add(name, isTool(schema) ? schema.parameters : schema, `${from}.${name}`);
  };
  for (const [exportName, value] of Object.entries(exports)) addValue(value, exportName, exportName === "default");
  return schemas;
}

function inlineRuntime(code) {
  const helpers = new Map();
  const replaced = code.replace(/require\("([^"]+)"\)(\.default)?/g, (_match, request) => {
    const helper = RUNTIME[request];
    if (!helper) {
      throw new Error(`precompile-validators: ajv's code requires "${request}", which this script does not know how to inline. A schema option (e.g. formats) may need it; please report it.`);
    }
    if (!helpers.has(request)) helpers.set(request, `__rxagent_runtime_${helpers.size}`);
    return helpers.get(request);
  });
  let prelude = "";
  for (const [request, name] of helpers) {
    const { file, pick } = RUNTIME[request];
    const path = file();
    // Drop the source map comment and ajv's `helper.code = 'require(...)'` note for its own code generator.
    const source = readFileSync(path, "utf8")
      .replace(/^\/\/# sourceMappingURL=.*$/gm, "")
      .replace(/^\w+\.code = '.*';$/gm, "");
    const origin = path.slice(path.lastIndexOf("node_modules"));
    prelude += `// ${request}, inlined from ${origin}\nconst ${name} = (function () {\nconst module = { exports: {} };\nconst exports = module.exports;\n${source}\nreturn ${pick};\n})();\n`;
  }
  return prelude + replaced;
}

/**
 * ES module source with one ajv standalone validation function per tool, exported as
 * `validators` (and as the default export), each tagged with its schema's `schemaKey`.
 *
 * @example
 * ```js
 * writeFileSync("tool-validators.js", precompileValidators({ search: searchSchema }));
 * ```
 */
export function precompileValidators(schemas) {
  const ajv = new Ajv(AJV_OPTIONS);
  const names = Object.keys(schemas);
  const exportsByName = {};
  names.forEach((toolName, i) => {
    const key = `rxagent-tool-${i}`;
    try {
      ajv.addSchema(schemas[toolName], key);
      ajv.getSchema(key);
    } catch (error) {
      throw new Error(`precompile-validators: tool "${toolName}": ${error.message}`);
    }
    exportsByName[`tool${i}`] = key;
  });
  const code = names.length > 0 ? inlineRuntime(standaloneCode(ajv, exportsByName)) : '"use strict";';
  const entries = names.map((toolName, i) => `  ${JSON.stringify(toolName)}: tool${i},`).join("\n");
  const keys = names.map((toolName, i) => `tool${i}.schemaKey = ${JSON.stringify(schemaKeyOf(schemas[toolName]))};`).join("\n");
  return `// Generated by scripts/precompile-validators.mjs from ajv ${require("ajv/package.json").version} standalone code. Do not edit; regenerate.\n${code}\n${keys}\n/** Tool name → validation function, for precompiledValidator(validators). */\nexport const validators = {\n${entries}\n};\nexport default validators;\n`;
}

async function loadInput(file) {
  const path = resolve(file);
  if (extname(path) === ".json") {
    const parsed = JSON.parse(readFileSync(path, "utf8"));
    return toolSchemas(Array.isArray(parsed) ? { default: parsed } : { default: parsed });
  }
  return toolSchemas(await import(pathToFileURL(path).href));
}

async function main([input, output]) {
  if (!input || !output) {
    console.error("usage: node scripts/precompile-validators.mjs <tools module | schemas.json> <output.js>");
    process.exitCode = 2;
    return;
  }
  const schemas = await loadInput(input);
  if (Object.keys(schemas).length === 0) throw new Error(`precompile-validators: found no tools in ${input}`);
  mkdirSync(dirname(resolve(output)), { recursive: true });
  writeFileSync(resolve(output), precompileValidators(schemas));
  console.log(`precompile-validators: ${Object.keys(schemas).length} tool(s) → ${output}: ${Object.keys(schemas).join(", ")}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).catch((error) => {
    console.error(error.message);
    process.exitCode = 1;
  });
}
