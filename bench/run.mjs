#!/usr/bin/env node
/**
 * rxagent vs @earendil-works/pi-agent-core 1.6.0, side by side.
 *
 *   node bench/run.mjs            the full run (a few minutes), writes bench/RESULTS.md and bench/results.json
 *   node bench/run.mjs --quick    fewer runs and sizes, to check the harness (results not written)
 *   node bench/run.mjs --render   rewrite RESULTS.md from results.json (after editing FINDINGS.md)
 *
 * Installs bench/'s own dependencies on first use (npm ci) and builds rxagent (npm run build at
 * the root) when dist/ is missing. Every workload runs in fresh child processes; see
 * workers/*.mjs for how each figure is taken.
 */
import { execFileSync, execSync, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { lastJson, median, round, summary } from "./lib/stats.mjs";
import { RXAGENT_ENTRY as RXAGENT_ENTRY_PATH } from "./lib/runtimes.mjs";

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const rootDir = path.resolve(benchDir, "..");
const quick = process.argv.includes("--quick");
const started = Date.now();

const VARIANTS = ["reference:pi", "rxagent:pi", "rxagent:observable"];
const LABEL = {
  "reference:pi": "reference, pi-ai stream",
  "rxagent:pi": "rxagent, the same pi-ai stream",
  "rxagent:observable": "rxagent, native Observable provider",
};

// --render: rewrite RESULTS.md from results.json (after editing FINDINGS.md), without running.
if (process.argv.includes("--render")) {
  const saved = JSON.parse(readFileSync(path.join(benchDir, "results.json"), "utf8"));
  saved.method = methodNotes();
  writeFileSync(path.join(benchDir, "results.json"), JSON.stringify(saved, null, 2) + "\n");
  writeFileSync(path.join(benchDir, "RESULTS.md"), renderMarkdown(saved));
  process.exit(0);
}

function log(message) {
  process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(0).padStart(4)}s] ${message}\n`);
}

// ── setup ────────────────────────────────────────────────────────────────────────────────
if (!existsSync(path.join(benchDir, "node_modules/@earendil-works/pi-agent-core")) || !existsSync(path.join(benchDir, "node_modules/esbuild"))) {
  log("installing bench dependencies (npm ci in bench/)");
  execSync("npm ci --no-audit --no-fund", { cwd: benchDir, stdio: "inherit" });
}
if (!process.env.RXAGENT_DIST && !existsSync(path.join(rootDir, "dist/index.js"))) {
  log("building rxagent (npm run build)");
  execSync("npm run build", { cwd: rootDir, stdio: "inherit" });
}

function node(args, { gc = false } = {}) {
  const flags = gc ? ["--expose-gc"] : [];
  return lastJson(execFileSync(process.execPath, [...flags, ...args], { cwd: benchDir, encoding: "utf8", maxBuffer: 64 * 1024 * 1024, stdio: ["ignore", "pipe", "inherit"] }));
}

function git(args) {
  try {
    return execFileSync("git", args, { cwd: rootDir, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return undefined;
  }
}

const referenceVersion = JSON.parse(execFileSync(process.execPath, ["-p", "JSON.stringify(require('@earendil-works/pi-agent-core/package.json'))"], { cwd: benchDir, encoding: "utf8" })).version;
const machine = {
  cpu: os.cpus()[0]?.model ?? "unknown",
  cores: os.cpus().length,
  memoryGiB: round(os.totalmem() / 2 ** 30, 1),
  node: process.version,
  v8: process.versions.v8,
  platform: `${os.platform()} ${os.release()} ${os.arch()}`,
  loadAverageAtStart: os.loadavg().map((l) => round(l, 2)),
};
const provenance = {
  date: new Date().toISOString(),
  // RXAGENT_DIST (another build) and RXAGENT_COMMIT (what it was built from) for runs of a build
  // other than this working tree's dist/.
  rxagentDist: process.env.RXAGENT_DIST ?? "dist/",
  rxagentCommit: process.env.RXAGENT_COMMIT ?? git(["rev-parse", "--short", "HEAD"]),
  rxagentWorkingTreeDirty: process.env.RXAGENT_DIST ? false : (git(["status", "--porcelain", "--", "src"]) ?? "").length > 0,
  reference: `@earendil-works/pi-agent-core@${referenceVersion}`,
  referenceEngines: ">=22.19.0 (declared); loaded and ran on this Node without changes",
};


// ── timing ───────────────────────────────────────────────────────────────────────────────
function timing(kind, workload, size, { warmup, runs, runsFor, warmupFor }) {
  log(`timing ${workload} ${size} (${warmup} warm-up + ${runs} runs, alternating)`);
  const raw = node(["workers/timing.mjs", JSON.stringify({ kind, workload, size, variants: VARIANTS, warmup, runs, runsFor, warmupFor })]);
  const out = {};
  for (const [variant, r] of Object.entries(raw)) out[variant] = { wallMs: summary(r.wall.map((v) => round(v, 3))), cpuMs: summary(r.cpu.map((v) => round(v, 3))), check: r.check };
  // Both runtimes must have done the same work.
  const checks = new Set(Object.values(out).map((r) => JSON.stringify(r.check)));
  if (checks.size !== 1) throw new Error(`${workload} ${size}: runtimes disagree: ${[...checks].join(" vs ")}`);
  return out;
}

/**
 * The long runs: every measured run in a fresh process, after 8 warm-up runs of 1 000 turns in
 * that process (rxagent's first 4–5 runs of 1 000 turns in a fresh process are 1.5–10× slower
 * than its steady state), the variants' processes in rotating order each round. Not a warm-up
 * of the measured size: after a 16 000-turn run, the first ~4 000 turns of the next one are
 * slower (V8's heap sizing after a large dead heap: 139, 54, 45, 27, then 19 µs per turn in
 * 1 000-turn buckets), which measures the previous run, not this one. In one shared process the reference's multi-second 16 000-turn runs leave a
 * large heap behind, and the next runtime's garbage collections pay for it.
 */
function timingIsolated(kind, workload, size, rounds) {
  log(`timing ${workload} ${size} (${rounds} rounds, one fresh process per variant per round, alternating)`);
  const raw = Object.fromEntries(VARIANTS.map((v) => [v, { wall: [], cpu: [], turnWindows: [], check: undefined }]));
  for (let round = 0; round < rounds; round++) {
    const order = VARIANTS.map((_, i) => VARIANTS[(i + round) % VARIANTS.length]);
    for (const variant of order) {
      const r = node(["workers/timing.mjs", JSON.stringify({ kind, workload, size, variants: [variant], warmup: 8, warmupSize: 1_000, runs: 1 })])[variant];
      raw[variant].wall.push(...r.wall);
      raw[variant].cpu.push(...r.cpu);
      raw[variant].turnWindows.push(...r.turnWindows);
      raw[variant].check = r.check;
    }
  }
  const out = {};
  for (const [variant, r] of Object.entries(raw)) {
    out[variant] = { wallMs: summary(r.wall.map((v) => round(v, 3))), cpuMs: summary(r.cpu.map((v) => round(v, 3))), check: r.check };
    if (r.turnWindows.length > 0) {
      const pick = (window, stat) => round(median(r.turnWindows.map((w) => w[window][stat])), 2);
      // Medians over the runs of: the median turn (a typical turn) and the mean turn (with GC pauses), µs.
      out[variant].turnUs = { earlyMedian: pick("early", "median"), lateMedian: pick("late", "median"), earlyMean: pick("early", "mean"), lateMean: pick("late", "mean") };
    }
  }
  const checks = new Set(Object.values(out).map((r) => JSON.stringify(r.check)));
  if (checks.size !== 1) throw new Error(`${workload} ${size}: runtimes disagree: ${[...checks].join(" vs ")}`);
  return out;
}

const sizes = quick ? { deltas: 20_000, toolTurns: 200, longRuns: [500, 2000] } : { deltas: 100_000, toolTurns: 1_000, longRuns: [1_000, 4_000, 16_000] };
const timings = {
  streaming: { kind: "loop", size: sizes.deltas, variants: timing("loop", "streaming", sizes.deltas, { warmup: 3, runs: quick ? 5 : 15 }) },
  toolHeavy: { kind: "loop", size: sizes.toolTurns, variants: timing("loop", "tool-heavy", sizes.toolTurns, { warmup: 5, runs: quick ? 5 : 15 }) },
  longRun: sizes.longRuns.map((turns) => ({
    kind: "agent",
    size: turns,
    variants: timingIsolated("agent", "long-run", turns, quick ? 3 : turns >= 16_000 ? 5 : turns >= 4_000 ? 9 : 11),
  })),
};

// ── memory ───────────────────────────────────────────────────────────────────────────────
function memory(kind, workload, size, reps) {
  log(`memory ${workload} ${size} (${reps} processes per variant, alternating)`);
  const samples = Object.fromEntries(VARIANTS.map((v) => [v, []]));
  for (let rep = 0; rep < reps; rep++) {
    for (const variant of rep % 2 ? [...VARIANTS].reverse() : VARIANTS) {
      samples[variant].push(node(["workers/memory.mjs", JSON.stringify({ kind, workload, size, variant })], { gc: true }));
    }
  }
  return Object.fromEntries(
    Object.entries(samples).map(([variant, list]) => [
      variant,
      {
        peakRssMiB: summary(list.map((s) => round(s.peakRss / 2 ** 20, 2))),
        baselineRssMiB: summary(list.map((s) => round(s.baselineRss / 2 ** 20, 2))),
        heapRetainedKiB: summary(list.map((s) => round(s.heapRetained / 1024, 1))),
        codeRetainedKiB: summary(list.map((s) => round(s.codeRetained / 1024, 1))),
        dataRetainedKiB: summary(list.map((s) => round((s.heapRetained - s.codeRetained) / 1024, 1))),
      },
    ]),
  );
}
const memoryReps = quick ? 1 : 3;
const memoryResults = {
  streaming: { size: sizes.deltas, variants: memory("loop", "streaming", sizes.deltas, memoryReps) },
  longRun: sizes.longRuns.map((turns) => ({ size: turns, variants: memory("agent", "long-run", turns, memoryReps) })),
};

// ── durable sessions ─────────────────────────────────────────────────────────────────────
/**
 * The long run on rxagent's Agent (native Observable provider) with each session store, against
 * the same Agent with none: fresh processes, the stores' order rotating each round. The stores
 * that wait for a disk or a server per entry run at the smallest size only (their cost is per
 * entry, so it is flat by construction, and 16 000 turns would take minutes).
 */
async function sessions() {
  const pg = await startBenchPostgres();
  try {
    const plan = quick
      ? [{ turns: 500, stores: ["none", "memory", "file-grouped", "file-fsync", "postgres"], rounds: 2 }]
      : [
          { turns: 1_000, stores: ["none", "memory", "file-grouped", "file-fsync", "postgres"], rounds: 5 },
          { turns: 4_000, stores: ["none", "memory", "file-grouped"], rounds: 5 },
          { turns: 16_000, stores: ["none", "memory", "file-grouped"], rounds: 5 },
        ];
    return plan.map(({ turns, stores, rounds }) => {
      log(`sessions ${turns} turns: ${stores.join(", ")} (${rounds} rounds, one fresh process per store per round, rotating)`);
      const raw = Object.fromEntries(stores.map((store) => [store, { wall: [], cpu: [], loadMs: [], messages: undefined }]));
      for (let round = 0; round < rounds; round++) {
        for (const store of stores.map((_, i) => stores[(i + round) % stores.length])) {
          // A store that waits for the disk or the server per entry warms up once: its cost is that wait.
          const warmup = store === "file-fsync" || store === "postgres" ? 1 : 4;
          const r = node(["workers/sessions.mjs", JSON.stringify({ store, turns, runs: 1, warmup, pgUrl: pg.url })]);
          raw[store].wall.push(...r.wall);
          raw[store].cpu.push(...r.cpu);
          if (r.load) {
            raw[store].loadMs.push(r.load.ms);
            raw[store].messages = r.load.messages;
          }
        }
      }
      const out = {};
      for (const [store, r] of Object.entries(raw)) {
        out[store] = { wallMs: summary(r.wall.map((v) => round(v, 3))), cpuMs: summary(r.cpu.map((v) => round(v, 3))) };
        if (r.loadMs.length > 0) out[store].load = { ms: summary(r.loadMs.map((v) => round(v, 3))), messages: r.messages };
      }
      return { turns, stores: out };
    });
  } finally {
    pg.stop();
  }
}

/** The embedded PostgreSQL of the test suite, in a child process for the session runs (or RXAGENT_PG_URL). */
async function startBenchPostgres() {
  if (process.env.RXAGENT_PG_URL) return { url: process.env.RXAGENT_PG_URL, stop: () => undefined };
  log("starting an embedded PostgreSQL for the session store runs");
  const child = spawn(process.execPath, ["--import", "tsx", "lib/postgres-server.ts"], { cwd: benchDir, stdio: ["ignore", "pipe", "inherit"] });
  const line = await new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the PostgreSQL server process exited (${code}) before it was ready`)));
    child.stdout.once("data", (chunk) => resolve(String(chunk)));
  });
  return { url: JSON.parse(line).url, stop: () => child.kill("SIGTERM") };
}
// A build from before sessions existed has none to measure.
const sessionResults = existsSync(path.join(path.dirname(RXAGENT_ENTRY_PATH), "session/index.js")) ? await sessions() : [];

// ── tracing ──────────────────────────────────────────────────────────────────────────────
/** bench/otel.mjs on the same build: an Agent workload with tracing off and on, against none. */
function tracing() {
  log("tracing overhead (otel.mjs): the operator off and on, instrumentAgent on, against no tracing");
  const out = execFileSync(process.execPath, ["otel.mjs", ...(quick ? ["--quick"] : [])], {
    cwd: benchDir,
    encoding: "utf8",
    env: { ...process.env, RXAGENT_DIST: path.dirname(RXAGENT_ENTRY_PATH) },
    maxBuffer: 64 * 1024 * 1024,
    stdio: ["ignore", "pipe", "inherit"],
  });
  return lastJson(out).otel;
}
// A build from before rxagent/otel existed has none to measure.
const otelResults = existsSync(path.join(path.dirname(RXAGENT_ENTRY_PATH), "otel/index.js")) ? tracing() : undefined;

// ── size and start-up ────────────────────────────────────────────────────────────────────
log("bundle sizes (esbuild)");
const sizeResults = node(["workers/size.mjs"]);
function importTimes(reps) {
  log(`cold import (${reps} fresh processes per runtime, alternating)`);
  const samples = { reference: [], rxagent: [] };
  for (let rep = 0; rep < reps; rep++) for (const name of rep % 2 ? ["rxagent", "reference"] : ["reference", "rxagent"]) samples[name].push(node(["workers/import-time.mjs", name]));
  return Object.fromEntries(
    Object.entries(samples).map(([name, list]) => [name, { ms: summary(list.map((s) => round(s.ms, 2))), rssAddedMiB: summary(list.map((s) => round(s.rssAdded / 2 ** 20, 2))) }]),
  );
}
const importResults = importTimes(quick ? 3 : 11);
machine.loadAverageAtEnd = os.loadavg().map((l) => round(l, 2));

// ── targets ──────────────────────────────────────────────────────────────────────────────
const ratio = (ref, rx) => round(ref / rx, 2);
const med = (entry, variant) => entry.variants[variant].wallMs.median;
const longest = timings.longRun.at(-1);
const shortest = timings.longRun[0];
const perTurn = (entry, variant) => (med(entry, variant) * 1000) / entry.size;
const targets = [];
function target(name, value, goal, met, note) {
  targets.push({ name, value, goal, met, note });
}
target("Streaming, shared async-iterable stream", ratio(med(timings.streaming, "reference:pi"), med(timings.streaming, "rxagent:pi")), "≥ 1.5×", ratio(med(timings.streaming, "reference:pi"), med(timings.streaming, "rxagent:pi")) >= 1.5);
target("Streaming, native Observable provider", ratio(med(timings.streaming, "reference:pi"), med(timings.streaming, "rxagent:observable")), "≥ 5×", ratio(med(timings.streaming, "reference:pi"), med(timings.streaming, "rxagent:observable")) >= 5);
target("Tool-heavy (shared stream)", ratio(med(timings.toolHeavy, "reference:pi"), med(timings.toolHeavy, "rxagent:pi")), "≥ 2×", ratio(med(timings.toolHeavy, "reference:pi"), med(timings.toolHeavy, "rxagent:pi")) >= 2, `native Observable provider: ${ratio(med(timings.toolHeavy, "reference:pi"), med(timings.toolHeavy, "rxagent:observable"))}×`);
target(`Long run at ${longest.size} turns (shared stream)`, ratio(med(longest, "reference:pi"), med(longest, "rxagent:pi")), "≥ 10×", ratio(med(longest, "reference:pi"), med(longest, "rxagent:pi")) >= 10, `native Observable provider: ${ratio(med(longest, "reference:pi"), med(longest, "rxagent:observable"))}×`);
for (const variant of ["rxagent:pi", "rxagent:observable"]) {
  const growth = round(perTurn(longest, variant) / perTurn(shortest, variant), 2);
  const cpuPerTurn = (entry) => (entry.variants[variant].cpuMs.median * 1000) / entry.size;
  target(
    `Flat per turn, ${LABEL[variant]}: µs/turn at ${longest.size} ÷ at ${shortest.size}`,
    growth,
    "≤ 1.25",
    growth <= 1.25,
    `${round(perTurn(shortest, variant), 1)} → ${round(perTurn(longest, variant), 1)} µs/turn (CPU: ${round(cpuPerTurn(shortest), 1)} → ${round(cpuPerTurn(longest), 1)}); reference: ${round(perTurn(shortest, "reference:pi"), 1)} → ${round(perTurn(longest, "reference:pi"), 1)}`,
  );
}
for (const variant of ["rxagent:pi", "rxagent:observable"]) {
  const t = longest.variants[variant].turnUs;
  const ref = longest.variants["reference:pi"].turnUs;
  if (!t) continue;
  const growth = round(t.lateMedian / t.earlyMedian, 2);
  target(
    `Flat per turn inside one ${longest.size}-turn run, ${LABEL[variant]}: typical turn in the last 900 ÷ in turns 101–1 000`,
    growth,
    "≤ 1.25",
    growth <= 1.25,
    `median turn ${t.earlyMedian} → ${t.lateMedian} µs; mean turn (with GC) ${t.earlyMean} → ${t.lateMean} µs; reference: ${ref.earlyMedian} → ${ref.lateMedian} µs (mean ${ref.earlyMean} → ${ref.lateMean})`,
  );
}
const memoryEntries = [{ label: `streaming ${memoryResults.streaming.size}`, entry: memoryResults.streaming }, ...memoryResults.longRun.map((e) => ({ label: `long run ${e.size}`, entry: e }))];
for (const { label, entry } of memoryEntries) {
  for (const variant of ["rxagent:pi", "rxagent:observable"]) {
    const ref = entry.variants["reference:pi"];
    const rx = entry.variants[variant];
    target(`Peak RSS, ${label}, ${LABEL[variant]}`, `${rx.peakRssMiB.median} vs ${ref.peakRssMiB.median} MiB`, "≤ reference", rx.peakRssMiB.median <= ref.peakRssMiB.median);
    target(
      `Heap retained (data: outside V8's code spaces), ${label}, ${LABEL[variant]}`,
      `${rx.dataRetainedKiB.median} vs ${ref.dataRetainedKiB.median} KiB`,
      "≤ reference",
      rx.dataRetainedKiB.median <= ref.dataRetainedKiB.median,
      `with code: ${rx.heapRetainedKiB.median} vs ${ref.heapRetainedKiB.median} KiB`,
    );
  }
}
// Durable sessions: each store's per-turn cost against no store, flatness, and load time.
const STORE_LABEL = { memory: "InMemorySessionStore", "file-grouped": "FileSessionStore, fsync every 50 ms", "file-fsync": "FileSessionStore, fsync per append", postgres: "PostgresSessionStore (embedded server, loopback)" };
for (const entry of sessionResults) {
  const none = entry.stores.none.wallMs.median;
  for (const [store, r] of Object.entries(entry.stores)) {
    if (store === "none") continue;
    const value = round(r.wallMs.median / none, 2);
    const perTurn = round(((r.wallMs.median - none) * 1000) / entry.turns, 1);
    target(`Session overhead at ${entry.turns} turns, ${STORE_LABEL[store]}: run time ÷ no store`, value, store === "memory" ? "≤ 1.1×" : "reported", store === "memory" ? value <= 1.1 : true, `${perTurn} µs more per turn (4 journal entries a turn); CPU ratio ${round(r.cpuMs.median / entry.stores.none.cpuMs.median, 2)}`);
  }
}
if (sessionResults.length > 1) {
  const first = sessionResults[0];
  const last = sessionResults.at(-1);
  {
    const perTurn = (entry) => (entry.stores.memory.wallMs.median * 1000) / entry.turns;
    const growth = round(perTurn(last) / perTurn(first), 2);
    target(`Flat per turn with InMemorySessionStore: µs/turn at ${last.turns} ÷ at ${first.turns}`, growth, "≤ 1.25", growth <= 1.25, `${round(perTurn(first), 1)} → ${round(perTurn(last), 1)} µs/turn`);
    for (const store of ["memory", "file-grouped"]) {
      const per1000 = (entry) => (entry.stores[store].load.ms.median * 1000) / entry.stores[store].load.messages;
      const linear = round(per1000(last) / per1000(first), 2);
      target(
        `Load time of a session, ${STORE_LABEL[store]}: ms per 1 000 messages at ${last.turns} turns ÷ at ${first.turns}`,
        linear,
        "≤ 1.25 (linear)",
        linear <= 1.25,
        sessionResults.map((e) => `${e.turns} turns (${e.stores[store].load.messages} messages): ${fmt(e.stores[store].load.ms.median)} ms, ${fmt(per1000(e), 2)} ms per 1 000`).join("; "),
      );
    }
  }
}
for (const [name, r] of Object.entries(otelResults ?? {})) {
  const off = r.variants["off:operator"];
  target(`Tracing off (traceAgent, no provider), ${name} ${r.size}: CPU × no tracing`, off.cpuRatio, "≤ 1.02×", off.cpuRatio <= 1.02, `p25–p75 ${off.cpuRatioP25}–${off.cpuRatioP75}; the operator alone adds ${r.operatorAlone.operatorAddsNs} ns per event of ${r.operatorAlone.runCpuNsPerEvent} → ${r.operatorAlone.impliedRatio}×`);
  target(`Tracing on (SDK, in-memory exporter), ${name} ${r.size}: CPU × no tracing`, r.variants["on:operator"].cpuRatio, "reported", true, `${r.variants["on:operator"].spans} spans a run`);
}
target("Size, rxagent own code (min+gz)", `${sizeResults.rxagentOwn.gzipped} B`, "≤ 10 KB (10 240 B)", sizeResults.rxagentOwn.gzipped <= 10_240, `reference core: ${sizeResults.reference.gzipped} B`);

// ── output ───────────────────────────────────────────────────────────────────────────────
const results = { provenance, machine, method: methodNotes(), timings, memory: memoryResults, sessions: sessionResults, otel: otelResults, size: sizeResults, coldImport: importResults, targets };
if (quick) {
  log("quick run: results not written");
  console.log(renderMarkdown(results));
} else {
  writeFileSync(path.join(benchDir, "results.json"), JSON.stringify(results, null, 2) + "\n");
  writeFileSync(path.join(benchDir, "RESULTS.md"), renderMarkdown(results));
  log("wrote bench/results.json and bench/RESULTS.md");
}
log(`done in ${((Date.now() - started) / 1000).toFixed(0)} s`);

function methodNotes() {
  return [
    "Identical scripted provider output for both runtimes: one generator plays each response as pi-ai protocol events (one output message mutated in place, as pi-ai providers do), delivered in batches of at most 1 000 events per macrotask, like a streaming HTTP body.",
    "The reference gets pi-ai's AssistantMessageEventStream (its required stream type). rxagent gets the very same stream ('shared async-iterable stream'), and separately the same events as an rxjs Observable ('native Observable provider').",
    "Tools resolve at once (async function). One tool object per runtime per process, as an app defines tools once; both cache the compiled schema per schema object.",
    "Low-level loop: reference agentLoop with its Agent's default convertToLlm passed in (its agentLoop requires one); rxagent agentLoop with its default (memoized) conversion. Agent: both constructed with { initialState: { model, tools, systemPrompt }, streamFn }, one synchronous listener counting events, one prompt().",
    "Streaming and tool-heavy: each workload in its own process, the three variants in rotating order within each round (3 and 5 warm-up rounds first, not counted). Long runs: every counted run in a fresh process after 8 warm-up runs of 1 000 turns in that process (rxagent needs 4–5 to reach its steady state), the variants' processes in rotating order each round. Not a warm-up of the measured size: after one 16 000-turn run, the first ~4 000 turns of the next are slower (V8's heap sizing after a large dead heap; rxagent, µs per turn in 1 000-turn buckets: 139, 54, 45, 27, then 19), which would time the previous run; in a shared process the reference's multi-second runs left a large heap whose collection the next runtime paid for. Reported: median, min–max over the counted runs; ratio = reference median ÷ rxagent median (higher is better for rxagent; for streaming it equals the events-per-second ratio). CPU = process user+system time of the run (includes V8's GC and compiler threads).",
    "Run counts: 15 for streaming and tool-heavy, 11 / 9 / 5 for the long runs at 1 000 / 4 000 / 16 000 turns (5 at 16 000 for every runtime: the reference takes 5–7 s per run there).",
    "No forced GC between timed runs (a forced full GC shrinks the young generation and the next run pays to regrow it); each runtime's garbage is part of its cost.",
    "Every run's event count, transcript length, request count and final stop reason are checked equal across runtimes and runs.",
    "Memory: each runtime in its own process per sample (--expose-gc), the provider's library (pi-ai or rxjs) loaded with the runtime. Peak RSS = process.resourceUsage().maxRSS after one cold run; 'RSS after import' is the same before it. Heap retained = heapUsed after a further run minus before it (both after global.gc(); before it, five warm runs at a moderate size so the code is compiled and optimized: this is the run's data. V8 still compiles or drops optimized code during the measured run, ±30–260 KiB in its code spaces, so the table splits data (outside the code spaces; the target) from code), with the Agent or the loop's agent_end messages still referenced. Medians of 3 processes per runtime (alternating).",
    "Size: esbuild 0.28 bundle + minify of `export { Agent, agentLoop }` (platform browser, ESM, es2022), gzip level 9; with esbuild's browser defaults rxjs resolves to its esm5 build, which brings tslib. Cold import: time of `await import()` of the runtime's entry in a fresh process (11 per runtime, alternating).",
  ];
}

function fmt(value, digits = 1) {
  return Number(value).toFixed(digits);
}

function renderMarkdown(r) {
  const lines = [];
  const p = (s = "") => lines.push(s);
  p("# Benchmarks: rxagent vs pi-agent-core");
  p();
  p(`Generated by \`npm run bench\` (bench/run.mjs) on ${r.provenance.date}. Machine-readable: [results.json](results.json).`);
  p();
  p(`- Machine: ${r.machine.cpu}, ${r.machine.cores} cores, ${r.machine.memoryGiB} GiB; ${r.machine.platform}`);
  p(`- Node ${r.machine.node} (V8 ${r.machine.v8}); load average ${r.machine.loadAverageAtStart.join(" / ")} at start, ${r.machine.loadAverageAtEnd.join(" / ")} at end (other processes shared the machine).`);
  p(`- rxagent: commit ${r.provenance.rxagentCommit}${r.provenance.rxagentWorkingTreeDirty ? " with uncommitted changes in src/" : ""}, built with \`npm run build\` (tsc → ${r.provenance.rxagentDist === "dist/" ? "dist/" : "a clean export of that commit"}). Reference: ${r.provenance.reference} (engines ${r.provenance.referenceEngines}).`);
  p();
  p("## Targets");
  p();
  p("| Target | Value | Goal | Met |");
  p("|---|---|---|---|");
  for (const t of r.targets) p(`| ${t.name}${t.note ? ` <br><sub>${t.note}</sub>` : ""} | ${typeof t.value === "number" ? `${t.value}${t.goal.includes("×") ? "×" : ""}` : t.value} | ${t.goal} | ${t.met ? "yes" : "**no**"} |`);
  p();
  const timingTable = (title, entry, unit) => {
    p(`### ${title}`);
    p();
    const ref = entry.variants["reference:pi"].wallMs;
    p("| Runtime, provider | Median | Min – max | Runs | Ratio (reference ÷ this) | CPU median |");
    p("|---|---|---|---|---|---|");
    for (const variant of VARIANTS) {
      const w = entry.variants[variant].wallMs;
      const extra = unit ? ` (${unit(w.median)})` : "";
      p(`| ${LABEL[variant]} | ${fmt(w.median)} ms${extra} | ${fmt(w.min)} – ${fmt(w.max)} ms | ${w.runs} | ${variant === "reference:pi" ? "1" : `**${fmt(ref.median / w.median, 2)}×**`} | ${fmt(entry.variants[variant].cpuMs.median)} ms |`);
    }
    const c = entry.variants["reference:pi"].check;
    if (entry.variants["reference:pi"].turnUs) {
      p();
      p("Inside each run (medians over the runs), µs per turn: typical (median) turn and mean turn in turns 101–1 000 → in the last 900 turns:");
      p();
      for (const variant of VARIANTS) {
        const t = entry.variants[variant].turnUs;
        p(`- ${LABEL[variant]}: median ${fmt(t.earlyMedian)} → ${fmt(t.lateMedian)}, mean ${fmt(t.earlyMean)} → ${fmt(t.lateMean)}`);
      }
    }
    p();
    p(`Each run: ${c.events} events, ${c.requests} provider requests, ${c.messages} transcript messages, final stop reason \`${c.stopReason}\` (same for every runtime and run).`);
    p();
  };
  p("## 1. Streaming: one response of " + r.timings.streaming.size.toLocaleString("en") + " text deltas, low-level loop");
  p();
  timingTable("Time per run", r.timings.streaming, (ms) => `${fmt((r.timings.streaming.variants["reference:pi"].check.events / ms) * 1000 / 1e6, 2)} M events/s`);
  p("## 2. Tool-heavy: " + r.timings.toolHeavy.size.toLocaleString("en") + " turns × 4 parallel tool calls + 3 text deltas, low-level loop");
  p();
  timingTable("Time per run", r.timings.toolHeavy);
  p("## 3. Long run: the Agent class, one listener, N turns of one tool call each");
  p();
  for (const entry of r.timings.longRun) timingTable(`N = ${entry.size.toLocaleString("en")}`, entry, (ms) => `${fmt((ms * 1000) / entry.size, 1)} µs/turn`);
  p("## 4. Memory (each runtime in its own process; medians of " + r.memory.streaming.variants["reference:pi"].peakRssMiB.runs + " processes)");
  p();
  p("| Workload | Runtime, provider | Peak RSS | RSS after import | Peak − after import | Heap retained after the run: data (+ code) |");
  p("|---|---|---|---|---|---|");
  const memRows = [[`Streaming ${r.memory.streaming.size.toLocaleString("en")}`, r.memory.streaming], ...r.memory.longRun.map((e) => [`Long run ${e.size.toLocaleString("en")}`, e])];
  for (const [label, entry] of memRows) {
    for (const variant of VARIANTS) {
      const m = entry.variants[variant];
      p(`| ${label} | ${LABEL[variant]} | ${fmt(m.peakRssMiB.median)} MiB | ${fmt(m.baselineRssMiB.median)} MiB | ${fmt(m.peakRssMiB.median - m.baselineRssMiB.median)} MiB | ${fmt(m.dataRetainedKiB.median, 0)} KiB (${m.codeRetainedKiB.median >= 0 ? "+" : "−"} ${fmt(Math.abs(m.codeRetainedKiB.median), 0)}) |`);
    }
  }
  p();
  if (r.sessions?.length) {
    p("## 5. Durable sessions: the long run on rxagent's Agent (native Observable provider) with each session store");
    p();
    p("| Turns | Store | Median | Min – max | Runs | ÷ no store | µs per turn | Load (`resume()` of that session) |");
    p("|---|---|---|---|---|---|---|---|");
    const names = { none: "no session", memory: "InMemorySessionStore", "file-grouped": "FileSessionStore, fsync every 50 ms", "file-fsync": "FileSessionStore, fsync per append", postgres: "PostgresSessionStore (loopback)" };
    for (const entry of r.sessions) {
      const none = entry.stores.none.wallMs.median;
      for (const [store, x] of Object.entries(entry.stores)) {
        const load = x.load ? `${fmt(x.load.ms.median)} ms for ${x.load.messages.toLocaleString("en")} messages (${fmt((x.load.ms.median * 1000) / x.load.messages, 2)} ms per 1 000)` : "";
        p(`| ${entry.turns.toLocaleString("en")} | ${names[store]} | ${fmt(x.wallMs.median)} ms | ${fmt(x.wallMs.min)} – ${fmt(x.wallMs.max)} ms | ${x.wallMs.runs} | ${store === "none" ? "1" : `**${fmt(x.wallMs.median / none, 2)}×**`} | ${fmt((x.wallMs.median * 1000) / entry.turns, 1)} | ${load} |`);
      }
    }
    p();
  }
  let section = r.sessions?.length ? 6 : 5;
  if (r.otel) {
    p(`## ${section++}. Tracing: rxagent/otel on the Agent, off (no tracer provider) and on (the SDK with an in-memory exporter)`);
    p();
    p("| Workload | Variant | CPU | CPU × no tracing (p25–p75) | Spans a run |");
    p("|---|---|---|---|---|");
    for (const [name, w] of Object.entries(r.otel)) {
      for (const [variant, v] of Object.entries(w.variants)) p(`| ${name} ${w.size} | ${variant} | ${fmt(v.cpuMs)} ms | ${variant === "none" ? "1" : `${fmt(v.cpuRatio, 3)} (${fmt(v.cpuRatioP25, 2)}–${fmt(v.cpuRatioP75, 2)})`} | ${v.spans} |`);
      p(`| ${name} ${w.size} | the operator alone, on a recorded run's events | ${w.operatorAlone.operatorAddsNs} ns per event (rxjs \`map\`: ${w.operatorAlone.rxjsMapAddsNs} ns) | ${w.operatorAlone.impliedRatio} | |`);
    }
    p();
  }
  p(`## ${section}. Size and start-up`);
  p();
  p("| Bundle (Agent + agentLoop, esbuild --minify, browser ESM) | Minified | Min + gzip |");
  p("|---|---|---|");
  for (const key of ["rxagentOwn", "rxagentTotal", "reference"]) {
    const b = r.size[key];
    const parts = Object.entries(b.bytesInOutputByPackage)
      .filter(([k, v]) => v > 0 && k !== "(entry)")
      .map(([k, v]) => `${k} ${(v / 1024).toFixed(1)} KiB`)
      .join(", ");
    p(`| ${b.name} <br><sub>${parts}</sub> | ${b.minified.toLocaleString("en")} B | **${b.gzipped.toLocaleString("en")} B** (${fmt(b.gzipped / 1024, 2)} KiB) |`);
  }
  p();
  p("| Cold import in a fresh process | Median | Min – max | RSS added |");
  p("|---|---|---|---|");
  for (const name of ["reference", "rxagent"]) {
    const c = r.coldImport[name];
    p(`| ${name === "reference" ? "`import('@earendil-works/pi-agent-core')`" : "`import('rxagent')` (dist/index.js)"} | ${fmt(c.ms.median)} ms | ${fmt(c.ms.min)} – ${fmt(c.ms.max)} ms | ${fmt(c.rssAddedMiB.median)} MiB |`);
  }
  p();
  p("## Method");
  p();
  for (const note of r.method) p(`- ${note}`);
  p();
  const findings = path.join(benchDir, "FINDINGS.md");
  if (existsSync(findings)) {
    p(readFileSync(findings, "utf8").trimEnd());
    p();
  }
  return lines.join("\n");
}
