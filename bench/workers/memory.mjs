/**
 * One runtime, one workload, in its own process (run with --expose-gc).
 *
 * Usage: node --expose-gc workers/memory.mjs '{"kind":"loop","workload":"streaming","size":100000,"variant":"rxagent:pi"}'
 * (or a peer: "ai-sdk:v4", "openai-agents:model", "floor:plain"; its SDK and zod load with it, before the baseline)
 *
 * 1. import the runtime and the provider form's library; baselineRss = process.resourceUsage().maxRSS
 * 2. run the workload once, cold; peakRss = maxRSS after it (whole process: runtime, its
 *    dependencies, the scripted provider, the run); drop its result
 * 3. five warm runs at a moderate size (dropped), then global.gc(); heapBefore; run it again
 *    (now compiled and optimized) keeping what a caller
 *    keeps (the Agent, or the loop's agent_end messages); global.gc(); heapAfter.
 *    heapRetained = heapAfter − heapBefore: the run's data (transcript, caches, leaks), not the
 *    runtime's bytecode, which the first run already created. codeRetained: the part of it in V8's
 *    code spaces (code the second run still optimized).
 *
 * Prints one JSON line.
 */
import v8 from "node:v8";
import { loadRuntime, runAgent, runLoop } from "../lib/runtimes.mjs";
import { prepareForm } from "../lib/scenarios.mjs";

if (typeof global.gc !== "function") throw new Error("run with --expose-gc");
const config = JSON.parse(process.argv[2]);
const [name, form] = config.variant.split(":");
const lib = await loadRuntime(name);
// The provider's library (pi-ai for the shared stream, rxjs for the Observable) is the app's:
// loaded before the baseline, as the reference loads pi-ai with its own import.
await prepareForm(form);
const run = () => (config.kind === "loop" ? runLoop(name, lib, config.workload, config.size, form) : runAgent(name, lib, config.workload, config.size, form));
const settle = () => new Promise((resolve) => setTimeout(resolve, 10));
function settledHeap() {
  for (let i = 0; i < 3; i++) global.gc();
  return process.memoryUsage().heapUsed;
}
/** Bytes in V8's code spaces (compiled and optimized code), part of heapUsed. */
function codeBytes() {
  return v8
    .getHeapSpaceStatistics()
    .filter((s) => s.space_name.startsWith("code"))
    .reduce((sum, s) => sum + s.space_used_size, 0);
}

const baselineRss = process.resourceUsage().maxRSS * 1024;
const first = await run();
const peakRss = process.resourceUsage().maxRSS * 1024;
const check = { ...first, kept: undefined };
delete check.kept;
await settle();

// Then warm runs of the same workload at a moderate size (dropped): V8 is still optimizing
// rxagent's code after one cold run of 1 000 turns (37–265 KiB of code compiled during the
// measured run otherwise), and the retained heap should be the run's data.
// A peer whose runs take seconds gets fewer, smaller warm runs (config.warmRuns, config.warmSize).
const warmSize = Math.min(config.size, config.warmSize ?? { streaming: 20_000, "tool-heavy": 200, "long-run": 1_000 }[config.workload]);
for (let i = 0; i < (config.warmRuns ?? 5); i++) await (config.kind === "loop" ? runLoop(name, lib, config.workload, warmSize, form) : runAgent(name, lib, config.workload, warmSize, form));
await settle();
const heapBefore = settledHeap();
const codeBefore = codeBytes();
const second = await run();
await settle();
const heapAfter = settledHeap();
const codeAfter = codeBytes();
const kept = second.kept;
process.stdout.write(JSON.stringify({ peakRss, baselineRss, heapRetained: heapAfter - heapBefore, codeRetained: codeAfter - codeBefore, check, kept: kept !== undefined }) + "\n");
