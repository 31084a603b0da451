/**
 * The session server under load: 1 000 followers on one server process (rxagent/server as built,
 * on Node's http through toNodeListener, alone in a child process), 100 of them on sessions that
 * stream runs at once, the other 900 on idle sessions. Measures the server's memory per idle
 * hosted session and per idle connected follower, the entries per second delivered, the added
 * latency from a delta's emission on the server to its arrival at the follower, and a reconnect
 * storm (every stream cut at once, every follower back at once with Last-Event-ID). Checks that
 * no follower lost or repeated an entry, and exits non-zero if one did.
 *
 * The load generator is this process: raw node:http requests and a hand-cut SSE line splitter
 * (bench/server-load/follower.mjs). Both processes share the machine.
 *
 * Usage (after `npm run build`; `npm run bench` runs it last):
 *   node bench/server-load.mjs            the full run, writes bench/SERVER-LOAD.md and bench/server-load/results.json
 *   node bench/server-load.mjs --quick    100 followers, 10 streaming, shorter runs; nothing written
 *   --clients=N --streaming=M             other sizes (nothing written unless they are the full run's)
 *   node bench/server-load.mjs --render   SERVER-LOAD.md again from server-load/results.json (after editing server-load/FINDINGS.md)
 *   --backlog=N                           the server listens with that backlog, not Node's default 511 (nothing written)
 *   RXAGENT_DIST=<dir> RXAGENT_DIST_COMMIT=<sha>   another build than dist/ (a clean export of that commit)
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Follower, Tally, closePool, inBatches, post } from "./server-load/follower.mjs";
import { machineNow, render } from "./server-load/render.mjs";
import { listenOverflows, startServer } from "./server-load/server-process.mjs";

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(benchDir, "..");
// --render: SERVER-LOAD.md again from the last full run's results (after editing server-load/FINDINGS.md).
if (process.argv.includes("--render")) {
  writeFileSync(path.join(benchDir, "SERVER-LOAD.md"), render(JSON.parse(readFileSync(path.join(benchDir, "server-load/results.json"), "utf8"))));
  process.exit(0);
}
const quick = process.argv.includes("--quick");
const arg = (name, fallback) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);
const CLIENTS = arg("clients", quick ? 100 : 1000);
const STREAMING = arg("streaming", quick ? 10 : 100);
const BACKLOG = arg("backlog", 0) || undefined;
const full = !quick && CLIENTS === 1000 && STREAMING === 100 && !BACKLOG;
/** The runs: deltas per run and the pause between two deltas on the server's clock. */
const PHASES = {
  paced: { deltas: quick ? 100 : 500, pauseMs: 20 },
  flatOut: { deltas: quick ? 300 : 500, pauseMs: 1 },
  storm: { deltas: quick ? 100 : 500, pauseMs: 20 },
};
const CONCURRENCY = 50;
// In the storm a thousand of the load generator's sockets end at once, each with an ECONNRESET
// whose stack Node would capture: the load generator's own cost, not the server's.
Error.stackTraceLimit = 0;

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (text) => process.stderr.write(`${text}\n`);

if (!existsSync(path.join(process.env.RXAGENT_DIST ?? path.join(root, "dist"), "server/index.js"))) throw new Error("bench/server-load.mjs runs against dist/: run `npm run build` first.");

async function until(condition, timeoutMs, what) {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}

const quantile = (sorted, q) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]);
const distribution = (sorted) => ({ samples: sorted.length, median: quantile(sorted, 0.5), p90: quantile(sorted, 0.9), p99: quantile(sorted, 0.99), p999: quantile(sorted, 0.999), max: sorted.at(-1) ?? NaN });

/** The two processes' clocks (`timeOrigin + now()`) compared over IPC: the offset at the shortest round trip. */
async function clockCheck() {
  let best = { rtt: Infinity, offset: 0 };
  for (let i = 0; i < 30; i++) {
    const sent = now();
    const { now: server } = await ask({ type: "clock" });
    const back = now();
    if (back - sent < best.rtt) best = { rtt: back - sent, offset: server - (sent + back) / 2 };
  }
  return best;
}

const started = now();
const machineAtStart = machineNow();
// The floor first, in a fresh process of its own: what a bare SSE connection costs on Node's
// http (a baseline, then as many bare connections as followers below).
const floor = await (async () => {
  const bareServer = await startServer();
  const connect = (count) => Array.from({ length: count }, (_, i) => new Follower({ port: bareServer.port, path: `/floor/${i}` }, new Tally(1)));
  const warm = connect(5);
  await Promise.all(warm.map((f) => f.open()));
  const baseline = await bareServer.ask({ type: "memory" });
  const bare = connect(CLIENTS);
  await inBatches(bare, CONCURRENCY, (f) => f.open());
  const connected = await bareServer.ask({ type: "memory" });
  // The same storm as below, on bare connections: what Node's http alone takes for it.
  const overflowsBefore = listenOverflows();
  const dropped = await bareServer.ask({ type: "drop" }, "dropped");
  await until(() => bare.every((f) => f.liveAt > dropped.at), 120_000, "every bare connection back");
  const overflows = overflowsBefore === undefined ? undefined : listenOverflows() - overflowsBefore;
  const storm = { live: distribution(Float64Array.from(bare, (f) => f.liveAt - dropped.at).sort()), overflows };
  await bareServer.ask({ type: "storm" });
  for (const f of [...warm, ...bare]) f.close();
  bareServer.stop();
  return { baseline, connected, storm };
})();
const server = await startServer(BACKLOG);
const { port, ask } = server;
log(`server on 127.0.0.1:${port}; ${CLIENTS} followers, ${STREAMING} streaming${quick ? " (quick)" : ""}`);
const clock = await clockCheck();
const commands = (id) => `/sessions/${id}/commands`;
const follow = (id, tally) => new Follower({ port, path: `/sessions/${id}/events` }, tally);
const prompt = (id, { deltas, pauseMs }) => post(port, commands(id), { type: "prompt", text: `stream ${deltas} ${pauseMs}` });
const problems = [];

// Warm-up: a few sessions hosted, followed and streamed, so the code the load runs is compiled
// before the baseline; their followers then leave (the sessions stay hosted, in every figure alike).
{
  const tally = new Tally(1);
  const warm = Array.from({ length: 5 }, (_, i) => follow(`warm-${i}`, tally));
  await Promise.all(warm.map((f) => f.open()));
  await Promise.all(warm.map((_, i) => prompt(`warm-${i}`, { deltas: 200, pauseMs: 1 })));
  await until(() => warm.every((f) => f.runsEnded > 0), 30_000, "the warm-up runs");
  for (const f of warm) f.close();
  await sleep(200);
}

// Memory: the baseline, then N sessions hosted (a command hosts a session: an abort on an idle
// Agent changes nothing), then one follower on each.
const memory = { baseline: await ask({ type: "memory" }) };
const ids = Array.from({ length: CLIENTS }, (_, i) => `s-${i}`);
await inBatches(ids, CONCURRENCY, async (id) => {
  const answer = await post(port, commands(id), { type: "abort" });
  if (answer.status !== 202) problems.push(`hosting ${id}: HTTP ${answer.status}`);
});
// The commands' keep-alive sockets closed, so they are not counted as the sessions' memory.
closePool();
await sleep(200);
memory.hosted = await ask({ type: "memory" });
const tally = new Tally(STREAMING * (PHASES.paced.deltas + PHASES.flatOut.deltas) + 1000);
const followers = ids.map((id) => follow(id, tally));
const connectStarted = now();
await inBatches(followers, CONCURRENCY, (f) => f.open());
const connectMs = now() - connectStarted;
memory.followed = await ask({ type: "memory" });
const streamers = followers.slice(0, STREAMING);
log(`hosted and followed in ${((now() - started) / 1000).toFixed(1)} s`);

/** One streaming phase: every streaming session prompted at once; `storm` cuts every stream halfway. */
async function streamingPhase(name, { deltas, pauseMs }, storm = false) {
  log(`${name}: ${STREAMING} runs of ${deltas} deltas, ${pauseMs} ms apart${storm ? ", every stream cut halfway" : ""}`);
  await ask({ type: "usage" });
  const before = { entries: tally.entries, bytes: tally.bytes, deltas: tally.deltas, count: tally.count, heartbeats: tally.heartbeats };
  const perFollower = streamers.map((f) => ({ deltas: f.deltas, runsEnded: f.runsEnded }));
  const cpu = process.cpuUsage();
  tally.record = !storm;
  const begun = now();
  const answers = await Promise.all(streamers.map((_, i) => prompt(ids[i], { deltas, pauseMs })));
  const refused = answers.filter((a) => a.status !== 202);
  if (refused.length > 0) problems.push(`${name}: ${refused.length} prompts refused (first: HTTP ${refused[0].status} ${JSON.stringify(refused[0].body)})`);
  let stormResult;
  if (storm) {
    await until(() => tally.deltas - before.deltas >= (STREAMING * deltas) / 2, 120_000, "half the storm phase's deltas");
    const overflowsBefore = listenOverflows();
    const dropped = await ask({ type: "drop" }, "dropped");
    await until(() => followers.every((f) => f.liveAt > dropped.at), 120_000, "every follower live again");
    await until(() => streamers.every((f) => f.firstEntryAt > f.liveAt), 120_000, "the streaming followers' first entries after the cut");
    const live = followers.map((f) => f.liveAt - dropped.at).sort((a, b) => a - b);
    const caughtUp = streamers.map((f) => f.firstEntryAt - dropped.at).sort((a, b) => a - b);
    const seen = await ask({ type: "storm" });
    const overflows = overflowsBefore === undefined ? undefined : listenOverflows() - overflowsBefore;
    const sorted = (list) => Float64Array.from(list).sort();
    stormResult = { streamsCut: dropped.streams, live: distribution(live), caughtUp: distribution(caughtUp), arrived: distribution(sorted(seen.arrived)), answered: distribution(sorted(seen.answered)), lost: distribution(sorted(followers.map((f) => f.lostAt - dropped.at))), overflows };
  }
  await until(() => streamers.every((f, i) => f.runsEnded > perFollower[i].runsEnded), 300_000, `the ${name} runs' ends`);
  const ended = Math.max(...streamers.map((f) => f.endedAt));
  const seconds = (ended - begun) / 1000;
  const client = process.cpuUsage(cpu);
  const server = await ask({ type: "usage" });
  const short = streamers.filter((f, i) => f.deltas - perFollower[i].deltas !== deltas).length;
  if (short > 0) problems.push(`${name}: ${short} streaming followers did not read exactly ${deltas} deltas`);
  tally.record = true;
  return {
    name,
    deltas,
    pauseMs,
    runs: STREAMING,
    seconds,
    offeredDeltasPerSecond: (STREAMING * 1000) / pauseMs,
    entries: tally.entries - before.entries,
    entriesPerSecond: (tally.entries - before.entries) / seconds,
    deltasPerSecond: (tally.deltas - before.deltas) / seconds,
    bytesPerSecond: (tally.bytes - before.bytes) / seconds,
    heartbeats: tally.heartbeats - before.heartbeats,
    latency: storm ? undefined : distribution(tally.since(before.count)),
    server: { ...server, cpuShare: (server.cpuUserMs + server.cpuSystemMs) / 1000 / seconds },
    client: { cpuShare: (client.user + client.system) / 1e6 / seconds },
    storm: stormResult,
  };
}

const phases = [];
try {
  phases.push(await streamingPhase("paced", PHASES.paced));
  phases.push(await streamingPhase("flat out", PHASES.flatOut));
  phases.push(await streamingPhase("reconnect storm", PHASES.storm, true));
} catch (error) {
  problems.push(String(error instanceof Error ? error.message : error));
}
memory.after = await ask({ type: "memory" });

// The end: every follower has read up to its session's last entry (a command answers with it).
await sleep(300);
const last = new Array(CLIENTS);
await inBatches(ids, CONCURRENCY, async (id, i) => {
  last[i] = (await post(port, commands(id), { type: "abort" })).body.at;
});
const reached = (f, at) => typeof at === "string" && f.epoch === at.slice(0, at.lastIndexOf(".")) && f.lastN >= Number(at.slice(at.lastIndexOf(".") + 1));
await until(() => followers.every((f, i) => reached(f, last[i])), 10_000, "every follower at its session's last entry").catch(() => undefined);
const behind = followers.filter((f, i) => !reached(f, last[i]));
const sum = (key) => followers.reduce((total, f) => total + f[key], 0);
const stormCuts = phases.some((p) => p.storm) ? CLIENTS : 0;
const correctness = {
  gaps: sum("gaps"),
  repeats: sum("repeats"),
  epochChanges: sum("epochChanges"),
  refusals: sum("refusals"),
  behind: behind.length,
  reconnects: sum("drops"),
  unplannedReconnects: sum("drops") - stormCuts,
  firstProblem: followers.find((f) => f.firstProblem)?.firstProblem ?? (behind[0] ? `${behind[0].target.path}: at ${behind[0].lastId}, its session at ${last[followers.indexOf(behind[0])]}` : undefined),
};
for (const [key, count] of Object.entries(correctness)) if (["gaps", "repeats", "epochChanges", "refusals", "behind"].includes(key) && count > 0) problems.push(`${count} ${key}`);

for (const f of followers) f.close();
closePool();
server.stop();

const per = (from, to) => ({ heap: (to.heapUsed - from.heapUsed) / CLIENTS, code: (to.code - from.code) / CLIENTS, rss: (to.rss - from.rss) / CLIENTS });
const results = {
  date: new Date().toISOString(),
  machine: { ...machineAtStart, loadAverageAtEnd: machineNow().loadAverage },
  commit: machineAtStart.commit,
  clients: CLIENTS,
  backlog: BACKLOG ?? "Node's default (511)",
  streaming: STREAMING,
  clock,
  connectMs,
  memory,
  perSession: per(memory.baseline, memory.hosted),
  perFollower: per(memory.hosted, memory.followed),
  floor,
  perBareConnection: per(floor.baseline, floor.connected),
  phases,
  correctness,
  problems,
  seconds: (now() - started) / 1000,
};
const markdown = render(results);
console.log(markdown);
if (full) {
  writeFileSync(path.join(benchDir, "SERVER-LOAD.md"), markdown);
  writeFileSync(path.join(benchDir, "server-load/results.json"), JSON.stringify(results, null, 2) + "\n");
  log("wrote bench/SERVER-LOAD.md and bench/server-load/results.json");
}
if (problems.length > 0) {
  log(`FAILED: ${problems.join("; ")}${correctness.firstProblem ? ` (first: ${correctness.firstProblem})` : ""}`);
  process.exitCode = 1;
}
