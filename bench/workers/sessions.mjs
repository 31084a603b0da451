/**
 * What a durable session costs (SPEC S1–S6): the long-run workload on rxagent's Agent with each
 * session store, against the same Agent with none, in one fresh process per call.
 *
 * Usage: node workers/sessions.mjs '<json>' with
 *   { store: "none" | "memory" | "file-fsync" | "file-grouped" | "postgres", turns, runs, warmup, pgUrl? }
 * Prints one JSON line: { wall: number[] (ms per run), load: { ms, messages } (resume() of the
 * last run's session in a fresh Agent), entries }.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { RXAGENT_ENTRY } from "../lib/runtimes.mjs";
import { instantTool, longRunScript, MODEL, prepareForm, scriptedStreamFn } from "../lib/scenarios.mjs";

const config = JSON.parse(process.argv[2]);
const dist = path.dirname(RXAGENT_ENTRY);
const load = (file) => import(pathToFileURL(path.join(dist, file)).href);
const rx = await load("index.js");
// `agentSession()` builds the Agent's session value; a build from before it took a plain object.
const { InMemorySessionStore, agentSession } = await load("session/index.js");
const rootRequire = createRequire(path.join(dist, "..", "package.json"));
await prepareForm("observable");
const tool = instantTool();

const scratch = mkdtempSync(path.join(tmpdir(), "rxagent-bench-sessions-"));
let pool;
async function storeFor(kind, n) {
  switch (kind) {
    case "none":
      return undefined;
    case "memory":
      return new InMemorySessionStore();
    case "file-fsync":
    case "file-grouped": {
      const { FileSessionStore } = await load("session/stores/file-store.js");
      return new FileSessionStore({ directory: path.join(scratch, `run-${n}`), durability: kind === "file-fsync" ? "fsync" : { fsyncEveryMs: 50 } });
    }
    case "postgres": {
      const { PostgresSessionStore } = await load("session/stores/postgres-store.js");
      const pg = rootRequire("pg");
      pool ??= new pg.Pool({ connectionString: config.pgUrl, max: 2 });
      return new PostgresSessionStore({ pool, schema: `bench_${process.pid}_${n}` });
    }
    default:
      throw new Error(`unknown store ${kind}`);
  }
}

function agentFor(store, id, turns) {
  const options = { initialState: { model: MODEL, tools: [tool], systemPrompt: "You are a benchmark." }, streamFn: scriptedStreamFn(longRunScript(turns), "observable") };
  if (store) options.session = agentSession ? agentSession({ store, id, owner: "bench" }) : { store, id, owner: "bench" };
  return new rx.Agent(options);
}

async function once(n, turns) {
  const store = await storeFor(config.store, n);
  const agent = agentFor(store, `s${n}`, turns);
  let events = 0;
  agent.subscribe(() => void events++);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  if (store) await agent.resume();
  await agent.prompt("go");
  const wall = performance.now() - t0;
  const used = process.cpuUsage(cpu0);
  cpuTimes.push((used.user + used.system) / 1000);
  if (agent.state.messages.length !== 2 * turns + 3) throw new Error(`expected ${2 * turns + 3} messages, got ${agent.state.messages.length} (${agent.state.errorMessage})`);
  return { wall, store, id: `s${n}` };
}

const wall = [];
const cpuTimes = [];
let last;
for (let n = 0; n < config.warmup + config.runs; n++) {
  const run = await once(n, n < config.warmup ? Math.min(config.turns, 1_000) : config.turns);
  if (n >= config.warmup) wall.push(run.wall);
  else cpuTimes.pop();
  last = run;
}

let loadResult;
if (last.store) {
  // A fresh Agent opens the last run's session: take the lease, read, check and replay the journal.
  const times = [];
  let messages = 0;
  for (let i = 0; i < 3; i++) {
    const fresh = agentFor(last.store, last.id, 1);
    const t0 = performance.now();
    await fresh.resume();
    times.push(performance.now() - t0);
    messages = fresh.state.messages.length;
  }
  loadResult = { ms: times.sort((a, b) => a - b)[1], messages };
}
await pool?.end();
rmSync(scratch, { recursive: true, force: true });
console.log(JSON.stringify({ wall, cpu: cpuTimes, load: loadResult }));
