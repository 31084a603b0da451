/**
 * Before and after a change to the core, in one run: the library as built (dist/) against the
 * same workloads run by an earlier commit's build, alternating in one process per workload, on
 * both rxjs builds (the CommonJS one Node loads, the ES2015 one bundlers and Angular load). The
 * budget of a reshaping of the core: no workload more than 1.5× slower than before.
 *
 * Usage (after `npm run build`; `npm run bench` runs it after bench/engine.mjs):
 *   node bench/baseline.mjs                 builds the baseline into .bench-baseline/, times, writes bench/BASELINE.md
 *   node bench/baseline.mjs --quick         fewer rounds and smaller sizes, nothing written
 *   BENCH_BASELINE=<commit> node bench/baseline.mjs   another baseline (default below)
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(benchDir, "..");
const work = path.join(root, ".bench-baseline");
const quick = process.argv.includes("--quick");
/** The core before its reshaping onto stock operators (the last commit of the hand-written engine). */
const BASELINE = process.env.BENCH_BASELINE ?? "bb7fce7";
const BUDGET = 1.5;
/** Fresh processes per workload and rxjs build, each timing both builds alternately. */
const PROCESSES = quick ? 1 : 3;

/** Each workload: what timing.mjs runs, with the variants "rxagent" (this tree) and "baseline". */
const WORKLOADS = [
  { label: "streaming 100 000 deltas (loop)", kind: "loop", workload: "streaming", size: 100_000, agent: false, warmup: 3, runs: 15 },
  { label: "streaming 100 000 deltas (Agent)", kind: "loop", workload: "streaming", size: 100_000, agent: true, warmup: 3, runs: 15 },
  { label: "tool-heavy 1 000 turns × 4 calls (loop)", kind: "loop", workload: "tool-heavy", size: 1000, agent: false, warmup: 5, runs: 15 },
  { label: "long run 1 000 turns (Agent)", kind: "agent", workload: "long-run", size: 1000, agent: false, warmup: 8, runs: 15 },
  { label: "long run 16 000 turns (Agent)", kind: "agent", workload: "long-run", size: 16_000, agent: false, warmup: 8, runs: 9, warmupSize: 1000 },
  { label: "long run 100 000 turns (Agent)", kind: "agent", workload: "long-run", size: 100_000, agent: false, warmup: 8, runs: 3, warmupSize: 1000 },
];

/** The baseline's sources and tsconfig at `BASELINE`, compiled into .bench-baseline/dist. */
function buildBaseline() {
  try {
    execFileSync("git", ["cat-file", "-e", `${BASELINE}^{commit}`], { cwd: root, stdio: "ignore" });
  } catch {
    throw new Error(`The baseline commit ${BASELINE} is not in this clone (a shallow clone?): \`git fetch --unshallow\`, or set BENCH_BASELINE to a commit it has.`);
  }
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const archive = execFileSync("git", ["archive", BASELINE, "src", "tsconfig.json", "tsconfig.build.json"], { cwd: root, maxBuffer: 1 << 28 });
  execFileSync("tar", ["-x", "-C", work], { input: archive });
  const tsc = path.join(root, "node_modules/typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", path.join(work, "tsconfig.build.json"), "--declaration", "false", "--declarationMap", "false", "--sourceMap", "false"], { stdio: "inherit" });
  return path.join(work, "dist");
}

function median(list) {
  return [...list].sort((a, b) => a - b)[list.length >> 1];
}

function main() {
  if (!existsSync(path.join(root, "dist/index.js"))) throw new Error("bench/baseline.mjs runs against dist/: run `npm run build` first.");
  process.stderr.write(`building the baseline ${BASELINE}…\n`);
  const baselineDist = buildBaseline();
  const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
  const results = {};
  for (const rxjs of ["cjs", "es2015"]) {
    results[rxjs] = [];
    const flags = rxjs === "es2015" ? ["--import", path.join(benchDir, "lib/rxjs-es2015.mjs")] : [];
    for (const w of WORKLOADS) {
      const size = quick ? Math.min(w.size, w.workload === "streaming" ? 10_000 : 1000) : w.size;
      const suffix = w.agent ? ":agent" : "";
      const variants = [`rxagent:observable${suffix}`, `baseline:observable${suffix}`];
      const config = { kind: w.kind, workload: w.workload, size, variants, warmup: quick ? 1 : w.warmup, runs: quick ? 3 : w.runs, ...(w.warmupSize && !quick ? { warmupSize: w.warmupSize } : {}) };
      process.stderr.write(`  ${rxjs}: ${w.label}${quick ? ` (at ${size})` : ""}…\n`);
      // Several fresh processes: on a shared machine one process's ratio can be off by a fifth.
      const walls = { after: [], before: [] };
      const ratios = [];
      for (let p = 0; p < PROCESSES; p++) {
        const out = execFileSync(process.execPath, [...flags, path.join(benchDir, "workers/timing.mjs"), JSON.stringify(config)], {
          cwd: benchDir,
          encoding: "utf8",
          env: { ...process.env, RXAGENT_BASELINE_DIST: baselineDist },
          stdio: ["ignore", "pipe", "inherit"],
          maxBuffer: 1 << 26,
        });
        const timed = JSON.parse(out.trim().split("\n").at(-1));
        if (timed[variants[0]].check.events !== timed[variants[1]].check.events) throw new Error(`${w.label}: the two builds emitted different event counts`);
        walls.after.push(...timed[variants[0]].wall);
        walls.before.push(...timed[variants[1]].wall);
        ratios.push(median(timed[variants[0]].wall) / median(timed[variants[1]].wall));
      }
      // The ratio is the median of the processes' own ratios: pooled times would mix processes
      // that ran while the machine was busier with ones that ran while it was not.
      results[rxjs].push({ label: w.label, size, before: median(walls.before), after: median(walls.after), ratio: median(ratios), low: Math.min(...ratios), high: Math.max(...ratios) });
    }
  }
  const lines = render(results, commit);
  console.log(lines.join("\n"));
  if (!quick) {
    writeFileSync(path.join(benchDir, "BASELINE.md"), lines.join("\n") + "\n");
    process.stderr.write("wrote bench/BASELINE.md\n");
  }
  rmSync(work, { recursive: true, force: true });
  const over = Object.values(results).flat().filter((r) => r.ratio > BUDGET);
  if (over.length > 0 && !quick) {
    process.stderr.write(`over the ${BUDGET}× budget: ${over.map((r) => r.label).join("; ")}\n`);
    process.exitCode = 1;
  }
}

function render(results, commit) {
  const lines = [
    `# Before and after: ${commit} against ${BASELINE}`,
    "",
    `Generated by \`node bench/baseline.mjs\` (${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}).`,
    `Each row: median wall ms (over all counted runs) of the baseline (${BASELINE}, built from its own sources) and of this tree over ${PROCESSES} fresh processes per workload, each timing both builds alternately round by round; and after ÷ before: the median of the processes' own ratios (below 1 is faster now), then the lowest and highest of them. The budget of the core's reshaping: at most ${BUDGET}× on every workload. The native Observable provider; the Agent rows have one counting listener.`,
    "",
  ];
  for (const [rxjs, rows] of Object.entries(results)) {
    lines.push(`## rxjs ${rxjs === "cjs" ? "CommonJS build (what Node loads)" : "ES2015 build (what bundlers and Angular load)"}`, "");
    lines.push("| Workload | before (ms) | after (ms) | after ÷ before | per process | within budget |", "|---|---|---|---|---|---|");
    for (const r of rows) lines.push(`| ${r.label} | ${r.before.toFixed(1)} | ${r.after.toFixed(1)} | ${r.ratio.toFixed(2)}× | ${r.low.toFixed(2)}–${r.high.toFixed(2)}× | ${r.ratio <= BUDGET ? "yes" : "**no**"} |`);
    lines.push("");
  }
  return lines;
}

main();
