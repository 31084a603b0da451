/**
 * Sessions across worker processes on one PostgreSQL (SPEC S3, S5, S6): the worker of
 * examples/workers (pg-boss for the jobs, PostgresSessionStore for the journals, one pg.Pool)
 * runs as 3 child processes; 100 sessions of several turns with tools are queued; the workers
 * are killed with SIGKILL and restarted, or stopped with SIGSTOP for longer than their lease and
 * job expiry (a stalled process) and continued, at random moments from a seeded random, until
 * every job is completed. pg-boss alone decides which worker runs which job.
 *
 * Then every journal is whole (a closed run, every prompt once, every tool call answered once),
 * no `replay: "never"` effect happened twice, and the audit logs prove that no session was
 * written by two workers at once: each run of journal entries was written by the holder of the
 * newest lease, tokens never go back, and a fenced writer wrote nothing after its fence.
 *
 * A failure prints its seed; `RXAGENT_WORKERS_SEED=<seed>` replays the same chaos schedule.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { buildSync } from "esbuild";
import pg from "pg";
import type PgBoss from "pg-boss";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listCharges, createChargesTable } from "../../examples/workers/charges.js";
import { checkSession } from "../../examples/workers/check-session.js";
import { createRunQueue, enqueueRun, jobStates, openBoss, type AgentRunJob } from "../../examples/workers/queue.js";
import { settingsEnv, type WorkerSettings } from "../../examples/workers/settings.js";
import type { WorkerLogLine } from "../../examples/workers/worker-log.js";
import { WorkerProcess } from "../../examples/workers/worker-process.js";
import type { ToolResultMessage } from "../../src/index.js";
import { INTERRUPTED_TOOL_TEXT } from "../../src/session/resume-plan.js";
import { replayJournal } from "../../src/session/session-image.js";
import { PostgresSessionStore } from "../../src/session/stores/postgres-store.js";
import { postgresForTests, type TestPostgres } from "../helpers/postgres.js";
import { digestEntries } from "../../examples/workers/audited-store.js";
import type { JournalEntry } from "../../src/session/index.js";
import { checkWriters } from "./fixtures/workers-audit.js";
import { checkTranscript } from "./transcript-invariants.js";

const SESSIONS = 100;
const PROMPTS = 3;
const WORKERS = 3;
/** Chaos stops after this long, so the queue drains whatever the seed. */
const CHAOS_MS = 75_000;
/** Everything must be completed by then. */
const DEADLINE_MS = 210_000;

const SEED = Number(process.env.RXAGENT_WORKERS_SEED) || Math.floor(Math.random() * 2 ** 31);

/** mulberry32: a small seeded random in [0, 1). */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const bundle = join(process.cwd(), "node_modules/.cache/rxagent-tests/workers-worker.mjs");

let db: TestPostgres;
let pool: pg.Pool;
let boss: PgBoss | undefined;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  // Bundled once: a restarted worker is up in a fraction of the time tsx takes to compile it.
  mkdirSync(join(process.cwd(), "node_modules/.cache/rxagent-tests"), { recursive: true });
  buildSync({ entryPoints: [join(process.cwd(), "examples/workers/worker.ts")], bundle: true, platform: "node", format: "esm", outfile: bundle, packages: "external", logLevel: "error" });
  db = await postgresForTests();
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
  pool.on("error", () => undefined);
}, 120_000);

afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.stop(5_000)));
  await boss?.stop({ graceful: false });
  await pool?.end();
  await db?.stop();
}, 60_000);

describe("sessions on pg-boss workers that die and stall (SPEC S3, S5)", () => {
  it("S3, S5: 100 sessions finish whole, each written by one lease holder at a time", { timeout: 300_000 }, async () => {
    console.log(`workers.test.ts seed: ${SEED} (RXAGENT_WORKERS_SEED=${SEED} replays its chaos)`);
    const random = seeded(SEED);
    const settings: WorkerSettings = {
      leaseTtlMs: 2_500,
      expireInSeconds: 5,
      retryLimit: 1_000, // never give a session up: expiry after a kill counts as a retry
      retryDelay: 1,
      pollingIntervalSeconds: 0.5,
      maintenanceIntervalSeconds: 1,
      concurrency: 2,
      storeSchema: db.freshSchema(),
      bossSchema: db.freshSchema(),
    };
    // This process runs pg-boss's maintenance too: jobs expire even while every worker is down.
    boss = openBoss(pool, settings);
    boss.on("error", (error) => console.error(`pg-boss (test): ${error.message}`));
    await boss.start();
    await createRunQueue(boss, settings);
    await createChargesTable(pool, settings.storeSchema);

    const env = { DATABASE_URL: db.url, RXAGENT_AUDIT: "1", ...settingsEnv(settings) };
    for (let i = 1; i <= WORKERS; i++) workers.push(new WorkerProcess(`worker-${i}`, { command: process.execPath, args: [bundle] }, env));
    workers.forEach((worker) => worker.start());
    await Promise.all(workers.map((worker) => worker.ready()));

    const jobs: AgentRunJob[] = Array.from({ length: SESSIONS }, (_, i) => ({
      sessionId: `s-${String(i + 1).padStart(3, "0")}`,
      prompts: Array.from({ length: PROMPTS }, (_, k) => `Settle order ${k + 1} of customer ${i + 1}.`),
    }));
    const started = Date.now();
    for (const job of jobs) await enqueueRun(boss, job);

    // The chaos: every 0.4–2 s, one worker is killed (and restarted 0–1 s later) or stalled for
    // 6–10 s: past its lease and its job's expiry, so another worker takes its sessions over.
    let kills = 0;
    let stalls = 0;
    const stalled = new Set<WorkerProcess>();
    const restarting = new Set<WorkerProcess>();
    const done = async (): Promise<boolean> => ((await jobStates(pool, settings)).completed ?? 0) === SESSIONS;
    while (!(await done())) {
      if (Date.now() - started > DEADLINE_MS) break;
      // Every draw is made whatever the branch, so a seed gives the same schedule.
      const [pause, pick, roll, span] = [random(), random(), random(), random()];
      const chaos = Date.now() - started < CHAOS_MS;
      await sleep(chaos ? 400 + pause * 1_600 : 250);
      const worker = workers[Math.floor(pick * WORKERS)]!;
      if (!chaos || !worker.running || stalled.has(worker) || restarting.has(worker)) continue;
      if (roll < 0.7) {
        kills++;
        worker.signal("SIGKILL");
        restarting.add(worker);
        void worker.whenExited().then(async () => {
          await sleep(span * 1_000);
          worker.start();
          restarting.delete(worker);
        });
      } else if (stalled.size === 0) {
        stalls++;
        worker.signal("SIGSTOP");
        stalled.add(worker);
        setTimeout(() => {
          worker.signal("SIGCONT");
          stalled.delete(worker);
        }, 6_000 + span * 4_000);
      }
    }
    const duration = Date.now() - started;
    while (stalled.size > 0 || restarting.size > 0) await sleep(100);
    const states = await jobStates(pool, settings);
    await Promise.all(workers.map((worker) => worker.stop()));
    expect(states, `job states after ${duration} ms (seed ${SEED})`).toEqual({ completed: SESSIONS });

    // Every journal is whole, and was written by one lease holder at a time.
    const lines: WorkerLogLine[] = workers.flatMap((worker) => worker.log);
    const store = new PostgresSessionStore({ pool, schema: settings.storeSchema });
    const problems: string[] = [];
    let handedOver = 0;
    const answers = new Map<string, ToolResultMessage>();
    for (const job of jobs) {
      problems.push(...(await checkSession(store, job)));
      const loaded = await store.load(job.sessionId);
      if (!loaded) continue;
      const image = replayJournal(loaded.entries);
      problems.push(...checkTranscript(image.messages).map((p) => `${job.sessionId}: ${p}`));
      for (const m of image.messages) if ((m as ToolResultMessage).role === "toolResult" && (m as ToolResultMessage).toolName === "charge") answers.set(`${job.sessionId}/${(m as ToolResultMessage).toolCallId}`, m as ToolResultMessage);
      const writers = checkWriters(job.sessionId, loaded.entries, lines);
      problems.push(...writers.problems);
      if (writers.holders > 1) handedOver++;
    }

    // `charge` (replay "never") took effect at most once per call, and exactly once when it said so.
    const charges = await listCharges(pool, settings.storeSchema);
    const effects = new Map<string, number>();
    for (const c of charges) effects.set(`${c.sessionId}/${c.toolCallId}`, (effects.get(`${c.sessionId}/${c.toolCallId}`) ?? 0) + 1);
    let interrupted = 0;
    for (const [call, result] of answers) {
      const n = effects.get(call) ?? 0;
      const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
      if (text === INTERRUPTED_TOOL_TEXT) interrupted++;
      if (n > 1 || (!result.isError && n !== 1)) problems.push(`${call}: charged ${n} times, its result says ${JSON.stringify(text)}`);
    }
    for (const call of effects.keys()) if (!answers.has(call)) problems.push(`${call}: charged, and no result in the transcript`);

    const count = (ev: WorkerLogLine["ev"], error?: string): number => lines.filter((l) => l.ev === ev && (!error || ("error" in l && l.error === error))).length;
    const figures = {
      seed: SEED,
      durationMs: duration,
      sessions: SESSIONS,
      kills,
      stalls,
      workerStarts: workers.reduce((sum, worker) => sum + worker.starts, 0),
      jobRuns: count("job-start"),
      jobRunsFailed: count("job-failed"),
      sessionsHandedOver: handedOver,
      appends: count("appended"),
      fencedAppends: count("append-refused", "SessionFencedError"),
      conflicts: count("append-refused", "SessionConflictError"),
      leaseHeldRefusals: count("acquire-refused", "SessionLeaseHeldError"),
      leaseWaits: count("lease-wait"),
      interruptedCharges: interrupted,
    };
    console.log(`workers.test.ts figures: ${JSON.stringify(figures)}`);
    // Why job runs ended without finishing (a fence, a lease still held at the job's deadline), by reason.
    const reasons = new Map<string, number>();
    const reasonOf = (error: string): string => error.replace(/^Session \S+: /, "").replace(/"[^"]*"/g, '"…"').replace(/\d+/g, "N");
    for (const l of lines) if (l.ev === "job-failed") reasons.set(reasonOf(l.error), (reasons.get(reasonOf(l.error)) ?? 0) + 1);
    if (reasons.size > 0) console.log(`workers.test.ts failed job runs: ${JSON.stringify(Object.fromEntries(reasons))}`);
    // What the fenced appends were writing: where in a run a stalled worker woke up.
    const fencedTypes = lines.flatMap((l) => {
      if (l.ev !== "append-refused" || l.error !== "SessionFencedError") return [];
      const intent = lines.find((i) => i.ev === "append" && i.pid === l.pid && i.s === l.s && i.token === l.token && i.from === l.from);
      return [intent?.ev === "append" ? intent.types.join("+") : "?"];
    });
    if (fencedTypes.length > 0) console.log(`workers.test.ts fenced appends were writing: ${fencedTypes.join(", ")}`);
    for (const worker of workers) if (worker.stderr) console.log(`${worker.name} stderr: ${worker.stderr}`);
    expect(problems, `seed ${SEED}`).toEqual([]);
    // The run tested something: workers died mid-run and sessions changed hands.
    expect(kills, `seed ${SEED}`).toBeGreaterThan(0);
    expect(handedOver, `seed ${SEED}`).toBeGreaterThan(0);
  });
});

describe("the writer check finds what it is there to find", () => {
  const s = "s-x";
  const journal = Array.from({ length: 6 }, (_, i) => ({ v: 1, seq: i + 1, type: "run_started", at: i }) as unknown as JournalEntry);
  const grant = (w: string, token: number, t: number): WorkerLogLine => ({ w, pid: w.length, t, ev: "acquired", s, owner: w, token, expiresAt: t + 2_500 });
  const append = (w: string, token: number, from: number, to: number, t: number, outcome: "appended" | "fenced" = "appended"): WorkerLogLine[] => [
    { w, pid: w.length, t, ev: "append", s, token, from, to, digest: digestEntries(journal.slice(from - 1, to)), types: journal.slice(from - 1, to).map((e) => e.type) },
    outcome === "appended" ? { w, pid: w.length, t: t + 1, ev: "appended", s, token, from, to } : { w, pid: w.length, t: t + 1, ev: "append-refused", s, token, from, to, error: "SessionFencedError", currentToken: token + 1 },
  ];
  const problems = (entries: JournalEntry[], lines: WorkerLogLine[]): string[] => checkWriters(s, entries, lines).problems;

  it("a handover with a fenced writer passes", () => {
    const report = checkWriters(s, journal, [grant("A", 1, 0), ...append("A", 1, 1, 3, 10), grant("BB", 2, 20), ...append("BB", 2, 4, 6, 30), ...append("A", 1, 4, 5, 40, "fenced")]);
    expect(report.problems).toEqual([]);
    expect(report.holders).toBe(2);
  });

  it("an older token after a newer one, or an append begun after a newer grant, is found", () => {
    expect(problems(journal, [grant("A", 1, 0), grant("BB", 2, 5), ...append("BB", 2, 1, 3, 10), ...append("A", 1, 4, 6, 20)])).toContainEqual(expect.stringContaining("token 1 wrote entry 4 after token 2"));
    expect(problems(journal.slice(0, 3), [grant("A", 1, 0), grant("BB", 2, 5), ...append("A", 1, 1, 3, 10)])).toContainEqual(expect.stringContaining("after token 2 was granted"));
  });

  it("a fenced token that wrote on, a token granted twice, and entries nobody logged are found", () => {
    const fencedThenWrote = [grant("A", 1, 0), ...append("A", 1, 1, 3, 10, "fenced"), ...append("A", 1, 1, 3, 20)];
    expect(problems(journal.slice(0, 3), fencedThenWrote)).toContainEqual(expect.stringContaining("was fenced at 1 and still wrote"));
    expect(problems(journal.slice(0, 3), [grant("A", 1, 0), grant("BB", 1, 1), ...append("A", 1, 1, 3, 10)])).toContainEqual(expect.stringContaining("token 1 was granted 2 times"));
    expect(problems(journal, [grant("A", 1, 0), ...append("A", 1, 1, 3, 10)])).toContainEqual(expect.stringContaining("entries from 4 match no logged append"));
  });

  it("an acknowledged append missing from the journal is found", () => {
    expect(problems(journal.slice(0, 3), [grant("A", 1, 0), ...append("A", 1, 1, 3, 10), ...append("A", 1, 4, 6, 20)])).toContainEqual(expect.stringContaining("was acknowledged and is not in the journal"));
  });
});
