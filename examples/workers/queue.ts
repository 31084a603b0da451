/**
 * The job queue: pg-boss on the app's own `pg.Pool`, so jobs and session journals live in one
 * database and one pool serves both. A run of an agent session is one job.
 *
 * @module
 */
import type pg from "pg";
import PgBoss from "pg-boss";
import { QUEUE, type WorkerSettings } from "./settings.js";

/** What a job carries: the session to run and every prompt it should have answered, in order. */
export interface AgentRunJob {
  sessionId: string;
  prompts: string[];
}

/**
 * A pg-boss instance that sends its SQL through `pool`. It runs pg-boss's maintenance (which
 * expires jobs whose worker stopped answering) every `maintenanceIntervalSeconds`; several
 * instances share that work, one per interval. No cron: this deployment schedules nothing.
 *
 * @example
 * ```ts
 * const boss = openBoss(pool, workerSettings());
 * await boss.start();
 * ```
 */
export function openBoss(pool: pg.Pool, settings: WorkerSettings): PgBoss {
  return new PgBoss({
    db: { executeSql: (text, values) => pool.query(text, values) },
    schema: settings.bossSchema,
    schedule: false,
    supervise: true,
    maintenanceIntervalSeconds: settings.maintenanceIntervalSeconds,
  });
}

/**
 * Creates the queue (again is fine): a job still active after `expireInSeconds` goes back to the
 * queue after `retryDelay`, up to `retryLimit` times.
 */
export async function createRunQueue(boss: PgBoss, settings: WorkerSettings): Promise<void> {
  await boss.createQueue(QUEUE, {
    name: QUEUE,
    policy: "standard",
    expireInSeconds: settings.expireInSeconds,
    retryLimit: settings.retryLimit,
    retryDelay: settings.retryDelay,
    retryBackoff: false,
  });
}

/** Queues a run of a session. @return The job id. */
export async function enqueueRun(boss: PgBoss, job: AgentRunJob): Promise<string> {
  const id = await boss.send(QUEUE, job);
  if (!id) throw new Error(`pg-boss did not queue the run of ${job.sessionId}.`);
  return id;
}

/** How many jobs of the queue are in each state (`created`, `retry`, `active`, `completed`, `failed`, ...). */
export async function jobStates(pool: pg.Pool, settings: WorkerSettings): Promise<Record<string, number>> {
  // Straight from pg-boss's table: getQueueSize() counts only the jobs not started yet.
  const { rows } = await pool.query<{ state: string; count: number }>(`SELECT state::text AS state, count(*)::int AS count FROM ${quote(settings.bossSchema)}.job WHERE name = $1 GROUP BY state`, [QUEUE]);
  return Object.fromEntries(rows.map((row) => [row.state, row.count]));
}

function quote(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}
