#!/usr/bin/env node
/**
 * What `rxagent/otel` costs a run. Scripted Agent workloads under seven variants:
 *
 *   none            no tracing at all: `agent.prompt$(...)` as it is
 *   noop-listener   `agent.subscribe(() => undefined)`: what any Agent listener costs, for scale
 *   off:operator    `prompt$(...).pipe(traceAgent())`, no tracer provider registered (the API's no-op tracer)
 *   off:instrument  `instrumentAgent(agent)` (watches `agent.events$`), no tracer provider registered
 *   off:listener    `agent.subscribe(tracingListener())`, no tracer provider registered
 *   on:operator     `traceAgent({ tracerProvider })`: the official SDK, SimpleSpanProcessor, InMemorySpanExporter
 *   on:instrument   `instrumentAgent(agent, { tracerProvider })`, the same SDK
 *
 * Workloads (bench/lib/scenarios.mjs, the native Observable provider):
 *   tool-heavy   N turns of 4 parallel tool calls and 3 text deltas, then an answer (5 spans a turn)
 *   streaming    one answer of N text deltas (the per-event path: 2 spans, N events)
 *
 * Rounds alternate the variants (in a shuffled order each round) in one process, after
 * warm-up rounds, so every variant runs with the same JIT state and heap, as an app's code shares
 * them; `--isolated` runs every variant of every round in a fresh process instead (which warms up,
 * then times), so no variant's code shapes another's call sites. A variant's figure is the median
 * over rounds of its median divided by `none`'s median of the same round: a slow moment of the
 * machine hits both sides of a ratio. Then the operator alone: a recorded run's events replayed
 * through it in a tight loop (steady even on a busy machine), next to rxjs's `map` for scale.
 *
 *   node bench/otel.mjs              full run (a few minutes)
 *   node bench/otel.mjs --isolated   a fresh process per variant per round
 *   node bench/otel.mjs --quick      fewer rounds, to check the harness
 *
 * Runs against the build in dist/ (`npm run build`), or RXAGENT_DIST=<dir>. Prints a table, then
 * one JSON line with every figure (for bench/run.mjs).
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { instantTool, MODEL, prepareForm, scriptedStreamFn, streamingScript, toolHeavyScript } from "./lib/scenarios.mjs";
import { lastJson, median, round } from "./lib/stats.mjs";

/**
 * `items` in an order of its own for round `r` (a seeded shuffle): not a rotation, in which every
 * variant would always follow the same one and inherit its garbage.
 */
function shuffled(items, r) {
  let seed = Math.imul(r + 1, 2654435761) >>> 0;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** The `q`-quantile of `values` (nearest rank). */
function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))))];
}

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.resolve(process.env.RXAGENT_DIST ?? path.join(here, "../dist"));
for (const file of ["index.js", "otel/index.js"]) {
  if (!existsSync(path.join(dist, file))) throw new Error(`${path.join(dist, file)} is missing: run \`npm run build\` at the repository root.`);
}
// A worker gets the orchestrator's --quick in its JSON argument.
const quick = process.argv.includes("--quick") || (process.argv[2] === "--worker" && JSON.parse(process.argv[3]).quick === true);

const VARIANTS = ["none", "noop-listener", "off:operator", "off:instrument", "off:listener", "on:operator", "on:instrument"];
const WORKLOADS = {
  "tool-heavy": { size: quick ? 100 : 400, script: toolHeavyScript, warmup: quick ? 4 : 10, runs: quick ? 3 : 5, rounds: quick ? 3 : 15 },
  streaming: { size: quick ? 20_000 : 100_000, script: streamingScript, warmup: quick ? 3 : 6, runs: quick ? 3 : 5, rounds: quick ? 3 : 15 },
};

async function load() {
  const { Agent } = await import(pathToFileURL(path.join(dist, "index.js")).href);
  const otel = await import(pathToFileURL(path.join(dist, "otel/index.js")).href);
  await prepareForm("observable");
  return { Agent, ...otel };
}

const tool = instantTool();

/** One run of `workload` under `variant`: wall ms, CPU ms, and what was done (the cross-check). */
async function once(lib, variant, name, sdk) {
  const workload = WORKLOADS[name];
  const streamFn = scriptedStreamFn(workload.script(workload.size), "observable");
  const agent = new lib.Agent({ initialState: { model: MODEL, tools: [tool], systemPrompt: "You are a benchmark." }, streamFn });
  let events = 0;
  agent.subscribe(() => void events++);
  let stop;
  if (variant === "noop-listener") agent.subscribe(() => undefined);
  if (variant === "off:instrument") stop = lib.instrumentAgent(agent);
  if (variant === "off:listener") agent.subscribe(lib.tracingListener());
  if (variant === "on:instrument") stop = lib.instrumentAgent(agent, { tracerProvider: sdk.provider });
  const operator = variant === "off:operator" ? lib.traceAgent() : variant === "on:operator" ? lib.traceAgent({ tracerProvider: sdk.provider }) : undefined;
  sdk.exporter.reset();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await new Promise((resolve, reject) => {
    const run$ = agent.prompt$("go");
    (operator ? run$.pipe(operator) : run$).subscribe({ error: reject, complete: resolve });
  });
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  stop?.();
  return { wall, cpu: (cpu.user + cpu.system) / 1000, check: { events, messages: agent.state.messages.length }, spans: sdk.exporter.getFinishedSpans().length };
}

/** The SDK the "on" variants trace to; nothing is registered globally, so the "off" ones see the API's no-op tracer. */
async function sdkSetup() {
  const { trace } = await import("@opentelemetry/api");
  const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = await import("@opentelemetry/sdk-trace-base");
  trace.disable();
  const exporter = new InMemorySpanExporter();
  return { exporter, provider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }) };
}

/** `warmup` untimed runs, then the medians of `runs` timed ones. */
async function timed(lib, sdk, variant, name, warmup, runs) {
  const wall = [];
  const cpu = [];
  let last;
  for (let i = 0; i < warmup + runs; i++) {
    last = await once(lib, variant, name, sdk);
    if (i >= warmup) {
      wall.push(last.wall);
      cpu.push(last.cpu);
    }
  }
  return { wall: median(wall), cpu: median(cpu), check: last.check, spans: last.spans };
}

/** The worker of `--isolated`: one variant, warmed up and timed in this fresh process. */
async function worker({ variant, workload }) {
  const { warmup, runs } = WORKLOADS[workload];
  process.stdout.write(JSON.stringify(await timed(await load(), await sdkSetup(), variant, workload, warmup, runs)) + "\n");
}

/** The operator alone: a recorded run's events replayed through `traceAgent()`, `map((e) => e)` and nothing. */
async function replayed(lib, name) {
  const { Observable, map } = await import("rxjs");
  const workload = WORKLOADS[name];
  const agent = new lib.Agent({ initialState: { model: MODEL, tools: [tool], systemPrompt: "You are a benchmark." }, streamFn: scriptedStreamFn(workload.script(workload.size), "observable") });
  const events = [];
  agent.subscribe((event) => void events.push(event));
  await agent.prompt("go");
  const source = new Observable((subscriber) => {
    for (let i = 0; i < events.length && !subscriber.closed; i++) subscriber.next(events[i]);
    subscriber.complete();
  });
  const operators = { none: () => undefined, "off:operator": () => lib.traceAgent(), "rxjs map": () => map((event) => event) };
  const names = Object.keys(operators);
  const samples = Object.fromEntries(names.map((n) => [n, []]));
  const reps = Math.max(1, Math.round(1_000_000 / events.length));
  for (let r = 0; r < (quick ? 5 : 21) + 3; r++) {
    for (const op of names.map((_, i) => names[(i + r) % names.length])) {
      let ms = 0;
      for (let i = 0; i < reps; i++) {
        let seen = 0;
        const operator = operators[op]();
        const t0 = performance.now();
        (operator ? source.pipe(operator) : source).subscribe(() => void seen++);
        ms += performance.now() - t0;
        if (seen !== events.length) throw new Error("the replay lost events");
      }
      if (r >= 3) samples[op].push((ms * 1e6) / (reps * events.length));
    }
  }
  const base = median(samples.none);
  return { events: events.length, operatorAddsNs: round(median(samples["off:operator"]) - base, 1), rxjsMapAddsNs: round(median(samples["rxjs map"]) - base, 1) };
}

if (process.argv[2] === "--worker") {
  await worker(JSON.parse(process.argv[3]));
  process.exit(0);
}

const isolated = process.argv.includes("--isolated");
const self = fileURLToPath(import.meta.url);
const lib = await load();
const sdk = await sdkSetup();
const results = {};
for (const [name, workload] of Object.entries(WORKLOADS)) {
  const order = (r) => shuffled(VARIANTS, r);
  if (!isolated) for (let r = 0; r < workload.warmup; r++) for (const variant of order(r)) await once(lib, variant, name, sdk);
  const rounds = [];
  for (let r = 0; r < workload.rounds; r++) {
    const row = {};
    for (const variant of order(r)) {
      row[variant] = isolated
        ? lastJson(execFileSync(process.execPath, [self, "--worker", JSON.stringify({ variant, workload: name, quick })], { cwd: here, encoding: "utf8", env: { ...process.env, RXAGENT_DIST: dist }, stdio: ["ignore", "pipe", "inherit"] }))
        : await timed(lib, sdk, variant, name, 0, workload.runs);
    }
    const checks = new Set(Object.values(row).map((o) => JSON.stringify(o.check)));
    if (checks.size !== 1) throw new Error(`${name}: variants did different work: ${[...checks].join(" vs ")}`);
    rounds.push(row);
    process.stderr.write(`[otel bench] ${name} round ${r + 1}/${workload.rounds}\n`);
  }
  results[name] = {
    size: workload.size,
    rounds: workload.rounds,
    runsPerRound: workload.runs,
    work: rounds[0].none.check,
    variants: Object.fromEntries(
      VARIANTS.map((v) => [
        v,
        {
          wallMs: round(median(rounds.map((row) => row[v].wall)), 3),
          cpuMs: round(median(rounds.map((row) => row[v].cpu)), 3),
          wallRatio: round(median(rounds.map((row) => row[v].wall / row.none.wall)), 3),
          cpuRatio: round(median(rounds.map((row) => row[v].cpu / row.none.cpu)), 3),
          // The spread of the per-round ratios: how much of a difference is the machine's.
          cpuRatioP25: round(quantile(rounds.map((row) => row[v].cpu / row.none.cpu), 0.25), 3),
          cpuRatioP75: round(quantile(rounds.map((row) => row[v].cpu / row.none.cpu), 0.75), 3),
          spans: rounds[0][v].spans,
        },
      ]),
    ),
  };
}

for (const [name, r] of Object.entries(results)) {
  const alone = await replayed(lib, name);
  const runCpuNs = (r.variants.none.cpuMs * 1e6) / r.work.events;
  r.operatorAlone = { ...alone, runCpuNsPerEvent: round(runCpuNs, 0), impliedRatio: round(1 + alone.operatorAddsNs / runCpuNs, 4) };
}

const rows = [["workload", "variant", "wall ms", "wall × none", "CPU ms", "CPU × none", "p25–p75", "spans"]];
for (const [name, r] of Object.entries(results)) {
  for (const [variant, v] of Object.entries(r.variants)) {
    rows.push([`${name} ${r.size}`, variant, v.wallMs.toFixed(2), v.wallRatio.toFixed(3), v.cpuMs.toFixed(2), v.cpuRatio.toFixed(3), `${v.cpuRatioP25.toFixed(2)}–${v.cpuRatioP75.toFixed(2)}`, String(v.spans)]);
  }
}
const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
const line = (row) => `| ${row.map((cell, c) => (c >= 2 ? cell.padStart(widths[c]) : cell.padEnd(widths[c]))).join(" | ")} |`;
console.log(line(rows[0]));
console.log(`|${widths.map((w, c) => (c >= 2 ? "-".repeat(w + 1) + ":" : "-".repeat(w + 2))).join("|")}|`);
for (const row of rows.slice(1)) console.log(line(row));
console.log("\nThe operator alone (tracing off), replaying a recorded run's events:");
for (const [name, r] of Object.entries(results)) {
  const o = r.operatorAlone;
  console.log(`  ${name}: traceAgent() adds ${o.operatorAddsNs} ns per event (rxjs map adds ${o.rxjsMapAddsNs}); a whole run costs ${o.runCpuNsPerEvent} ns of CPU per event → ${o.impliedRatio.toFixed(4)}× none`);
}
const load1 = os.loadavg()[0].toFixed(2);
console.log(`\nmedians over rounds (${isolated ? "a fresh process per variant per round" : "alternating in one process"}); × none: median of the per-round ratios; node ${process.version}, ${os.cpus().length} cores, load ${load1}; target: off:operator ≤ 1.02× none`);
console.log(JSON.stringify({ otel: results }));
