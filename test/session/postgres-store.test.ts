/**
 * The PostgreSQL store against a real server: the embedded one (test/helpers/postgres.ts), or the
 * one `RXAGENT_PG_URL` names. Several `pg.Pool`s on one database stand for several machines.
 */
import { readdir, readFile } from "node:fs/promises";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { JournalEntry } from "../../src/session/journal-entry.js";
import { SessionConflictError, SessionCorruptError, SessionFencedError, SessionLeaseHeldError } from "../../src/session/session-errors.js";
import { type PostgresPool, type PostgresQueryable, PostgresSessionStore } from "../../src/session/stores/postgres-store.js";
import { dropSchema, postgresForTests, type TestPostgres } from "../helpers/postgres.js";
import { created, describeStoreContract, failure, userEntry } from "./store-contract.js";

const TTL = 60_000;

let db: TestPostgres;
/** The test's own connections, for setting up and inspecting rows by SQL. */
let admin: pg.Pool;
const pools: pg.Pool[] = [];

/**
 * A pool for the test. An idle client's connection may end with the server at shutdown; pg then
 * emits "error" on the pool, which would be an uncaught exception without a listener.
 */
function newPool(): pg.Pool {
  const pool = new pg.Pool({ connectionString: db.url, max: 4 });
  pool.on("error", () => undefined);
  return pool;
}

/** Another machine: a pool of its own. */
function machine(): pg.Pool {
  const pool = newPool();
  pools.push(pool);
  return pool;
}

beforeAll(async () => {
  db = await postgresForTests();
  admin = newPool();
}, 120_000);

afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
  await admin?.end();
  await db?.stop();
}, 60_000);

describeStoreContract("postgres", async () => {
  const schema = db.freshSchema();
  return { store: new PostgresSessionStore({ pool: admin, schema }), cleanup: () => dropSchema(admin, schema) };
});

describeStoreContract("postgres on one pg.Client", async () => {
  const schema = db.freshSchema();
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  return {
    store: new PostgresSessionStore({ pool: client, schema }),
    cleanup: async () => {
      await client.end();
      await dropSchema(admin, schema);
    },
  };
});

/** A session's rows in the entries table, read by SQL. */
async function rows(schema: string, sessionId: string): Promise<{ seq: number; entry: unknown }[]> {
  const result = await admin.query(`SELECT seq, entry FROM "${schema}".entries WHERE session_id = $1 ORDER BY seq`, [sessionId]);
  return result.rows;
}

/** A session with a created entry and `more` user entries, written through `store`. */
async function journal(store: PostgresSessionStore, id: string, more = 0): Promise<number> {
  const { token } = await store.acquire(id, { owner: "setup", ttlMs: TTL });
  await store.append(id, [created(id), ...Array.from({ length: more }, (_, i) => userEntry(i + 2, `entry ${i + 2}`))], { expectedSeq: 0, token, ttlMs: TTL });
  return token;
}

async function serverNow(): Promise<number> {
  const { rows } = await admin.query(`SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::float8 AS now`);
  return Number(rows[0].now);
}

describe("postgres store: PostgreSQL specifics (SPEC S2, S3, S4)", () => {
  it("S2: the store creates its schema and tables itself, on first use and once per store", async () => {
    const schema = db.freshSchema();
    const pool = machine();
    const query = vi.spyOn(pool, "query");
    const store = new PostgresSessionStore({ pool, schema });
    expect(query).not.toHaveBeenCalled(); // constructing touches nothing
    expect(await store.list()).toEqual([]);
    await journal(store, "s1");
    expect((await store.load("s1"))?.entries).toEqual([created("s1")]);
    await store.release("s1", 1);
    const checks = query.mock.calls.filter(([text]) => typeof text === "string" && text.includes("to_regclass"));
    expect(checks).toHaveLength(1);
    const tables = await admin.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name`, [schema]);
    expect(tables.rows.map((r) => r.table_name)).toEqual(["entries", "sessions"]);
    const key = await admin.query(
      `SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
        WHERE i.indrelid = $1::regclass AND i.indisprimary ORDER BY a.attnum`,
      [`"${schema}".entries`],
    );
    expect(key.rows.map((r) => r.attname)).toEqual(["session_id", "seq"]);
    const columns = await admin.query(`SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'sessions' ORDER BY ordinal_position`, [schema]);
    expect(columns.rows).toEqual([
      { column_name: "session_id", data_type: "text" },
      { column_name: "owner", data_type: "text" },
      { column_name: "token", data_type: "bigint" },
      { column_name: "expires_at", data_type: "timestamp with time zone" },
      { column_name: "updated_at", data_type: "timestamp with time zone" },
    ]);
    await dropSchema(admin, schema);
  });

  it("S2: stores on several machines starting together on a new schema all create it without error", async () => {
    const machines = [machine(), machine(), machine(), machine()];
    for (let round = 0; round < 5; round++) {
      const schema = db.freshSchema();
      const stores = machines.map((pool) => new PostgresSessionStore({ pool, schema }));
      const outcomes = await Promise.allSettled(stores.map((store) => store.list()));
      expect(outcomes.filter((o) => o.status === "rejected")).toEqual([]);
      // and each of them works on the tables the others may have created
      await journal(stores[0]!, "s1");
      expect((await stores[3]!.load("s1"))?.entries).toEqual([created("s1")]);
      await dropSchema(admin, schema);
    }
  });

  it("S2: seq is unique per session: of racing appends from two machines exactly one lands at each seq", async () => {
    const schema = db.freshSchema();
    const a = new PostgresSessionStore({ pool: machine(), schema });
    const b = new PostgresSessionStore({ pool: machine(), schema });
    const token = await journal(a, "s1");
    for (let seq = 2; seq <= 11; seq++) {
      const racers = [a, b, a, b].map((store, n) => store.append("s1", [userEntry(seq, `racer ${n}`)], { expectedSeq: seq - 1, token, ttlMs: TTL }));
      const outcomes = await Promise.allSettled(racers);
      expect(outcomes.filter((o) => o.status === "fulfilled").map((o) => (o as PromiseFulfilledResult<number>).value)).toEqual([seq]);
      for (const o of outcomes) if (o.status === "rejected") expect(o.reason).toBeInstanceOf(SessionConflictError);
    }
    expect((await rows(schema, "s1")).map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect((await b.load("s1"))?.entries).toHaveLength(11);
    await dropSchema(admin, schema);
  });

  it("S2: the primary key refuses a second row at a seq, and a writer that got past the lock sees a conflict, not a unique violation", async () => {
    const schema = db.freshSchema();
    const store = new PostgresSessionStore({ pool: machine(), schema });
    const token = await journal(store, "s1");
    const duplicate = await admin.query(`INSERT INTO "${schema}".entries (session_id, seq, entry) VALUES ('s1', 1, '{}')`).catch((error: unknown) => error);
    expect(duplicate).toMatchObject({ code: "23505" });

    // A writer that does not take the session's row lock holds seq 2 in an open transaction...
    const intruder = await admin.connect();
    try {
      await intruder.query("BEGIN");
      await intruder.query(`INSERT INTO "${schema}".entries (session_id, seq, entry) VALUES ('s1', 2, $1)`, [JSON.stringify(userEntry(2, "intruder"))]);
      // ...so the store's append, which saw the journal end at 1, waits on that row's key...
      const appending = store.append("s1", [userEntry(2, "store")], { expectedSeq: 1, token, ttlMs: TTL }).catch((error: unknown) => error);
      await vi.waitFor(
        async () => {
          const waiting = await admin.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND strpos(query, $1) > 0`, [`INSERT INTO "${schema}"`]);
          expect(waiting.rows[0].n).toBe(1);
        },
        { timeout: 10_000, interval: 20 },
      );
      // ...and gets the key's unique violation when the other commits.
      await intruder.query("COMMIT");
      const error = await appending;
      expect(error).toBeInstanceOf(SessionConflictError);
      expect(error).toMatchObject({ sessionId: "s1", expectedSeq: 1, actualSeq: 2 });
    } finally {
      intruder.release();
    }
    expect((await rows(schema, "s1")).map((r) => r.seq)).toEqual([1, 2]);
    expect((await store.load("s1"))?.entries[1]).toEqual(userEntry(2, "intruder"));
    await dropSchema(admin, schema);
  });

  it("S3: a takeover on one machine fences the writer on another", async () => {
    const schema = db.freshSchema();
    const a = new PostgresSessionStore({ pool: machine(), schema });
    const b = new PostgresSessionStore({ pool: machine(), schema });
    const first = await a.acquire("s1", { owner: "a", ttlMs: TTL });
    await a.append("s1", [created("s1")], { expectedSeq: 0, token: first.token, ttlMs: TTL });
    const held = await failure(() => b.acquire("s1", { owner: "b", ttlMs: TTL }));
    expect(held).toBeInstanceOf(SessionLeaseHeldError);
    expect(held).toMatchObject({ sessionId: "s1", owner: "a" });
    // the append renewed a's lease from its own time on
    expect((held as SessionLeaseHeldError).expiresAt).toBeGreaterThanOrEqual(first.expiresAt);
    expect((held as SessionLeaseHeldError).expiresAt).toBeLessThanOrEqual((await serverNow()) + TTL);
    const second = await b.acquire("s1", { owner: "b", ttlMs: TTL, takeover: true });
    expect(second.token).toBe(first.token + 1);
    const fenced = await failure(() => a.append("s1", [userEntry(2, "late")], { expectedSeq: 1, token: first.token, ttlMs: TTL }));
    expect(fenced).toBeInstanceOf(SessionFencedError);
    expect(fenced).toMatchObject({ sessionId: "s1", token: first.token, currentToken: second.token });
    expect(await b.append("s1", [userEntry(2, "b writes")], { expectedSeq: 1, token: second.token, ttlMs: TTL })).toBe(2);
    await a.release("s1", first.token); // stale: b keeps its lease
    expect(await failure(() => a.acquire("s1", { owner: "a", ttlMs: TTL }))).toMatchObject({ owner: "b" });
    expect((await a.load("s1"))?.entries).toEqual([created("s1"), userEntry(2, "b writes")]);
    await dropSchema(admin, schema);
  });

  it("S3: an append waits for a takeover in flight on another machine, then is fenced by it", async () => {
    const schema = db.freshSchema();
    const store = new PostgresSessionStore({ pool: machine(), schema });
    const token = await journal(store, "s1");
    const other = await admin.connect();
    try {
      // Another machine's takeover, caught between locking the session's row and committing.
      await other.query("BEGIN");
      await other.query(`SELECT token FROM "${schema}".sessions WHERE session_id = 's1' FOR UPDATE`);
      const appending = store.append("s1", [userEntry(2, "during the takeover")], { expectedSeq: 1, token, ttlMs: TTL }).catch((error: unknown) => error);
      await vi.waitFor(
        async () => {
          const waiting = await admin.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND strpos(query, $1) > 0 AND strpos(query, 'FOR UPDATE') > 0`, [`"${schema}"`]);
          expect(waiting.rows[0].n).toBe(1);
        },
        { timeout: 10_000, interval: 20 },
      );
      await other.query(`UPDATE "${schema}".sessions SET owner = 'b', token = token + 1, expires_at = now() + interval '1 minute' WHERE session_id = 's1'`);
      await other.query("COMMIT");
      expect(await appending).toMatchObject({ name: "SessionFencedError", token, currentToken: token + 1 });
    } finally {
      other.release();
    }
    expect(await rows(schema, "s1")).toEqual([{ seq: 1, entry: created("s1") }]);
    await dropSchema(admin, schema);
  });

  it("S3: appending to a session never leased (token 0) leaves it free for the first owner to lease", async () => {
    const schema = db.freshSchema();
    const store = new PostgresSessionStore({ pool: machine(), schema });
    expect(await store.append("s1", [created("s1")], { expectedSeq: 0, token: 0, ttlMs: TTL })).toBe(1);
    const lease = await store.acquire("s1", { owner: "a", ttlMs: TTL });
    expect(lease.token).toBe(1);
    expect(await failure(() => store.append("s1", [userEntry(2, "old")], { expectedSeq: 1, token: 0, ttlMs: TTL }))).toBeInstanceOf(SessionFencedError);
    await dropSchema(admin, schema);
  });

  it("S3: owners racing for a session from two machines get distinct tokens; without takeover exactly one wins", async () => {
    const schema = db.freshSchema();
    const a = new PostgresSessionStore({ pool: machine(), schema });
    const b = new PostgresSessionStore({ pool: machine(), schema });
    for (let round = 0; round < 8; round++) {
      const id = `race-${round}`;
      const outcomes = await Promise.allSettled([a.acquire(id, { owner: "a", ttlMs: TTL }), b.acquire(id, { owner: "b", ttlMs: TTL })]);
      const won = outcomes.filter((o): o is PromiseFulfilledResult<Awaited<ReturnType<typeof a.acquire>>> => o.status === "fulfilled");
      expect(won).toHaveLength(1);
      expect(won[0]!.value.token).toBe(1);
      const lost = outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult;
      expect(lost.reason).toBeInstanceOf(SessionLeaseHeldError);
      expect(lost.reason).toMatchObject({ owner: won[0]!.value.owner });

      const takeovers = await Promise.all([a.acquire(id, { owner: "a", ttlMs: TTL, takeover: true }), b.acquire(id, { owner: "b", ttlMs: TTL, takeover: true })]);
      expect(takeovers.map((l) => l.token).sort()).toEqual([2, 3]);
      const newest = takeovers.find((l) => l.token === 3)!;
      const older = takeovers.find((l) => l.token === 2)!;
      expect(await failure(() => a.append(id, [created(id)], { expectedSeq: 0, token: older.token, ttlMs: TTL }))).toBeInstanceOf(SessionFencedError);
      expect(await b.append(id, [created(id)], { expectedSeq: 0, token: newest.token, ttlMs: TTL })).toBe(1);
    }
    await dropSchema(admin, schema);
  });

  it("S3: lease time is the database server's clock, not the client's", async () => {
    const schema = db.freshSchema();
    const a = new PostgresSessionStore({ pool: machine(), schema });
    const b = new PostgresSessionStore({ pool: machine(), schema });
    const realNow = Date.now;
    const now = vi.spyOn(Date, "now");
    try {
      now.mockImplementation(() => realNow() + 2 * 3_600_000); // this machine runs two hours fast
      const before = await serverNow();
      const lease = await a.acquire("s1", { owner: "a", ttlMs: TTL });
      const after = await serverNow();
      expect(lease.expiresAt).toBeGreaterThanOrEqual(before + TTL);
      expect(lease.expiresAt).toBeLessThanOrEqual(after + TTL);
      const stored = await admin.query(`SELECT floor(extract(epoch FROM expires_at) * 1000)::float8 AS ms FROM "${schema}".sessions WHERE session_id = 's1'`);
      expect(stored.rows[0].ms).toBe(lease.expiresAt);
      await a.append("s1", [created("s1")], { expectedSeq: 0, token: lease.token, ttlMs: TTL });
      const [summary] = await a.list();
      expect(summary!.updatedAt).toBeGreaterThanOrEqual(before);
      expect(summary!.updatedAt).toBeLessThanOrEqual(await serverNow());
      now.mockImplementation(() => realNow() + 3 * 3_600_000); // by its clock, a's lease ended hours ago
      expect(await failure(() => b.acquire("s1", { owner: "b", ttlMs: TTL }))).toBeInstanceOf(SessionLeaseHeldError);
    } finally {
      now.mockRestore();
    }
    await dropSchema(admin, schema);
  });

  it("S4: a row of an unknown format version is SessionCorruptError naming the session and position, and the row is left as it is", async () => {
    const schema = db.freshSchema();
    const store = new PostgresSessionStore({ pool: machine(), schema });
    await journal(store, "s1", 2);
    const alien = { ...userEntry(2, "from the future"), v: 99 };
    await admin.query(`UPDATE "${schema}".entries SET entry = $1::json WHERE session_id = 's1' AND seq = 2`, [JSON.stringify(alien)]);
    const error = await failure(() => store.load("s1"));
    expect(error).toBeInstanceOf(SessionCorruptError);
    expect(error).toMatchObject({ sessionId: "s1", position: 2 });
    expect((error as Error).message).toContain("format version 99");
    expect(await rows(schema, "s1")).toEqual([
      { seq: 1, entry: created("s1") },
      { seq: 2, entry: alien },
      { seq: 3, entry: userEntry(3, "entry 3") },
    ]);
    await dropSchema(admin, schema);
  });

  it("S4: a journal whose created entry names another session is SessionCorruptError", async () => {
    const schema = db.freshSchema();
    const store = new PostgresSessionStore({ pool: machine(), schema });
    await store.list(); // the store creates its tables
    await admin.query(`INSERT INTO "${schema}".entries (session_id, seq, entry) VALUES ('s1', 1, $1::json)`, [JSON.stringify(created("other"))]);
    const error = await failure(() => store.load("s1"));
    expect(error).toBeInstanceOf(SessionCorruptError);
    expect(error).toMatchObject({ sessionId: "s1", position: 1 });
    expect((error as Error).message).toContain('belongs to session "other"');
    expect(await rows(schema, "s1")).toEqual([{ seq: 1, entry: created("other") }]);
    await dropSchema(admin, schema);
  });

  it("S4: a missing row (a gap in the sequence) is SessionCorruptError at the gap", async () => {
    const schema = db.freshSchema();
    const store = new PostgresSessionStore({ pool: machine(), schema });
    await journal(store, "s1", 3);
    await admin.query(`DELETE FROM "${schema}".entries WHERE session_id = 's1' AND seq = 3`);
    expect(await failure(() => store.load("s1"))).toMatchObject({ name: "SessionCorruptError", sessionId: "s1", position: 3 });
    // an entry filed under a seq that is not its own
    await admin.query(`UPDATE "${schema}".entries SET seq = 7, entry = jsonb_set(entry::jsonb, '{seq}', '3')::json WHERE session_id = 's1' AND seq = 4`);
    const misfiled = await failure(() => store.load("s1"));
    expect(misfiled).toMatchObject({ name: "SessionCorruptError", sessionId: "s1", position: 3 });
    expect((misfiled as Error).message).toContain("filed under seq 7");
    await dropSchema(admin, schema);
  });

  it("S1: an entry comes back as the very JSON written: key order, U+0000 and a lone surrogate kept (json, not jsonb)", async () => {
    const schema = db.freshSchema();
    const store = new PostgresSessionStore({ pool: machine(), schema });
    const token = await journal(store, "s1");
    const odd: JournalEntry = { v: 1, seq: 2, at: 2, type: "message", message: { role: "toolResult", toolCallId: "c", toolName: "t", content: [{ type: "text", text: "nul \u0000 and half \ud800 a pair" }], details: { zeta: 1, alpha: { b: 2, a: 1 } }, isError: false, timestamp: 2 } };
    expect(await store.append("s1", [odd], { expectedSeq: 1, token, ttlMs: TTL })).toBe(2);
    const loaded = await store.load("s1");
    expect(JSON.stringify(loaded!.entries[1])).toBe(JSON.stringify(odd));
    await dropSchema(admin, schema);
  });

  it("S2: an entry the database refuses fails the whole append: no entry lands and the lease is not renewed", async () => {
    const schema = db.freshSchema();
    const store = new PostgresSessionStore({ pool: machine(), schema });
    const token = await journal(store, "s1");
    // A rule of the database's own (a DBA's constraint) refuses the second entry.
    await admin.query(`ALTER TABLE "${schema}".entries ADD CONSTRAINT small CHECK (length(entry::text) < 200)`);
    const lease = async () => (await admin.query(`SELECT expires_at, updated_at FROM "${schema}".sessions WHERE session_id = 's1'`)).rows[0];
    const before = await lease();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const error = await failure(() => store.append("s1", [userEntry(2, "fine"), userEntry(3, "x".repeat(300))], { expectedSeq: 1, token, ttlMs: TTL }));
    expect((error as { code?: string }).code).toBe("23514");
    expect(await rows(schema, "s1")).toEqual([{ seq: 1, entry: created("s1") }]);
    expect(await lease()).toEqual(before);
    expect(await store.append("s1", [userEntry(2, "fine")], { expectedSeq: 1, token, ttlMs: TTL })).toBe(2);
    await dropSchema(admin, schema);
  });

  it("S3: delete() removes the entries; the session's row stays with its last token, so an old writer is still fenced", async () => {
    const schema = db.freshSchema();
    const store = new PostgresSessionStore({ pool: machine(), schema });
    const token = await journal(store, "s1", 2);
    await journal(store, "s2", 1);
    await store.delete("s1");
    expect(await rows(schema, "s1")).toEqual([]);
    const lease = await admin.query(`SELECT owner, token::int AS token, extract(epoch FROM expires_at)::float8 AS expires FROM "${schema}".sessions WHERE session_id = 's1'`);
    expect(lease.rows).toEqual([{ owner: "setup", token, expires: 0 }]);
    expect((await store.load("s2"))?.entries).toHaveLength(2);
    // expired: another owner gets it at once, with the next token
    expect((await store.acquire("s1", { owner: "new", ttlMs: TTL })).token).toBe(token + 1);
    expect(await failure(() => store.append("s1", [created("s1")], { expectedSeq: 0, token, ttlMs: TTL }))).toBeInstanceOf(SessionFencedError);
    await dropSchema(admin, schema);
  });

  it("S2: a delete racing an append from another machine leaves no entry behind", async () => {
    const schema = db.freshSchema();
    const a = new PostgresSessionStore({ pool: machine(), schema });
    const b = new PostgresSessionStore({ pool: machine(), schema });
    for (let round = 0; round < 10; round++) {
      const id = `s${round}`;
      const token = await journal(a, id);
      const [appended] = await Promise.allSettled([a.append(id, [userEntry(2, "racing")], { expectedSeq: 1, token, ttlMs: TTL }), b.delete(id)]);
      // Whichever went first, the delete saw every entry committed before it.
      expect(await rows(schema, id)).toEqual([]);
      if (appended.status === "rejected") expect(appended.reason).toBeInstanceOf(SessionConflictError);
    }
    await dropSchema(admin, schema);
  });

  it("S2: a schema name and table prefix are taken literally and keep stores apart", async () => {
    const schema = `${db.freshSchema()} "odd"; name`;
    const pool = machine();
    const one = new PostgresSessionStore({ pool, schema, tablePrefix: "one_" });
    const two = new PostgresSessionStore({ pool, schema, tablePrefix: "two_" });
    await journal(one, "s1", 1);
    await journal(two, "s1");
    expect((await one.load("s1"))?.entries).toHaveLength(2);
    expect((await two.load("s1"))?.entries).toHaveLength(1);
    expect((await one.list()).map((s) => s.seq)).toEqual([2]);
    const tables = await admin.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name`, [schema]);
    expect(tables.rows.map((r) => r.table_name)).toEqual(["one_entries", "one_sessions", "two_entries", "two_sessions"]);
    await dropSchema(admin, schema);
  });

  it("the module never imports pg, not even its types: the app passes its own pool, and a pg.Pool is a PostgresPool", async () => {
    const files = ["postgres-store.ts", ...(await readdir(new URL("../../src/session/stores/postgres/", import.meta.url))).map((f) => `postgres/${f}`)];
    const sources = await Promise.all(files.map((file) => readFile(new URL(`../../src/session/stores/${file}`, import.meta.url), "utf8")));
    const imports = sources.flatMap((source) => source.match(/^(?:import|export)\s[^;]*?from\s+"([^"]+)";/gms) ?? []);
    expect(files.length).toBeGreaterThan(1);
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter((line) => /from\s+"pg"/.test(line))).toEqual([]);
    // Checked by the type check: pg's own classes fit the store's structural types.
    const pool: PostgresPool = new pg.Pool({ max: 1 });
    const client: PostgresQueryable = new pg.Client();
    expect(typeof pool.connect).toBe("function");
    expect(typeof client.query).toBe("function");
    await (pool as pg.Pool).end();
  });
});
