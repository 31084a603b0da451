/**
 * The session server under load, alone in its own process (run with --expose-gc): rxagent/server
 * as built (dist/) on Node's http through toNodeListener, on 127.0.0.1, port chosen by the OS.
 * Every session's Agent streams with fauxProvider on the real clock (asyncScheduler): a prompt
 * `stream <deltas> <pauseMs>` is answered with <deltas> text deltas, one every <pauseMs>, each
 * delta's text replaced, as the model produces it, by the emission time
 * (`performance.timeOrigin + performance.now()`), which the load generator reads on arrival.
 *
 * `GET /floor/<anything>` is the floor: a bare SSE response on Node's http, nothing of rxagent.
 *
 * Driven by its parent over IPC (see bench/server-load.mjs):
 *   → { type: "ready", port }                          once listening
 *   ← { type: "memory" }  → { type: "memory", heapUsed, code, rss, external, arrayBuffers }   after full GCs (code: V8's code spaces)
 *   ← { type: "usage" }   → { type: "usage", cpuUserMs, cpuSystemMs, loopDelay: { p50, p99, max }, maxRss, errors }
 *                            (since the previous "usage"; the event-loop delay in ms)
 *   ← { type: "clock" }   → { type: "clock", now }   (for the clock check)
 *   ← { type: "drop" }    → { type: "dropped", at, streams }   every event stream's socket destroyed at `at`
 *   ← { type: "storm" }   → { type: "storm", arrived, answered }   since the drop: each event-stream request's
 *                            arrival (ms after `at`) and the time from its arrival to its 200 (headers flushed)
 *
 * Usage: node --expose-gc bench/server-load/server.mjs [--backlog=N]   (RXAGENT_DIST=<dir>: another build than dist/)
 */
import http from "node:http";
import path from "node:path";
import v8 from "node:v8";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { asyncScheduler, map } from "rxjs";

if (typeof global.gc !== "function") throw new Error("run with --expose-gc");
if (!process.send) throw new Error("bench/server-load/server.mjs is started by bench/server-load.mjs (it talks over IPC)");

// The library as built in dist/, or another build of it (RXAGENT_DIST: a clean export of a commit).
const dist = process.env.RXAGENT_DIST ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../dist");
const load = (file) => import(pathToFileURL(path.join(dist, file)).href);
const { Agent } = await load("index.js");
const { createSessionServer } = await load("server/index.js");
const { toNodeListener } = await load("server/node.js");
const { fauxProvider } = await load("testing/index.js");

/** Characters of a delta: `T` and the stamp's 17, padded (about five tokens of text). */
const DELTA_WIDTH = 20;
const now = () => performance.timeOrigin + performance.now();
const stamp = () => `T${now().toFixed(3)}`.padEnd(DELTA_WIDTH, " ");
const MODEL = { id: "faux-1", api: "faux", provider: "faux" };

function promptText(messages) {
  const content = messages.at(-1)?.content;
  if (typeof content === "string") return content;
  return (content ?? []).map((block) => (block.type === "text" ? block.text : "")).join("");
}

/** A faux model: the prompt says how many deltas and how far apart; each delta's text is its emission time. */
function streamFn(model, context, options) {
  const [, deltas, pauseMs] = /^stream (\d+) (\d+)$/.exec(promptText(context.messages)) ?? ["", "1", "1"];
  const provider = fauxProvider([{ content: "x".repeat(Number(deltas) * DELTA_WIDTH) }], { scheduler: asyncScheduler, delay: Number(pauseMs), chunkSize: DELTA_WIDTH });
  return provider(model, context, options).pipe(map((event) => (event.type === "text_delta" ? { ...event, delta: stamp() } : event)));
}

let errors = 0;
const sessions = createSessionServer({
  agentFor: () => new Agent({ streamFn, initialState: { model: MODEL } }),
  authenticate: () => "bench",
  authorize: () => true,
  // Above the load: no session is let go while the benchmark runs (a new hosting would start a new epoch).
  maxSessions: 100_000,
  onError: (error) => {
    errors++;
    if (errors <= 5) console.error(`server-load server: ${error instanceof Error ? error.message : String(error)}`);
  },
});

// The event streams' responses, so "drop" can cut them all at once (a proxy restarting, a network blip).
const streams = new Set();
const listener = toNodeListener(sessions.handle);
// The floor: what a bare SSE connection costs on Node's http (headers, one entry, a heartbeat
// timer), beside which a follower's memory is read.
function floor(req, res) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
  res.flushHeaders();
  // Its one entry, unless the follower already read it (a reconnect).
  if (!req.headers["last-event-id"]) res.write("id: floor.1\nevent: state\ndata: {}\n\n");
  const heartbeat = setInterval(() => res.write(": heartbeat\n\n"), 15_000);
  res.on("close", () => clearInterval(heartbeat));
}

// After a drop: when each reconnect reached the server, and how long until its 200 went out.
let storm;
function timeReconnect(res) {
  const arrived = now();
  const times = storm;
  times.arrived.push(arrived - times.at);
  const flushHeaders = res.flushHeaders;
  res.flushHeaders = function () {
    times.answered.push(now() - arrived);
    return flushHeaders.call(this);
  };
}

const server = http.createServer((req, res) => {
  if (req.method === "GET") {
    if (storm) timeReconnect(res);
    streams.add(res);
    res.on("close", () => streams.delete(res));
  }
  if (req.url?.startsWith("/floor/")) floor(req, res);
  else listener(req, res);
});

const loopDelay = monitorEventLoopDelay({ resolution: 1 });
loopDelay.enable();
let cpu = process.cpuUsage();

async function settledMemory() {
  for (let i = 0; i < 3; i++) {
    global.gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const { heapUsed, rss, external, arrayBuffers } = process.memoryUsage();
  // Compiled code is part of heapUsed: V8 optimizes functions as they get hot, not per session.
  const code = v8
    .getHeapSpaceStatistics()
    .filter((space) => space.space_name.startsWith("code"))
    .reduce((sum, space) => sum + space.space_used_size, 0);
  return { heapUsed, code, rss, external, arrayBuffers };
}

function usage() {
  const spent = process.cpuUsage(cpu);
  cpu = process.cpuUsage();
  const ms = (ns) => ns / 1e6;
  const result = {
    cpuUserMs: spent.user / 1000,
    cpuSystemMs: spent.system / 1000,
    loopDelay: { p50: ms(loopDelay.percentile(50)), p99: ms(loopDelay.percentile(99)), max: ms(loopDelay.max) },
    maxRss: process.resourceUsage().maxRSS * 1024,
    errors,
  };
  loopDelay.reset();
  return result;
}

process.on("message", async (message) => {
  switch (message.type) {
    case "memory":
      process.send({ type: "memory", ...(await settledMemory()) });
      break;
    case "usage":
      process.send({ type: "usage", ...usage() });
      break;
    case "clock":
      process.send({ type: "clock", now: now() });
      break;
    case "drop": {
      const at = now();
      const count = streams.size;
      storm = { at, arrived: [], answered: [] };
      for (const res of streams) res.socket?.destroy();
      process.send({ type: "dropped", at, streams: count });
      break;
    }
    case "storm":
      process.send({ type: "storm", arrived: storm?.arrived ?? [], answered: storm?.answered ?? [] });
      storm = undefined;
      break;
  }
});
process.on("disconnect", () => process.exit(0));

// Node's default listen backlog (511), as an app that calls listen(port, host) gets it, unless --backlog=N.
const backlog = Number(process.argv.find((a) => a.startsWith("--backlog="))?.split("=")[1]) || undefined;
server.listen({ port: 0, host: "127.0.0.1", ...(backlog ? { backlog } : {}) }, () => process.send({ type: "ready", port: server.address().port }));
