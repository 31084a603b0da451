/**
 * Times one workload for several variants in one fresh process, rotating the variants' order
 * each round so drift (thermal, other processes, GC debt) hits all of them alike.
 *
 * Usage: node workers/timing.mjs '<json>' with
 *   { kind: "loop" | "agent", workload, size, variants: ["reference:pi", "rxagent:pi", "rxagent:observable"],
 *     warmup, runs, warmupSize?, runsFor?: { "reference:pi": 3 } }
 * The peers and the floor are variants too: "ai-sdk:v4", "openai-agents:model", "floor:plain"
 * (lib/runtimes.mjs); bench/run.mjs gives each its own process. "rxagent:observable:agent" runs
 * the Agent (one listener) on a loop workload, beside the loop variants.
 * warmupSize: the size of the warm-up runs when it differs from the measured size.
 * Prints one JSON line: { variant: { wall: number[], cpu: number[], check } }.
 *
 * No forced GC between runs: a forced full GC shrinks the young generation, and the next run
 * then pays for regrowing it (measured: 5-10x slower runs for both runtimes). The runtimes'
 * own garbage is part of their cost.
 */
import { loadRuntime, runAgent, runLoop } from "../lib/runtimes.mjs";

const config = JSON.parse(process.argv[2]);
const libs = {};
for (const variant of config.variants) {
  const [name] = variant.split(":");
  libs[name] ??= await loadRuntime(name);
}

async function once(variant, size) {
  // "name:form", or "name:form:agent" for the Agent on a loop workload (streaming: the Agent beside its own loop).
  const [name, form, as] = variant.split(":");
  const kind = as === "agent" ? "agent" : config.kind;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const outcome = kind === "loop" ? await runLoop(name, libs[name], config.workload, size, form) : await runAgent(name, libs[name], config.workload, size, form);
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  delete outcome.kept;
  const turnWindows = outcome.turnEnds ? windows(outcome.turnEnds) : undefined;
  delete outcome.turnEnds;
  return { wall, cpu: (cpu.user + cpu.system) / 1000, outcome, turnWindows };
}

/** Per-turn durations (µs) in the first and last 900 turns of a run: median (a typical turn) and mean (with GC pauses). */
function windows(ends) {
  const span = 900;
  if (ends.length < 2 * span + 100) return undefined;
  const stats = (from, to) => {
    const d = [];
    for (let i = from; i < to; i++) d.push((ends[i] - ends[i - 1]) * 1000);
    const sorted = d.sort((a, b) => a - b);
    return { median: sorted[sorted.length >> 1], mean: d.reduce((a, b) => a + b, 0) / d.length };
  };
  // Turns 101-1 000 (past the first hundred) and the last 900.
  return { early: stats(101, 101 + span), late: stats(ends.length - span, ends.length) };
}

const results = Object.fromEntries(config.variants.map((v) => [v, { wall: [], cpu: [], turnWindows: [], check: undefined }]));
const rounds = config.warmup + config.runs;
for (let round = 0; round < rounds; round++) {
  const order = config.variants.map((_, i) => config.variants[(i + round) % config.variants.length]);
  for (const variant of order) {
    const measured = round >= config.warmup;
    const wanted = config.runsFor?.[variant] ?? config.runs;
    // A variant with fewer runs (the reference's slowest size) takes its runs in the last rounds.
    if (measured && round - config.warmup < config.runs - wanted) continue;
    if (!measured && round < config.warmup - (config.warmupFor?.[variant] ?? config.warmup)) continue;
    const { wall, cpu, outcome, turnWindows } = await once(variant, measured ? config.size : (config.warmupSize ?? config.size));
    const r = results[variant];
    if (!measured && config.warmupSize !== undefined && config.warmupSize !== config.size) continue;
    r.check ??= outcome;
    if (JSON.stringify(r.check) !== JSON.stringify(outcome)) throw new Error(`${variant}: runs disagree: ${JSON.stringify(r.check)} vs ${JSON.stringify(outcome)}`);
    if (measured) {
      r.wall.push(wall);
      r.cpu.push(cpu);
      if (turnWindows) r.turnWindows.push(turnWindows);
    }
    if (process.env.BENCH_VERBOSE) process.stderr.write(`  ${config.workload} ${config.size} ${variant} ${measured ? "run" : "warm-up"} ${wall.toFixed(1)} ms\n`);
  }
}
process.stdout.write(JSON.stringify(results) + "\n");
