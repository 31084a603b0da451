/**
 * The SIGKILL sweep (SPEC S4, S5, S6): the crash scenario runs in a child process on the file
 * store, killed with SIGKILL at every event index in turn (and right after each side effect of
 * the `replay: "never"` tool); a fresh process then resumes it. Each time: nothing committed is
 * lost or doubled, every tool call is answered exactly once, `charge` takes effect at most once,
 * queued messages are delivered exactly once, and the finished transcript keeps the invariants.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSync } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { replayJournal } from "../../src/session/session-image.js";
import pg from "pg";
import type { SessionStore } from "../../src/session/session-store.js";
import { FileSessionStore } from "../../src/session/stores/file-store.js";
import { PostgresSessionStore } from "../../src/session/stores/postgres-store.js";
import { postgresForTests, type TestPostgres } from "../helpers/postgres.js";
import { userTexts } from "./scenario.js";
import { settle } from "./store-contract.js";
import { checkTranscript } from "./transcript-invariants.js";

const root = mkdtempSync(join(tmpdir(), "rxagent-sigkill-"));
const child = join(process.cwd(), "node_modules/.cache/rxagent-tests/crash-child.mjs");
afterAll(() => rmSync(root, { recursive: true, force: true }));

beforeAll(() => {
  // Bundled once: a child then starts in a fraction of the time tsx takes to compile it.
  mkdirSync(join(process.cwd(), "node_modules/.cache/rxagent-tests"), { recursive: true });
  buildSync({ entryPoints: [join(process.cwd(), "test/session/fixtures/crash-child.ts")], bundle: true, platform: "node", format: "esm", outfile: child, packages: "external", logLevel: "error" });
});

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function runChild(args: string[]): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const process_ = spawn(process.execPath, [child, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    process_.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    process_.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    process_.on("error", reject);
    process_.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** A kill point: an event index, right after a side effect, or the event after a `steer()` at an event index. */
type KillPoint = { at: number } | { afterEffect: string } | { steerAt: number };

interface CaseResult {
  point: string;
  violations: string[];
}

/** Where a case keeps its journal: the file store (default), or a PostgreSQL schema of its own. */
interface Backend {
  args(index: number): string[];
  store(index: number): SessionStore;
}

const fileBackend: Backend = {
  args: () => [],
  store: (index) => new FileSessionStore({ directory: join(root, `case-${index}`) }),
};

async function crashAndResume(point: KillPoint, index: number, resumeKillAt?: number, backend: Backend = fileBackend): Promise<CaseResult> {
  const dir = join(root, `case-${index}`);
  const effects = join(dir, "effects");
  mkdirSync(dir, { recursive: true });
  const name = "at" in point ? `event ${point.at}` : "steerAt" in point ? `the event after a steer() at event ${point.steerAt}` : `after the effect of ${point.afterEffect}`;
  const where = resumeKillAt === undefined ? name : `${name}, then the resume at event ${resumeKillAt}`;
  const v: string[] = [];
  const kill = "at" in point ? ["--kill-at", String(point.at)] : "steerAt" in point ? ["--steer-at", String(point.steerAt)] : ["--kill-after-effect", point.afterEffect];
  const extra = backend.args(index);
  const fresh = await runChild(["--dir", dir, "--effects", effects, "--mode", "fresh", ...kill, ...extra]);
  if (fresh.signal !== "SIGKILL") v.push(`${where}: the first process was not killed (code ${fresh.code}, ${fresh.stdout.trim()} ${fresh.stderr.slice(0, 200)})`);
  const store = backend.store(index);
  const atCrash = await settle(store.load("crash"));
  const before = atCrash ? replayJournal(atCrash.entries) : undefined;
  if (resumeKillAt !== undefined) {
    const second = await runChild(["--dir", dir, "--effects", effects, "--mode", "resume", "--kill-at", String(resumeKillAt), ...extra]);
    if (second.signal !== "SIGKILL" && !second.stdout.startsWith("done")) v.push(`${where}: the second process failed: ${second.stderr.slice(0, 300)}`);
  }
  const resumed = await runChild(["--dir", dir, "--effects", effects, "--mode", "resume", ...extra]);
  if (!resumed.stdout.startsWith("done")) v.push(`${where}: the resume failed (code ${resumed.code}, signal ${resumed.signal}): ${resumed.stderr.slice(0, 400)}`);
  const final = await settle(store.load("crash"));
  if (!final) return { point: where, violations: [...v, `${where}: no journal after the resume`] };
  const image = replayJournal(final.entries);
  v.push(...checkTranscript(image.messages).map((s) => `${where}: ${s}`));
  if (image.runOpen) v.push(`${where}: the run is still open after the resume (${resumed.stdout.trim()})`);
  if (before && JSON.stringify(image.messages.slice(0, before.messages.length)) !== JSON.stringify(before.messages)) v.push(`${where}: committed messages changed`);
  const effectLines = existsSync(effects) ? readFileSync(effects, "utf8").split("\n").filter(Boolean) : [];
  for (const id of ["charge-1", "charge-2"]) if (effectLines.filter((e) => e === id).length > 1) v.push(`${where}: ${id} took effect ${effectLines.filter((e) => e === id).length} times`);
  const queued = userTexts(final.entries.flatMap((e) => (e.type === "queued" ? [e.message] : [])));
  const texts = userTexts(image.messages);
  for (const text of ["steer-1", "follow-1"]) {
    const expected = queued.includes(text) ? 1 : 0;
    const got = texts.filter((t) => t === text).length;
    if (got !== expected) v.push(`${where}: ${text} delivered ${got} times (queued: ${expected})`);
  }
  // Events after the steer were shown: its message was on record, and is delivered once (or,
  // when the run it was steered into is closed without a model turn, still waits in its queue).
  if ("steerAt" in point) {
    const kept = texts.filter((t) => t === "steer-x").length + userTexts(image.steering.map((q) => q.message)).filter((t) => t === "steer-x").length;
    if (kept !== 1) v.push(`${where}: steer-x delivered or still queued ${kept} times after later events were shown`);
  }
  rmSync(dir, { recursive: true, force: true });
  return { point: where, violations: v };
}

/** Runs `cases` two at a time (the machine's cores). */
async function inPool<T>(cases: (() => Promise<T>)[], width = 2): Promise<T[]> {
  const results: T[] = new Array(cases.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < cases.length) {
      const index = next++;
      results[index] = await cases[index]!();
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return results;
}

describe("SIGKILL at every event index, then a fresh process resumes (SPEC S5, S6)", () => {
  it("S5: the scenario survives a kill at each of its events and after each side effect", { timeout: 600_000 }, async () => {
    const dir = join(root, "uncut");
    mkdirSync(dir);
    const uncut = await runChild(["--dir", dir, "--effects", join(dir, "effects")]);
    expect(uncut.stdout).toMatch(/^done \d+/);
    const events = Number(uncut.stdout.split(" ")[1]);
    expect(events).toBeGreaterThan(50);
    const points: KillPoint[] = [...Array.from({ length: events }, (_, at) => ({ at })), { afterEffect: "charge-1" }, { afterEffect: "charge-2" }];
    const results = await inPool(points.map((point, index) => () => crashAndResume(point, index)));
    expect(results.length).toBe(events + 2);
    expect(results.flatMap((r) => r.violations)).toEqual([]);
  });

  it("S6: killed at the first event shown after a steer() (in a tool batch and elsewhere), the steering message is on record and delivered once", { timeout: 300_000 }, async () => {
    // 0 agent_start (turn_start next), 3 the prompt's message_end, 5 a message_update, 18-23 the
    // first tool batch (starts, then ends in completion order), 25 a tool result's message_end.
    const points: KillPoint[] = [0, 3, 5, 18, 19, 20, 21, 22, 23, 25].map((steerAt) => ({ steerAt }));
    const results = await inPool(points.map((point, index) => () => crashAndResume(point, 3000 + index)));
    expect(results.flatMap((r) => r.violations)).toEqual([]);
    expect(results).toHaveLength(10);
  });

  it("S5: a resume killed in turn is resumed again (sampled double crashes)", { timeout: 300_000 }, async () => {
    const doubles: [KillPoint, number][] = [
      [{ afterEffect: "charge-1" }, 3],
      [{ at: 20 }, 5],
      [{ at: 35 }, 2],
      [{ afterEffect: "charge-2" }, 1],
      [{ at: 60 }, 4],
    ];
    const results = await inPool(doubles.map(([point, resumeAt], index) => () => crashAndResume(point, 1000 + index, resumeAt)));
    expect(results.flatMap((r) => r.violations)).toEqual([]);
  });
});

describe("SIGKILL sampled on PostgreSQL, then a fresh process resumes (SPEC S5, S6)", () => {
  let db: TestPostgres;
  let pool: pg.Pool;
  beforeAll(async () => {
    db = await postgresForTests();
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
    pool.on("error", () => undefined);
  }, 120_000);
  afterAll(async () => {
    await pool?.end();
    await db?.stop();
  });

  it("S5: killed at sampled events and after each side effect, the PostgreSQL session is finished by the next process", { timeout: 600_000 }, async () => {
    const schemas = new Map<number, string>();
    const backend: Backend = {
      args: (index) => {
        if (!schemas.has(index)) schemas.set(index, db.freshSchema());
        return ["--pg-url", db.url, "--pg-schema", schemas.get(index)!];
      },
      store: (index) => new PostgresSessionStore({ pool, schema: schemas.get(index)! }),
    };
    // Every 7th event, from a seeded offset, and both side effects: about a seventh of the file sweep.
    const offset = 3;
    const points: KillPoint[] = [...Array.from({ length: 10 }, (_, i) => ({ at: offset + 7 * i })), { afterEffect: "charge-1" }, { afterEffect: "charge-2" }];
    const results = await inPool(points.map((point, index) => () => crashAndResume(point, 2000 + index, undefined, backend)));
    expect(results.flatMap((r) => r.violations)).toEqual([]);
    expect(results).toHaveLength(12);
  });
});
