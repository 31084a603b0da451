/**
 * The whole deployment on one machine: one PostgreSQL, N worker processes, a queue of agent
 * sessions. One worker is killed with SIGKILL mid-run and started again; pg-boss hands its jobs
 * to the others when they expire, and they resume the sessions from their journals.
 *
 *   npx tsx examples/workers/main.ts [--workers 3] [--sessions 20] [--prompts 3] [--kills 1]
 *
 * Uses DATABASE_URL when set (it creates the schemas "rxagent_example" and
 * "pgboss_example" there), else starts a throwaway embedded PostgreSQL. No API key: the model is
 * the scripted provider.
 */
import { parseArgs } from "node:util";
import pg from "pg";
import { PostgresSessionStore } from "../../src/session/stores/postgres-store.js"; // "rxagent/session/postgres"
import { startPostgres } from "../../test/helpers/postgres.js";
import { listCharges, createChargesTable } from "./charges.js";
import { checkSession } from "./check-session.js";
import { createRunQueue, enqueueRun, jobStates, openBoss, type AgentRunJob } from "./queue.js";
import { settingsEnv, workerSettings } from "./settings.js";
import { tsxWorker, WorkerProcess } from "./worker-process.js";
import type { WorkerLogLine } from "./worker-log.js";

const { values } = parseArgs({ options: { workers: { type: "string", default: "3" }, sessions: { type: "string", default: "20" }, prompts: { type: "string", default: "3" }, kills: { type: "string", default: "1" } } });
const [workerCount, sessionCount, promptCount, killCount] = [values.workers, values.sessions, values.prompts, values.kills].map(Number) as [number, number, number, number];
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const started = Date.now();
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

// The database: yours, or a throwaway one for the demo (the test suite's helper).
const server = process.env.DATABASE_URL ? undefined : await startPostgres();
const url = process.env.DATABASE_URL ?? server!.url;
console.log(server ? `PostgreSQL: embedded, started in ${seconds(server.startupMs)}` : "PostgreSQL: DATABASE_URL");
const settings = { ...workerSettings(), storeSchema: "rxagent_example", bossSchema: "pgboss_example" };
const pool = new pg.Pool({ connectionString: url, max: 4 });
pool.on("error", () => undefined);

// pg-boss creates its schema on start; the queue's expiry and retries are set once, here.
const boss = openBoss(pool, settings);
boss.on("error", (error) => console.error(`pg-boss: ${error.message}`));
await boss.start();
await createRunQueue(boss, settings);
await createChargesTable(pool, settings.storeSchema);

const env = { DATABASE_URL: url, RXAGENT_AUDIT: "1", ...settingsEnv(settings) };
const workers = Array.from({ length: workerCount }, (_, i) => new WorkerProcess(`worker-${i + 1}`, tsxWorker(), env));
workers.forEach((worker) => worker.start());
await Promise.all(workers.map((worker) => worker.ready()));
console.log(`${workerCount} workers ready; job expiry ${settings.expireInSeconds} s, session lease ${seconds(settings.leaseTtlMs)}`);

// Fresh session ids per run, so running the example twice on one database starts over.
const runId = Date.now().toString(36);
const jobs: AgentRunJob[] = Array.from({ length: sessionCount }, (_, i) => ({
  sessionId: `${runId}-session-${String(i + 1).padStart(2, "0")}`,
  prompts: Array.from({ length: promptCount }, (_, k) => `Settle order ${k + 1} of customer ${i + 1}.`),
}));
for (const job of jobs) await enqueueRun(boss, job);
console.log(`queued ${sessionCount} sessions of ${promptCount} prompts`);

/** Sessions a worker's current incarnation is running. */
const running = (worker: WorkerProcess): string[] => {
  const open = new Set<string>();
  for (const line of worker.log) {
    if (line.pid !== worker.pid) continue;
    if (line.ev === "job-start") open.add(line.s);
    if (line.ev === "job-done" || line.ev === "job-failed") open.delete(line.s);
  }
  return [...open];
};

// Wait for the queue to drain, killing a worker that is mid-run at evenly spaced moments.
let kills = 0;
for (;;) {
  const states = await jobStates(pool, settings);
  const completed = states.completed ?? 0;
  if (completed + (states.failed ?? 0) >= sessionCount) break;
  const victim = workers.find((worker) => worker.running && running(worker).length > 0);
  if (kills < killCount && completed >= ((kills + 1) * sessionCount) / (killCount + 1) - 1 && victim) {
    kills++;
    console.log(`SIGKILL ${victim.name} while it runs ${running(victim).join(", ")}`);
    victim.signal("SIGKILL");
    await victim.whenExited();
    setTimeout(() => victim.start(), 1_000); // a supervisor (systemd, Kubernetes) would restart it
  }
  await sleep(200);
}
const elapsed = Date.now() - started;
await Promise.all(workers.map((worker) => worker.stop()));
await boss.stop({ graceful: false });

// The summary, from the workers' logs and the database.
const states = await jobStates(pool, settings);
console.log(`\njobs: ${JSON.stringify(states)} after ${seconds(elapsed)}`);
const lines: WorkerLogLine[] = workers.flatMap((worker) => worker.log);
const count = (worker: string, ev: WorkerLogLine["ev"], error?: string): number => lines.filter((l) => l.w === worker && l.ev === ev && (!error || ("error" in l && l.error === error))).length;
console.log("\nworker     starts  runs done  runs failed  appends  fenced appends  lease waits");
for (const worker of workers) {
  const cells = [worker.starts, count(worker.name, "job-done"), count(worker.name, "job-failed"), count(worker.name, "appended"), count(worker.name, "append-refused", "SessionFencedError"), count(worker.name, "lease-wait")];
  console.log(`${worker.name.padEnd(10)} ${cells.map((cell, i) => String(cell).padStart([6, 10, 12, 8, 15, 12][i]!)).join(" ")}`);
}
// A session written by two processes was handed over: the second resumed it from the journal.
const writers = new Map<string, Set<string>>();
for (const line of lines) if (line.ev === "appended") writers.set(line.s, (writers.get(line.s) ?? new Set()).add(`${line.w} (pid ${line.pid})`));
const handed = [...writers].filter(([, by]) => by.size > 1);
console.log(`\nsessions resumed by another process: ${handed.length}`);
for (const [session, by] of handed) console.log(`  ${session}: ${[...by].join(" → ")}`);

const store = new PostgresSessionStore({ pool, schema: settings.storeSchema });
const problems = (await Promise.all(jobs.map((job) => checkSession(store, job)))).flat();
console.log(`journals: ${jobs.length} checked, ${problems.length} problems${problems.map((p) => `\n  ${p}`).join("")}`);
const charges = (await listCharges(pool, settings.storeSchema)).filter((c) => c.sessionId.startsWith(runId));
const twice = charges.filter((c, i) => charges.findIndex((d) => d.sessionId === c.sessionId && d.toolCallId === c.toolCallId) !== i);
console.log(`charges: ${charges.length}, ${twice.length === 0 ? "none twice" : `${twice.length} twice`}`);

await pool.end();
await server?.stop();
process.exitCode = problems.length === 0 && twice.length === 0 && (states.failed ?? 0) === 0 ? 0 : 1;
