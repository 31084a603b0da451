/**
 * A worker process: stateless, any number of them side by side. It takes agent-run jobs from
 * pg-boss and runs each on the session the job names; the journal in PostgreSQL is the only
 * state, so a worker that dies loses nothing: pg-boss expires its job and another worker resumes
 * the session where the journal ends.
 *
 *   DATABASE_URL=postgres://… WORKER_NAME=worker-1 npx tsx examples/workers/worker.ts
 *
 * Settings come from the environment (see settings.ts). `RXAGENT_AUDIT=1` logs every lease and
 * append too. SIGTERM stops it gracefully: running jobs go back to the queue.
 */
import pg from "pg";
import { PostgresSessionStore } from "../../src/session/stores/postgres-store.js"; // "rxagent/session/postgres"
import { auditedStore } from "./audited-store.js";
import { recordCharge } from "./charges.js";
import { openBoss, type AgentRunJob } from "./queue.js";
import { runSession } from "./run-session.js";
import { QUEUE, workerSettings } from "./settings.js";
import { workerTools } from "./tools.js";
import { workerLog } from "./worker-log.js";

const url = process.env.DATABASE_URL;
if (!url) throw new Error("Set DATABASE_URL to the PostgreSQL server of the jobs and the sessions.");
const name = process.env.WORKER_NAME || `worker-${process.pid}`;
const settings = workerSettings();
const log = workerLog(name);

// One pool for the jobs, the journals and the side effect.
const pool = new pg.Pool({ connectionString: url, max: 4 + 2 * settings.concurrency });
// An idle connection the server closed: the pool replaces it; nothing to do.
pool.on("error", () => undefined);
const postgres = new PostgresSessionStore({ pool, schema: settings.storeSchema });
const store = process.env.RXAGENT_AUDIT === "1" ? auditedStore(postgres, log) : postgres;
const boss = openBoss(pool, settings);
boss.on("error", (error) => process.stderr.write(`${name}: pg-boss: ${error.message}\n`));
await boss.start();

for (let i = 0; i < settings.concurrency; i++) {
  await boss.work<AgentRunJob>(QUEUE, { pollingIntervalSeconds: settings.pollingIntervalSeconds, includeMetadata: true }, async ([job]) => {
    if (!job) return;
    const { sessionId } = job.data;
    log({ ev: "job-start", s: sessionId, job: job.id, retry: job.retryCount });
    const tools = workerTools({ charge: (toolCallId, amount) => recordCharge(pool, settings.storeSchema, { sessionId, toolCallId, amount, worker: name }) });
    // pg-boss gives up on the job after expireInSeconds: no point waiting for a lease beyond that.
    const deadline = Date.now() + Number(job.expireInSeconds) * 1000;
    try {
      const outcome = await runSession(job.data, { store, owner: name, leaseTtlMs: settings.leaseTtlMs, tools, deadline, log });
      log({ ev: "job-done", s: sessionId, job: job.id, ...outcome });
    } catch (error) {
      log({ ev: "job-failed", s: sessionId, job: job.id, error: error instanceof Error ? error.message : String(error) });
      throw error; // pg-boss runs the job again after retryDelay
    }
  });
}
log({ ev: "ready", concurrency: settings.concurrency });

process.once("SIGTERM", () => {
  void (async () => {
    await boss.stop({ graceful: true, wait: true, timeout: 5_000 });
    await pool.end();
    process.exit(0);
  })();
});
