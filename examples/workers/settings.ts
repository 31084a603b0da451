/**
 * The knobs of the worker deployment, read from the environment so the example, its test and a
 * real deployment share one definition. The timings depend on each other:
 *
 * - `leaseTtlMs` is how long a session stays locked to a worker after its last journal write.
 *   Every write renews it, so it only has to outlast the longest gap between writes (a model
 *   call or a tool call).
 * - `expireInSeconds` is how long pg-boss lets a job run before it hands the job to another
 *   worker. It must exceed a whole run (else a live worker's job is handed on, and the next
 *   worker waits for its lease), and it is the time a dead worker's sessions wait before
 *   someone picks them up.
 * - `pollingIntervalSeconds` and `maintenanceIntervalSeconds` add up to that wait: pg-boss
 *   finds expired jobs in its maintenance pass, and idle workers notice new jobs at their poll.
 *
 * @module
 */

/** The pg-boss queue that carries agent runs. */
export const QUEUE = "agent-run";

/** The deployment's timings and names. */
export interface WorkerSettings {
  /** Session lease, renewed by every append. */
  leaseTtlMs: number;
  /** A job still active after this long is expired by pg-boss and retried. */
  expireInSeconds: number;
  /** How often a retry may happen: a job is retried up to this many times. */
  retryLimit: number;
  /** Seconds before an expired or failed job may run again. */
  retryDelay: number;
  /** How often an idle worker asks for a job (pg-boss's minimum is 0.5). */
  pollingIntervalSeconds: number;
  /** How often pg-boss looks for expired jobs (one instance does it per interval). */
  maintenanceIntervalSeconds: number;
  /** Jobs one worker process runs side by side. */
  concurrency: number;
  /** Schema of the session journals. */
  storeSchema: string;
  /** Schema of pg-boss's tables. */
  bossSchema: string;
}

const numberFrom = (name: string, fallback: number): number => {
  const text = process.env[name];
  const value = Number(text);
  return text && Number.isFinite(value) && value >= 0 ? value : fallback;
};

/**
 * The settings from the environment (`LEASE_TTL_MS`, `JOB_EXPIRE_SECONDS`, `RETRY_LIMIT`,
 * `RETRY_DELAY_SECONDS`, `POLL_SECONDS`, `MAINTENANCE_SECONDS`, `WORKER_CONCURRENCY`,
 * `STORE_SCHEMA`, `BOSS_SCHEMA`), with defaults for the example.
 *
 * @example
 * ```ts
 * const { leaseTtlMs, expireInSeconds } = workerSettings();
 * ```
 */
export function workerSettings(): WorkerSettings {
  return {
    leaseTtlMs: numberFrom("LEASE_TTL_MS", 3_000),
    expireInSeconds: numberFrom("JOB_EXPIRE_SECONDS", 10),
    retryLimit: numberFrom("RETRY_LIMIT", 50),
    retryDelay: numberFrom("RETRY_DELAY_SECONDS", 1),
    pollingIntervalSeconds: numberFrom("POLL_SECONDS", 0.5),
    maintenanceIntervalSeconds: numberFrom("MAINTENANCE_SECONDS", 1),
    concurrency: numberFrom("WORKER_CONCURRENCY", 2),
    storeSchema: process.env.STORE_SCHEMA || "rxagent",
    bossSchema: process.env.BOSS_SCHEMA || "pgboss",
  };
}

/** The settings as environment variables, for starting a worker process with them. */
export function settingsEnv(settings: WorkerSettings): Record<string, string> {
  return {
    LEASE_TTL_MS: String(settings.leaseTtlMs),
    JOB_EXPIRE_SECONDS: String(settings.expireInSeconds),
    RETRY_LIMIT: String(settings.retryLimit),
    RETRY_DELAY_SECONDS: String(settings.retryDelay),
    POLL_SECONDS: String(settings.pollingIntervalSeconds),
    MAINTENANCE_SECONDS: String(settings.maintenanceIntervalSeconds),
    WORKER_CONCURRENCY: String(settings.concurrency),
    STORE_SCHEMA: settings.storeSchema,
    BOSS_SCHEMA: settings.bossSchema,
  };
}
