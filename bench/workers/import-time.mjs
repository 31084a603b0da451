/**
 * Cold import of one runtime's entry in this fresh process: the time `import()` takes, and the
 * resident memory it adds. Usage: node workers/import-time.mjs reference|rxagent
 */
import { pathToFileURL } from "node:url";
import { RXAGENT_ENTRY } from "../lib/runtimes.mjs";

const specifier = process.argv[2] === "reference" ? "@earendil-works/pi-agent-core" : pathToFileURL(RXAGENT_ENTRY).href;
const rss0 = process.memoryUsage().rss;
const t0 = performance.now();
await import(specifier);
const ms = performance.now() - t0;
process.stdout.write(JSON.stringify({ ms, rssAdded: process.memoryUsage().rss - rss0 }) + "\n");
