/**
 * Module hooks that make Node load rxjs's ES2015 build (`dist/esm`, what bundlers and Angular
 * load through the `es2015` export condition) instead of the CommonJS build its `node` condition
 * picks. That build is ESM without file extensions, so its relative imports get `.js` (or
 * `/index.js`) here, and its files are loaded as modules. Registered by rxjs-es2015.mjs.
 */
import { existsSync, statSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

const SUBPATHS = new Map([
  ["rxjs", "index.js"],
  ["rxjs/operators", "operators/index.js"],
  ["rxjs/testing", "testing/index.js"],
]);

let esmRoot;

export async function resolve(specifier, context, next) {
  const subpath = SUBPATHS.get(specifier);
  if (subpath !== undefined) {
    // Find the rxjs the importer would get, then take the ES2015 build beside its CommonJS one.
    const cjs = await next(specifier, context);
    const root = cjs.url.slice(0, cjs.url.indexOf("/dist/cjs/") + 1);
    esmRoot ??= `${root}dist/esm/`;
    return { url: `${root}dist/esm/${subpath}`, format: "module", shortCircuit: true };
  }
  if (esmRoot && context.parentURL?.startsWith(esmRoot) && specifier.startsWith(".")) {
    const url = new URL(specifier, context.parentURL);
    const path = fileURLToPath(url);
    const file = existsSync(`${path}.js`) ? `${path}.js` : existsSync(path) && statSync(path).isDirectory() ? `${path}/index.js` : path;
    return { url: pathToFileURL(file).href, format: "module", shortCircuit: true };
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (esmRoot && url.startsWith(esmRoot)) return next(url, { ...context, format: "module" });
  return next(url, context);
}
