#!/usr/bin/env node
/**
 * rxagent vs @earendil-works/pi-agent-core 1.6.0, side by side, with two peers beside them
 * (Vercel AI SDK 7 and OpenAI Agents JS, each on an in-memory model) and a floor (a plain loop
 * doing the same observable work): see PEERS.md.
 *
 *   node bench/run.mjs                 the full run (a few minutes), writes bench/RESULTS.md and bench/results.json
 *   node bench/run.mjs --quick         fewer runs and sizes, to check the harness (results not written)
 *   node bench/run.mjs --timing-only   the timing sections only (1–3 and the peers), printed, nothing written
 *                                      (with --quick: at the quick sizes)
 *   node bench/run.mjs --render        rewrite RESULTS.md from results.json (after editing FINDINGS.md)
 *   BENCH_RXJS=es2015 node bench/run.mjs …   every worker on rxjs's ES2015 build (the one bundlers and
 *                                      Angular load) instead of the CommonJS build Node picks
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
const timingOnly = process.argv.includes("--timing-only");
const started = Date.now();

const VARIANTS = ["reference:pi", "rxagent:pi", "rxagent:observable"];
/** The peers and the floor (lib/peers/*.mjs, lib/floor.mjs), each on its own model protocol. */
const PEER_VARIANTS = ["ai-sdk:v4", "openai-agents:model", "floor:plain"];
const ALL_VARIANTS = [...VARIANTS, ...PEER_VARIANTS];
/** The Agent (one counting listener) on the streaming workload, timed in the loop variants' process. */
const AGENT_STREAMING = "rxagent:observable:agent";
const LABEL = {
  "reference:pi": "reference, pi-ai stream",
  "rxagent:pi": "rxagent, the same pi-ai stream",
  "rxagent:observable": "rxagent, native Observable provider",
  [AGENT_STREAMING]: "rxagent Agent (one listener), native Observable provider",
  "ai-sdk:v4": "Vercel AI SDK 7, in-memory LanguageModelV4",
  "openai-agents:model": "OpenAI Agents JS, in-memory Model",
  "floor:plain": "floor: a plain loop, the same observable work",
};
const isPeer = (variant) => PEER_VARIANTS.includes(variant);
/**
 * The largest size each peer is timed at, per workload. Both SDKs take milliseconds per turn
 * where rxagent takes microseconds, and OpenAI Agents' turn grows with the transcript (it clones
 * and JSON-keys the whole input every turn): at 1 000 tool-heavy turns one of its runs takes
 * minutes, at 16 000 long-run turns hours. A peer is timed at the sizes up to its limit, never
 * extrapolated past it; a workload none of whose sizes a peer fits runs again at that peer's
 * limit, every runtime beside it ("reduced size" tables). RESULTS.md says which ran where.
 * BENCH_PEER_MAX='{"ai-sdk:v4":{"long-run":16000}}' overrides.
 */
const PEER_MAX = {
  "ai-sdk:v4": { streaming: 100_000, "tool-heavy": 1_000, "long-run": 4_000 },
  "openai-agents:model": { streaming: 100_000, "tool-heavy": 200, "long-run": 1_000 },
  "floor:plain": {},
};
for (const [variant, max] of Object.entries(JSON.parse(process.env.BENCH_PEER_MAX ?? "{}"))) Object.assign(PEER_MAX[variant], max);
const fits = (variant, workload, size) => !isPeer(variant) || size <= (PEER_MAX[variant][workload] ?? Infinity);
/**
 * The SDKs' runs take seconds: fewer rounds (in the first rounds of the rotation), one timed run
 * per process after one warm-up run at a small size (a run of theirs is thousands of passes
 * through the same code; their first small run compiles it). The floor is timed like rxagent.
 */
const SLOW_PEERS = ["ai-sdk:v4", "openai-agents:model"];
const SLOW = { rounds: quick ? 2 : 3, warmup: 1, runs: 1, warmupSize: { streaming: 10_000, "tool-heavy": 50, "long-run": 100 } };
const isSlow = (variant) => SLOW_PEERS.includes(variant);

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
if (["@earendil-works/pi-agent-core", "esbuild", "ai", "@openai/agents-core", "zod"].some((dep) => !existsSync(path.join(benchDir, "node_modules", dep)))) {
  log("installing bench dependencies (npm ci in bench/)");
  execSync("npm ci --no-audit --no-fund", { cwd: benchDir, stdio: "inherit" });
}
if (!process.env.RXAGENT_DIST && !existsSync(path.join(rootDir, "dist/index.js"))) {
  log("building rxagent (npm run build)");
  execSync("npm run build", { cwd: rootDir, stdio: "inherit" });
}

/** Which rxjs build the workers load: `cjs` (Node's default) or `es2015` (lib/rxjs-es2015.mjs). */
const RXJS_BUILD = process.env.BENCH_RXJS === "es2015" ? "es2015" : "cjs";
const RXJS_FLAGS = RXJS_BUILD === "es2015" ? ["--import", path.join(benchDir, "lib/rxjs-es2015.mjs")] : [];

function node(args, { gc = false } = {}) {
  const flags = [...RXJS_FLAGS, ...(gc ? ["--expose-gc"] : [])];
  return lastJson(execFileSync(process.execPath, [...flags, ...args], { cwd: benchDir, encoding: "utf8", maxBuffer: 64 * 1024 * 1024, stdio: ["ignore", "pipe", "inherit"] }));
}

function git(args) {
  try {
    return execFileSync("git", args, { cwd: rootDir, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return undefined;
  }
}

const versionOf = (pkg) => JSON.parse(readFileSync(path.join(benchDir, "node_modules", pkg, "package.json"), "utf8")).version;
const referenceVersion = versionOf("@earendil-works/pi-agent-core");
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
  rxjsBuild: RXJS_BUILD,
  rxagentCommit: process.env.RXAGENT_COMMIT ?? git(["rev-parse", "--short", "HEAD"]),
  rxagentWorkingTreeDirty: process.env.RXAGENT_DIST ? false : (git(["status", "--porcelain", "--", "src"]) ?? "").length > 0,
  reference: `@earendil-works/pi-agent-core@${referenceVersion}`,
  referenceEngines: ">=22.19.0 (declared); loaded and ran on this Node without changes",
  peers: { "ai-sdk:v4": `ai@${versionOf("ai")} (@ai-sdk/provider@${versionOf("@ai-sdk/provider")})`, "openai-agents:model": `@openai/agents@${versionOf("@openai/agents")} (@openai/agents-core@${versionOf("@openai/agents-core")})`, zod: `zod@${versionOf("zod")}` },
};


// ── timing ───────────────────────────────────────────────────────────────────────────────
function timing(kind, workload, size, { warmup, runs, runsFor, warmupFor }, variants = VARIANTS) {
  log(`timing ${workload} ${size} (${warmup} warm-up + ${runs} runs, alternating: ${variants.join(", ")})`);
  const raw = node(["workers/timing.mjs", JSON.stringify({ kind, workload, size, variants, warmup, runs, runsFor, warmupFor })]);
  const out = {};
  // One run per variant per round, in round order: value i of two variants is one round's pair.
  for (const [variant, r] of Object.entries(raw)) out[variant] = { wallMs: summary(r.wall.map((v) => round(v, 3))), cpuMs: summary(r.cpu.map((v) => round(v, 3))), check: r.check, roundWallMs: r.wall.map((v) => round(v, 3)) };
  // Both runtimes must have done the same work.
  checkSameWork(workload, size, out);
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
function timingIsolated(kind, workload, size, rounds, variants = VARIANTS) {
  log(`timing ${workload} ${size} (${rounds} rounds, one fresh process per variant per round, alternating: ${variants.join(", ")})`);
  const raw = Object.fromEntries(variants.map((v) => [v, { wall: [], cpu: [], turnWindows: [], check: undefined }]));
  for (let round = 0; round < rounds; round++) {
    const order = variants.map((_, i) => variants[(i + round) % variants.length]);
    for (const variant of order) {
      if (isSlow(variant) && round >= SLOW.rounds) continue;
      const warm = isSlow(variant) ? { warmup: SLOW.warmup, warmupSize: SLOW.warmupSize[workload] } : { warmup: 8, warmupSize: 1_000 };
      const r = node(["workers/timing.mjs", JSON.stringify({ kind, workload, size, variants: [variant], ...warm, runs: 1 })])[variant];
      raw[variant].wall.push(...r.wall);
      raw[variant].cpu.push(...r.cpu);
      raw[variant].turnWindows.push(...r.turnWindows);
      raw[variant].check = r.check;
    }
  }
  const out = {};
  for (const [variant, r] of Object.entries(raw)) {
    // One run per round: the values are in round order, so value i of two variants is one round's pair.
    out[variant] = { wallMs: summary(r.wall.map((v) => round(v, 3))), cpuMs: summary(r.cpu.map((v) => round(v, 3))), check: r.check, roundWallMs: r.wall.map((v) => round(v, 3)) };
    if (r.turnWindows.length > 0) {
      const pick = (window, stat) => round(median(r.turnWindows.map((w) => w[window][stat])), 2);
      // Medians over the runs of: the median turn (a typical turn) and the mean turn (with GC pauses), µs.
      out[variant].turnUs = { earlyMedian: pick("early", "median"), lateMedian: pick("late", "median"), earlyMean: pick("early", "mean"), lateMean: pick("late", "mean") };
    }
  }
  checkSameWork(workload, size, out);
  return out;
}

/**
 * The runtimes did the same work: reference and rxagent the very same events, transcript and
 * requests; each peer (its own protocol, so its own event count) the same work as the reference:
 * requests, tool executions, tool results kept, final text length. (Each run is also checked
 * against its script in lib/runtimes.mjs, and against the variant's other runs in the worker.)
 */
function checkSameWork(workload, size, out) {
  const present = Object.keys(out);
  // The Agent's own counts differ from its loop's (its transcript starts with the system prompt); its work must not.
  const own = present.filter((v) => !isPeer(v) && v !== AGENT_STREAMING);
  const checks = new Set(own.map((v) => JSON.stringify(out[v].check)));
  if (checks.size > 1) throw new Error(`${workload} ${size}: runtimes disagree: ${[...checks].join(" vs ")}`);
  const works = new Set(present.map((v) => JSON.stringify(out[v].check.work)));
  if (works.size !== 1) throw new Error(`${workload} ${size}: runtimes did different work: ${present.map((v) => `${v} ${JSON.stringify(out[v].check.work)}`).join("; ")}`);
}

/**
 * The peers' section for the workloads timed in one shared process above (streaming,
 * tool-heavy): every variant, reference and rxagent included, in a fresh process of its own per
 * round (warm-up runs, then timed runs of the same size), the variants' order rotating each
 * round, so that no runtime's JIT state, heap or loaded modules touch another's, and every ratio
 * in this section compares runs taken the same way.
 */
function timingPeers(kind, workload, size, { rounds, warmup, runs }) {
  const variants = ALL_VARIANTS.filter((v) => fits(v, workload, size));
  log(`timing ${workload} ${size}, peers (${rounds} rounds, one fresh process per variant per round, ${warmup} warm-up + ${runs} runs each; the SDKs ${SLOW.rounds} rounds of 1 + 1: ${variants.join(", ")})`);
  const raw = Object.fromEntries(variants.map((v) => [v, { wall: [], cpu: [], roundWallMs: [], check: undefined }]));
  for (let r = 0; r < rounds; r++) {
    const order = variants.map((_, i) => variants[(i + r) % variants.length]);
    for (const variant of order) {
      if (isSlow(variant) && r >= SLOW.rounds) continue;
      const plan = isSlow(variant) ? { warmup: SLOW.warmup, warmupSize: Math.min(size, SLOW.warmupSize[workload]), runs: SLOW.runs } : { warmup, runs };
      const result = node(["workers/timing.mjs", JSON.stringify({ kind, workload, size, variants: [variant], ...plan })])[variant];
      raw[variant].wall.push(...result.wall);
      raw[variant].cpu.push(...result.cpu);
      raw[variant].roundWallMs.push(round(median(result.wall), 3));
      if (raw[variant].check !== undefined && JSON.stringify(raw[variant].check) !== JSON.stringify(result.check)) throw new Error(`${variant} ${workload} ${size}: processes disagree: ${JSON.stringify(raw[variant].check)} vs ${JSON.stringify(result.check)}`);
      raw[variant].check = result.check;
    }
  }
  const out = {};
  for (const [variant, r] of Object.entries(raw)) out[variant] = { wallMs: summary(r.wall.map((v) => round(v, 3))), cpuMs: summary(r.cpu.map((v) => round(v, 3))), check: r.check, roundWallMs: r.roundWallMs };
  checkSameWork(workload, size, out);
  return out;
}

const sizes = quick ? { deltas: 20_000, toolTurns: 200, longRuns: [500, 2000] } : { deltas: 100_000, toolTurns: 1_000, longRuns: [1_000, 4_000, 16_000] };
/** The variants timed at a long-run size: reference and rxagent always, each peer up to its limit. */
const longRunVariants = (turns) => ALL_VARIANTS.filter((v) => fits(v, "long-run", turns));
const longRunRounds = (turns) => (quick ? 3 : turns >= 16_000 ? 5 : turns >= 4_000 ? 9 : 11);
const timings = {
  streaming: { kind: "loop", size: sizes.deltas, variants: timing("loop", "streaming", sizes.deltas, { warmup: 3, runs: quick ? 5 : 15 }, [...VARIANTS, AGENT_STREAMING]) },
  toolHeavy: { kind: "loop", size: sizes.toolTurns, variants: timing("loop", "tool-heavy", sizes.toolTurns, { warmup: 5, runs: quick ? 5 : 15 }) },
  longRun: sizes.longRuns.map((turns) => ({
    kind: "agent",
    size: turns,
    variants: timingIsolated("agent", "long-run", turns, longRunRounds(turns), longRunVariants(turns)),
  })),
};
// Flat to 100 000 turns: rxagent (native provider) and the floor only, in fresh processes like
// the long runs above. The reference's turns grow with its transcript (about 10 s a run at 16 000
// turns; minutes here) and the SDKs stop far below, so neither runs at this size.
const FLAT_TURNS = quick ? 10_000 : 100_000;
timings.flat = { kind: "agent", size: FLAT_TURNS, variants: timingIsolated("agent", "long-run", FLAT_TURNS, 3, ["rxagent:observable", "floor:plain"]) };
// The peers: streaming and tool-heavy again, every variant in fresh processes (the long runs'
// peers ran in the rounds above), then a reduced size for each workload a peer fit at no size.
const peerRounds = quick ? { rounds: 2, runs: 2 } : { rounds: 5, runs: 3 };
timings.peers = {
  streaming: { kind: "loop", size: sizes.deltas, variants: timingPeers("loop", "streaming", sizes.deltas, { ...peerRounds, warmup: 3 }) },
  toolHeavy: { kind: "loop", size: sizes.toolTurns, variants: timingPeers("loop", "tool-heavy", sizes.toolTurns, { ...peerRounds, warmup: 5 }) },
  max: PEER_MAX,
  slowRounds: SLOW.rounds,
  slowWarmupTurns: SLOW.warmupSize["long-run"],
  reduced: [],
};
const workloadSizes = { streaming: [sizes.deltas], "tool-heavy": [sizes.toolTurns], "long-run": sizes.longRuns };
for (const [workload, list] of Object.entries(workloadSizes)) {
  const left = PEER_VARIANTS.filter((v) => !list.some((size) => fits(v, workload, size)));
  for (const size of [...new Set(left.map((v) => PEER_MAX[v][workload]))].sort((a, b) => a - b)) {
    const kind = workload === "long-run" ? "agent" : "loop";
    const variants = workload === "long-run" ? timingIsolated(kind, workload, size, longRunRounds(size), longRunVariants(size)) : timingPeers(kind, workload, size, { ...peerRounds, warmup: workload === "streaming" ? 3 : 5 });
    timings.peers.reduced.push({ workload, kind, size, variants });
  }
}
if (timingOnly) {
  const partial = { provenance, machine: { ...machine, loadAverageAtEnd: os.loadavg().map((l) => round(l, 2)) }, timings };
  console.log(renderTimingMarkdown(partial).join("\n"));
  console.log(JSON.stringify(partial));
  log(`timing only: nothing written; done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  process.exit(0);
}

// ── memory ───────────────────────────────────────────────────────────────────────────────
function memory(kind, workload, size, reps, variants = VARIANTS) {
  log(`memory ${workload} ${size} (${reps} processes per variant, alternating: ${variants.join(", ")})`);
  const samples = Object.fromEntries(variants.map((v) => [v, []]));
  for (let rep = 0; rep < reps; rep++) {
    for (const variant of rep % 2 ? [...variants].reverse() : variants) {
      // The SDKs (runs of seconds): one sample, one warm run of SLOW.warmupSize.
      if (isSlow(variant) && rep > 0) continue;
      const warm = isSlow(variant) ? { warmRuns: 1, warmSize: SLOW.warmupSize[workload] } : {};
      samples[variant].push(node(["workers/memory.mjs", JSON.stringify({ kind, workload, size, variant, ...warm })], { gc: true }));
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
// The floor at every size; the SDKs (one sample each) at the smallest long run only: their
// streaming runs take tens of seconds, and their long runs' memory grows the way their time does.
const memoryResults = {
  streaming: { size: sizes.deltas, variants: memory("loop", "streaming", sizes.deltas, memoryReps, [...VARIANTS, "floor:plain"]) },
  longRun: sizes.longRuns.map((turns, i) => ({ size: turns, variants: memory("agent", "long-run", turns, memoryReps, i === 0 ? longRunVariants(turns) : [...VARIANTS, "floor:plain"]) })),
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
log("idle Agent memory (a fresh process per runtime)");
const idleResults = Object.fromEntries(["reference", "rxagent"].map((name) => [name, node(["workers/idle.mjs", name], { gc: true })]));
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
// The performance issue's goals: against the floor and the peers (per-round ratios, fresh
// processes; the floor and the peers have no shared-process run), and the Agent against its loop.
const ranged = (r) => `${round(r.median, 2)}× (per round ${round(r.min, 2)}–${round(r.max, 2)}, ${r.rounds} rounds)`;
{
  // Flat to 100 000 turns: per turn at the largest size ÷ at the smallest long run, each from fresh processes.
  const flat = timings.flat;
  const v = "rxagent:observable";
  const growth = round(perTurn(flat, v) / perTurn(shortest, v), 2);
  const t = flat.variants[v].turnUs;
  const overFloor = roundRatios(flat, v, "floor:plain");
  target(
    `Flat per turn to ${flat.size} turns, ${LABEL[v]}: µs/turn at ${flat.size} ÷ at ${shortest.size}`,
    growth,
    "≤ 1.25",
    growth <= 1.25,
    `${round(perTurn(shortest, v), 1)} → ${round(perTurn(flat, v), 1)} µs/turn; inside a ${flat.size}-turn run, typical turn in turns 101–1 000 → in the last 900: ${t.earlyMedian} → ${t.lateMedian} µs; the floor: ${round(perTurn(shortest, "floor:plain"), 1)} → ${round(perTurn(flat, "floor:plain"), 1)} µs/turn, Agent ÷ floor at ${flat.size}: ${ranged(overFloor)}`,
  );
}
const agentOverLoop = roundRatios(timings.streaming, AGENT_STREAMING, "rxagent:observable");
if (agentOverLoop) target("Streaming 100 000, the Agent (one listener) ÷ its own loop, native Observable provider, same process", round(agentOverLoop.median, 2), "≤ 1.3×", agentOverLoop.median <= 1.3, ranged(agentOverLoop));
const floorGoals = [
  ["Streaming, agentLoop ÷ floor", timings.peers.streaming, 1.5],
  ["Tool-heavy, agentLoop ÷ floor", timings.peers.toolHeavy, 2],
  ...timings.longRun.filter((e) => e.size === 1_000 || e.size === 16_000).map((e) => [`Long run ${e.size}, Agent ÷ floor`, e, 3]),
];
for (const [name, entry, goal] of floorGoals) {
  const r = roundRatios(entry, "rxagent:observable", "floor:plain");
  if (r) target(`${name} (native Observable provider)`, round(r.median, 2), `≤ ${goal}×`, r.median <= goal, ranged(r));
}
const peerEntries = [
  ["streaming (shared process)", timings.streaming],
  ["tool-heavy (shared process)", timings.toolHeavy],
  ["streaming", timings.peers.streaming],
  ["tool-heavy", timings.peers.toolHeavy],
  ...timings.longRun.map((e) => [`long run ${e.size}`, e]),
  ...timings.peers.reduced.map((e) => [`${e.workload} ${e.size}`, e]),
];
const behind = [];
let closest;
for (const [where, entry] of peerEntries) {
  for (const peer of ["reference:pi", "ai-sdk:v4", "openai-agents:model"]) {
    for (const variant of ["rxagent:pi", "rxagent:observable"]) {
      const r = roundRatios(entry, peer, variant);
      if (!r) continue;
      if (!closest || r.median < closest.r.median) closest = { where, peer, variant, r };
      if (r.min <= 1) behind.push(`${where}: ${LABEL[peer]} ÷ ${LABEL[variant]} ${round(r.min, 2)}–${round(r.max, 2)}`);
    }
  }
}
if (closest) target("Ahead of the reference and every peer on every workload: the closest ÷ rxagent, per round", round(closest.r.median, 2), "> 1 in every round", behind.length === 0, behind.length > 0 ? `behind or level in a round: ${behind.join("; ")}` : `closest: ${closest.where}, ${LABEL[closest.peer]} ÷ ${LABEL[closest.variant]}, ${ranged(closest.r)}`);
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
target(
  `Idle Agent: heap per Agent over its messages (${idleResults.rxagent.agents} Agents, ${idleResults.rxagent.messages} shared messages each, never run)`,
  `${idleResults.rxagent.bytesPerAgent} B`,
  "≤ 1 KB (1 024 B)",
  idleResults.rxagent.bytesPerAgent <= 1024,
  `reference: ${idleResults.reference.bytesPerAgent} B`,
);
if (sizeResults.apps) {
  const { interpreting, precompiled, ajv } = sizeResults.apps;
  target("Size, minimal browser app with the default (CSP-safe) validator (rxagent, min+gz)", `${interpreting.gzipped} B`, "≤ 30 KB (30 720 B)", interpreting.gzipped <= 30_720, `with precompiledValidator: ${precompiled.gzipped} B; with ajvValidator: ${ajv.gzipped} B`);
}

// ── output ───────────────────────────────────────────────────────────────────────────────
const results = { provenance, machine, method: methodNotes(), timings, memory: memoryResults, sessions: sessionResults, otel: otelResults, size: sizeResults, coldImport: importResults, idle: idleResults, targets };
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
    "Streaming and tool-heavy: each workload in its own process, the three variants in rotating order within each round (3 and 5 warm-up rounds first, not counted); streaming has a fourth, rxagent's Agent with one counting listener on the native Observable provider, for the Agent ÷ its own loop. Long runs: every counted run in a fresh process after 8 warm-up runs of 1 000 turns in that process (rxagent needs 4–5 to reach its steady state), the variants' processes in rotating order each round. Not a warm-up of the measured size: after one 16 000-turn run, the first ~4 000 turns of the next are slower (V8's heap sizing after a large dead heap; rxagent, µs per turn in 1 000-turn buckets: 139, 54, 45, 27, then 19), which would time the previous run; in a shared process the reference's multi-second runs left a large heap whose collection the next runtime paid for. At 100 000 turns only rxagent (native provider) and the floor run, 3 rounds, each run in a fresh process after the same warm-up: the reference's turns grow with its transcript, and the SDKs' limits are far below. Reported: median, min–max over the counted runs; ratio = reference median ÷ rxagent median (higher is better for rxagent; for streaming it equals the events-per-second ratio). CPU = process user+system time of the run (includes V8's GC and compiler threads).",
    "Run counts: 15 for streaming and tool-heavy, 11 / 9 / 5 for the long runs at 1 000 / 4 000 / 16 000 turns (5 at 16 000 for every runtime: the reference takes 5–7 s per run there).",
    "No forced GC between timed runs (a forced full GC shrinks the young generation and the next run pays to regrow it); each runtime's garbage is part of its cost.",
    "Every run's event count, transcript length, request count and final stop reason are checked equal across runtimes and runs.",
    "Peers (PEERS.md): Vercel AI SDK 7 (`streamText` for the loop workloads, `ToolLoopAgent` for the long run) on a hand-written in-memory LanguageModelV4, OpenAI Agents JS (`Runner` + `Agent`, streamed, tracing off) on a hand-written in-memory Model, and a floor (lib/floor.mjs: a plain loop doing the same observable work per event, no validation). Each plays the same scripts in its own protocol, in the same batches per macrotask; their tools validate with zod, rxagent's and the reference's with JSON Schema. Every run of every runtime is checked against the script: provider requests, tool executions, tool results kept, final answer length; a run that differs fails the benchmark. Streaming and tool-heavy beside the peers: every runtime (reference and rxagent too) in a fresh process per round, order rotating, 3 (tool-heavy 5) warm-up runs then 3 timed runs a process, 5 rounds; long runs: the peers join the rounds above at the sizes up to their limit (PEER_MAX; never extrapolated; a workload a peer fits at no size runs again at its limit with every runtime). The SDKs take milliseconds a turn: they run in the first 3 rounds only, one warm-up run at a small size and one timed run a process; in memory, one process each, at the smallest long run only. Per-round ratios: each round's (or process's) median ÷ the other runtime's in the same round.",
    "Memory: each runtime in its own process per sample (--expose-gc), the provider's library (pi-ai or rxjs) loaded with the runtime. Peak RSS = process.resourceUsage().maxRSS after one cold run; 'RSS after import' is the same before it. Heap retained = heapUsed after a further run minus before it (both after global.gc(); before it, five warm runs at a moderate size so the code is compiled and optimized: this is the run's data. V8 still compiles or drops optimized code during the measured run, ±30–260 KiB in its code spaces, so the table splits data (outside the code spaces; the target) from code), with the Agent or the loop's agent_end messages still referenced. Medians of 3 processes per runtime (alternating).",
    "Size: esbuild 0.28 bundle + minify of `export { Agent, agentLoop }` (platform browser, ESM, es2022), gzip level 9; with esbuild's browser defaults rxjs resolves to its esm5 build, which brings tslib (as with Vite's defaults; Angular's es2015 condition saves ~1.5 KB). The minimal apps bundle one Agent with one tool, prompted once, with everything they import. Cold import: time of `await import()` of the runtime's entry in a fresh process (11 per runtime, alternating).",
  ];
}

function fmt(value, digits = 1) {
  return Number(value).toFixed(digits);
}

/** The timing sections alone (--timing-only). */
function renderTimingMarkdown(r) {
  const lines = [];
  const p = (s = "") => lines.push(s);
  p(`# Timing only (bench/run.mjs --timing-only${quick ? " --quick" : ""}), ${r.provenance.date}`);
  p();
  p(`- Node ${r.machine.node}; load average ${r.machine.loadAverageAtStart.join(" / ")} at start, ${r.machine.loadAverageAtEnd.join(" / ")} at end.`);
  p(`- rxagent ${r.provenance.rxagentCommit} from ${r.provenance.rxagentDist}, on rxjs's ${r.provenance.rxjsBuild === "es2015" ? "ES2015 build (dist/esm)" : "CommonJS build (dist/cjs)"}.`);
  peersLine(r, p);
  p();
  timingSections(r, p);
  return lines;
}

function peersLine(r, p) {
  const v = r.provenance.peers;
  if (v) p(`- Peers (see [PEERS.md](PEERS.md)): Vercel AI SDK ${v["ai-sdk:v4"]}; OpenAI Agents JS ${v["openai-agents:model"]}; their tools' schemas: ${v.zod}. Floor: lib/floor.mjs.`);
}

/**
 * "1.23× (1.10–1.40)": this variant's time ÷ the other's, round by round (each round's, or each
 * process's, median against the other's in the same round; a variant with fewer rounds ran in
 * the first ones): the median of those ratios, and their range.
 */
function ratioCell(entry, variant, base) {
  const r = roundRatios(entry, variant, base);
  if (!r) return "";
  return r.rounds < 2 ? `${fmt(r.median, 2)}×` : `${fmt(r.median, 2)}× (${fmt(r.min, 2)}–${fmt(r.max, 2)})`;
}

/** This variant's time ÷ the other's, round by round: { median, min, max, rounds }; medians ÷ medians with fewer than 2 rounds. */
function roundRatios(entry, variant, base) {
  const a = entry?.variants[variant];
  const b = entry?.variants[base];
  if (!a || !b) return undefined;
  const n = Math.min(a.roundWallMs?.length ?? 0, b.roundWallMs?.length ?? 0);
  if (n < 2) {
    const only = a.wallMs.median / b.wallMs.median;
    return { median: only, min: only, max: only, rounds: n };
  }
  const per = a.roundWallMs.slice(0, n).map((v, i) => v / b.roundWallMs[i]);
  return { median: median(per), min: Math.min(...per), max: Math.max(...per), rounds: n };
}

/** Sections 1–3: the timing tables, the peers' rows and tables among them. */
function timingSections(r, p) {
  const present = (entry) => [...ALL_VARIANTS, AGENT_STREAMING].filter((v) => entry.variants[v]);
  const timingTable = (title, entry, unit) => {
    p(`### ${title}`);
    p();
    const ref = entry.variants["reference:pi"].wallMs;
    const variants = present(entry);
    const peers = variants.some(isPeer);
    if (peers) {
      p("| Runtime, provider | Median | Min – max | Runs | Ratio (reference ÷ this) | CPU median | This ÷ rxagent, native: per round, median (min–max) | This ÷ floor: per round |");
      p("|---|---|---|---|---|---|---|---|");
    } else {
      p("| Runtime, provider | Median | Min – max | Runs | Ratio (reference ÷ this) | CPU median |");
      p("|---|---|---|---|---|---|");
    }
    for (const variant of variants) {
      const w = entry.variants[variant].wallMs;
      const extra = unit ? ` (${unit(w.median)})` : "";
      const cells = `| ${LABEL[variant]} | ${fmt(w.median)} ms${extra} | ${fmt(w.min)} – ${fmt(w.max)} ms | ${w.runs} | ${variant === "reference:pi" ? "1" : `**${fmt(ref.median / w.median, 2)}×**`} | ${fmt(entry.variants[variant].cpuMs.median)} ms |`;
      p(peers ? `${cells} ${variant === "rxagent:observable" ? "1" : ratioCell(entry, variant, "rxagent:observable")} | ${variant === "floor:plain" ? "1" : ratioCell(entry, variant, "floor:plain")} |` : cells);
    }
    const c = entry.variants["reference:pi"].check;
    if (entry.variants["reference:pi"].turnUs) {
      p();
      p("Inside each run (medians over the runs), µs per turn: typical (median) turn and mean turn in turns 101–1 000 → in the last 900 turns:");
      p();
      for (const variant of variants) {
        const t = entry.variants[variant].turnUs;
        if (t) p(`- ${LABEL[variant]}: median ${fmt(t.earlyMedian)} → ${fmt(t.lateMedian)}, mean ${fmt(t.earlyMean)} → ${fmt(t.lateMean)}`);
      }
    }
    p();
    p(`Each run: ${c.events} events, ${c.requests} provider requests, ${c.messages} transcript messages, final stop reason \`${c.stopReason}\` (same for every run of the reference and rxagent).`);
    if (peers) {
      const own = { "ai-sdk:v4": ["stream parts", "response messages"], "openai-agents:model": ["stream events", "run items"], "floor:plain": ["events", "transcript messages"] };
      const counts = variants.filter(isPeer).map((v) => `${LABEL[v]}: ${entry.variants[v].check.events} ${own[v][0]}, ${entry.variants[v].check.messages} ${own[v][1]}`);
      p(`In their own protocols (same for every run of each): ${counts.join("; ")}.`);
    }
    if (c.work) p(`The work, checked for every run of every runtime against the script: ${c.work.requests} provider requests, ${c.work.toolExecutions} tool executions, ${c.work.toolResults} tool results kept, a final answer of ${c.work.finalTextLength} characters.`);
    p();
  };
  const maxOf = (variant, workload) => r.timings.peers?.max?.[variant]?.[workload];
  const leftOut = (workload, size) => PEER_VARIANTS.filter((v) => maxOf(v, workload) !== undefined && size > maxOf(v, workload));
  const reducedFor = (workload) => (r.timings.peers?.reduced ?? []).filter((e) => e.workload === workload);
  const peerTables = (workload, entry, unit) => {
    if (!entry) return;
    const out = leftOut(workload, entry.size);
    timingTable("Beside the peers: every runtime in a fresh process per round", entry, unit);
    if (out.length > 0) {
      p(`Not run at this size: ${out.map((v) => `${LABEL[v]} (timed up to ${maxOf(v, workload).toLocaleString("en")}: see below)`).join("; ")}.`);
      p();
    }
    for (const reduced of reducedFor(workload)) timingTable(`Reduced size, ${reduced.size.toLocaleString("en")}: every runtime beside the peers that do not fit the full size`, reduced, unit && ((ms) => unit(ms, reduced)));
  };
  p("## 1. Streaming: one response of " + r.timings.streaming.size.toLocaleString("en") + " text deltas, low-level loop");
  p();
  timingTable("Time per run", r.timings.streaming, (ms) => `${fmt((r.timings.streaming.variants["reference:pi"].check.events / ms) * 1000 / 1e6, 2)} M events/s`);
  peerTables("streaming", r.timings.peers?.streaming, (ms, e = r.timings.peers.streaming) => `${fmt((e.size / ms) * 1000 / 1e6, 2)} M deltas/s`);
  p("## 2. Tool-heavy: " + r.timings.toolHeavy.size.toLocaleString("en") + " turns × 4 parallel tool calls + 3 text deltas, low-level loop");
  p();
  timingTable("Time per run", r.timings.toolHeavy);
  peerTables("tool-heavy", r.timings.peers?.toolHeavy);
  p("## 3. Long run: the Agent class, one listener, N turns of one tool call each");
  p();
  if (r.timings.peers) {
    const largest = r.timings.longRun.at(-1).size;
    const limited = leftOut("long-run", largest);
    p(`The peers' "Agent": AI SDK's \`ToolLoopAgent\`; OpenAI Agents' \`Runner\` running an \`Agent\`; the floor, its plain loop. The SDKs run in the first ${r.timings.peers.slowRounds ?? "few"} rounds only, one warm-up run of ${r.timings.peers.slowWarmupTurns ?? 100} turns per process.${limited.length > 0 ? ` Timed up to their limit, never extrapolated past it: ${limited.map((v) => `${LABEL[v]} up to ${maxOf(v, "long-run").toLocaleString("en")} turns`).join("; ")}.` : ""}`);
    p();
  }
  for (const entry of r.timings.longRun) timingTable(`N = ${entry.size.toLocaleString("en")}`, entry, (ms) => `${fmt((ms * 1000) / entry.size, 1)} µs/turn`);
  const flat = r.timings.flat;
  if (flat) {
    p(`### N = ${flat.size.toLocaleString("en")}: rxagent and the floor only`);
    p();
    p(`Is a turn as cheap at ${flat.size.toLocaleString("en")} turns as at ${r.timings.longRun[0].size.toLocaleString("en")}? The reference is not run at this size (its turns grow with its transcript: see N = ${r.timings.longRun.at(-1).size.toLocaleString("en")}), nor the SDKs (their limits above).`);
    p();
    p("| Runtime, provider | Median | Min – max | Runs | CPU median | This ÷ floor: per round | Inside each run, µs per turn: typical turn 101–1 000 → last 900 (mean with GC) |");
    p("|---|---|---|---|---|---|---|");
    for (const variant of ["rxagent:observable", "floor:plain"]) {
      const e = flat.variants[variant];
      const w = e.wallMs;
      const t = e.turnUs;
      p(`| ${LABEL[variant]} | ${fmt(w.median)} ms (${fmt((w.median * 1000) / flat.size, 1)} µs/turn) | ${fmt(w.min)} – ${fmt(w.max)} ms | ${w.runs} | ${fmt(e.cpuMs.median)} ms | ${variant === "floor:plain" ? "1" : ratioCell(flat, variant, "floor:plain")} | ${t ? `${fmt(t.earlyMedian)} → ${fmt(t.lateMedian)} (${fmt(t.earlyMean)} → ${fmt(t.lateMean)})` : "—"} |`);
    }
    const c = flat.variants["rxagent:observable"].check;
    p();
    p(`Each rxagent run: ${c.events} events, ${c.requests} provider requests, ${c.messages} transcript messages. The work, checked for every run of both against the script: ${c.work.requests} provider requests, ${c.work.toolExecutions} tool executions, ${c.work.toolResults} tool results kept.`);
    p();
  }
  for (const reduced of reducedFor("long-run")) timingTable(`N = ${reduced.size.toLocaleString("en")} (reduced size: every runtime beside the peers that fit no size above)`, reduced, (ms) => `${fmt((ms * 1000) / reduced.size, 1)} µs/turn`);
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
  peersLine(r, p);
  p("- The session server under load (1 000 followers on one process: memory per follower, entries/s, added latency, a reconnect storm): [SERVER-LOAD.md](SERVER-LOAD.md), by `node bench/server-load.mjs`. The core before and after its reshaping: [BASELINE.md](BASELINE.md); the engine's pieces against stock rxjs: [ENGINE.md](ENGINE.md).");
  p();
  p("## Targets");
  p();
  p("| Target | Value | Goal | Met |");
  p("|---|---|---|---|");
  for (const t of r.targets) p(`| ${t.name}${t.note ? ` <br><sub>${t.note}</sub>` : ""} | ${typeof t.value === "number" ? `${t.value}${t.goal.includes("×") ? "×" : ""}` : t.value} | ${t.goal} | ${t.met ? "yes" : "**no**"} |`);
  p();
  timingSections(r, p);
  p("## 4. Memory (each runtime in its own process; medians of " + r.memory.streaming.variants["reference:pi"].peakRssMiB.runs + " processes)");
  p();
  p("| Workload | Runtime, provider | Peak RSS | RSS after import | Peak − after import | Heap retained after the run: data (+ code) |");
  p("|---|---|---|---|---|---|");
  const memRows = [[`Streaming ${r.memory.streaming.size.toLocaleString("en")}`, r.memory.streaming], ...r.memory.longRun.map((e) => [`Long run ${e.size.toLocaleString("en")}`, e])];
  for (const [label, entry] of memRows) {
    for (const variant of ALL_VARIANTS) {
      const m = entry.variants[variant];
      if (!m) continue;
      p(`| ${label} | ${LABEL[variant]} | ${fmt(m.peakRssMiB.median)} MiB | ${fmt(m.baselineRssMiB.median)} MiB | ${fmt(m.peakRssMiB.median - m.baselineRssMiB.median)} MiB | ${fmt(m.dataRetainedKiB.median, 0)} KiB (${m.codeRetainedKiB.median >= 0 ? "+" : "−"} ${fmt(Math.abs(m.codeRetainedKiB.median), 0)}) |`);
    }
  }
  p();
  if (memRows.some(([, entry]) => PEER_VARIANTS.some((v) => entry.variants[v]))) {
    p("Peers' rows: the SDK and zod are loaded before the baseline (\"RSS after import\"). The SDKs: one process each, one warm run of 100 turns before the measured one. What stays referenced for the heap retained: AI SDK the run's response messages, OpenAI Agents its streamed run result (which holds every model response of the run), the floor its transcript; reference and rxagent their Agent (long run) or agent_end event (streaming).");
    p();
  }
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
  p("| Bundle (Agent + agentLoop, or an app: one Agent, one tool; esbuild --minify, browser ESM) | Minified | Min + gzip |");
  p("|---|---|---|");
  const bundles = [r.size.rxagentOwn, r.size.rxagentTotal, r.size.reference, ...Object.values(r.size.apps ?? {})].filter(Boolean);
  for (const b of bundles) {
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
