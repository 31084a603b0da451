/**
 * What an idle Agent costs in memory beyond its messages: N Agents made, never run, each given
 * the same transcript of MESSAGES messages (shared objects; each Agent copies the array, as both
 * runtimes do), heap used after a full GC before and after, divided by N. Run with --expose-gc.
 *
 * Usage: node --expose-gc workers/idle.mjs <reference|rxagent>. Prints one JSON line.
 */
import { loadRuntime } from "../lib/runtimes.mjs";
import { MODEL, userMessage } from "../lib/scenarios.mjs";

const name = process.argv[2];
const lib = await loadRuntime(name);
const N = 2000;
const MESSAGES = 10;
const transcript = Array.from({ length: MESSAGES }, (_, i) => userMessage(`message ${i}`));
const streamFn = () => {
  throw new Error("an idle Agent makes no request");
};

function heap() {
  global.gc();
  global.gc();
  return process.memoryUsage().heapUsed;
}

// One Agent first: code, shapes and caches the first Agent creates are not per Agent.
const warm = [new lib.Agent({ initialState: { model: MODEL, systemPrompt: "", messages: transcript }, streamFn })];
const kept = [];
const before = heap();
for (let i = 0; i < N; i++) kept.push(new lib.Agent({ initialState: { model: MODEL, systemPrompt: "", messages: transcript }, streamFn }));
const after = heap();
console.log(JSON.stringify({ name, agents: kept.length + warm.length - 1, messages: MESSAGES, bytesPerAgent: Math.round((after - before) / N) }));
