/**
 * Marks dist/cjs/ as CommonJS. The root package.json says "type": "module", so without this
 * Node would load dist/cjs/*.js as ESM and TypeScript would read dist/cjs/*.d.ts as ESM
 * declarations; a nested package.json is the scope both look at first.
 */
import { writeFileSync } from "node:fs";

writeFileSync(new URL("../dist/cjs/package.json", import.meta.url), `${JSON.stringify({ type: "commonjs" }, null, 2)}\n`);
