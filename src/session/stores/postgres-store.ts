/**
 * The PostgreSQL session store: journals shared by every process that reaches one database, on
 * the `pg` package (an optional peer dependency: the app passes its own pool, this module never
 * loads `pg` itself). Seq numbers are unique per session by primary key, appends and leases are
 * serialized by a row lock on the session, and lease time is the database server's clock, so
 * machines whose clocks disagree still agree on when a lease ends (SPEC S2, S3).
 *
 * @module
 */
import { checkJournal, type JournalEntry } from "../journal-entry.js";
import { checkAppend, grantLease, type LeaseRecord } from "../lease-rules.js";
import { SessionConflictError, SessionCorruptError } from "../session-errors.js";
import type { AcquireLease, AppendCondition, LoadedJournal, SessionLease, SessionStore, SessionSummary } from "../session-store.js";
import { hash32, pgCode, quoteIdentifier } from "./postgres/identifiers.js";
import { PgRunner } from "./postgres/pg-runner.js";
import type { PostgresPool, PostgresQueryable } from "./postgres/pg-types.js";
import { checkSessionId } from "./session-id.js";

export type { PostgresPool, PostgresPoolClient, PostgresQueryable } from "./postgres/pg-types.js";

/**
 * Options of {@link PostgresSessionStore}.
 *
 * @example
 * ```ts
 * const options: PostgresSessionStoreOptions = { pool: new pg.Pool({ connectionString }), schema: "agents" };
 * ```
 */
export interface PostgresSessionStoreOptions {
  /**
   * A `pg.Pool` (each transaction checks out its own client, so calls run side by side), or a
   * single connection such as a `pg.Client` (calls then run one at a time, since a transaction
   * owns its connection; give the store a connection nothing else uses meanwhile). The pool
   * stays the app's: the store never ends it, and its `"error"` events are the app's to handle.
   */
  pool: PostgresPool | PostgresQueryable;
  /** The schema of the store's tables, created when missing. Default `"rxagent"`. */
  schema?: string | undefined;
  /** Put before the table names (`entries`, `sessions`), to keep several stores in one schema. Default `""`. */
  tablePrefix?: string | undefined;
}

/** How many times a lock on a session row is retried when the row is deleted (by SQL: the store keeps its rows) under it. */
const LOCK_ATTEMPTS = 5;

/** unique_violation (a catalog index), duplicate_schema, duplicate_table, duplicate_object. */
const DUPLICATE_OBJECT = new Set(["23505", "42P06", "42P07", "42710"]);

/** A class id for `pg_advisory_xact_lock(int, int)` ("rxag"), so the schema lock is unlikely to meet an app's own advisory locks. */
const ADVISORY_CLASS = 0x72786167;

/**
 * Journals in two tables: `entries` (one row per journal entry, `json` — not `jsonb`, which
 * would reorder keys and refuse `\u0000`: an entry comes back as the very text written — keyed by session and
 * seq) and `sessions` (the newest lease and the time of the last append). The store creates its
 * schema and tables on first use. Every `append()` is one transaction: all entries land or none.
 *
 * @example
 * ```ts
 * import pg from "pg";
 * const store = new PostgresSessionStore({ pool: new pg.Pool({ connectionString: process.env.DATABASE_URL }) });
 * const agent = new Agent({ initialState: { model }, streamFn, session: agentSession({ store, id: "chat-1" }) });
 * await agent.resume();
 * ```
 */
export class PostgresSessionStore implements SessionStore {
  private readonly runner: PgRunner;
  private ready: Promise<void> | undefined;
  private readonly schema: string;
  private readonly entries: string;
  private readonly sessions: string;
  private readonly lockKey: number;

  constructor(options: PostgresSessionStoreOptions) {
    if (!options?.pool || typeof options.pool.query !== "function") throw new TypeError("PostgresSessionStore needs a pool: a pg.Pool, or a connection with query().");
    this.runner = new PgRunner(options.pool);
    const schema = options.schema ?? "rxagent";
    const prefix = options.tablePrefix ?? "";
    // Checked here, not at the first query: PostgreSQL would cut a long name and share tables.
    this.schema = quoteIdentifier(schema, "schema name");
    this.entries = `${this.schema}.${quoteIdentifier(`${prefix}entries`, "table name")}`;
    this.sessions = `${this.schema}.${quoteIdentifier(`${prefix}sessions`, "table name")}`;
    this.lockKey = hash32(`${schema}\u0000${prefix}`);
  }

  async load(id: string): Promise<LoadedJournal | undefined> {
    checkSessionId(id); // before any query: a NUL or a lone surrogate would be a driver's error
    await this.ensureSchema();
    // `entry::text`, parsed here: the app's pool may have its own type parsers for json.
    const { rows } = await this.runner.query(`SELECT seq, entry::text AS entry FROM ${this.entries} WHERE session_id = $1 ORDER BY seq`, [id]);
    if (rows.length === 0) return undefined;
    const values = rows.map((row: { entry: string }, index) => {
      try {
        return JSON.parse(row.entry) as unknown;
      } catch {
        throw new SessionCorruptError(id, index + 1, "the row is not JSON");
      }
    });
    const entries = checkJournal(values, id);
    rows.forEach((row: { seq: unknown }, index) => {
      if (Number(row.seq) !== index + 1) throw new SessionCorruptError(id, index + 1, `the row of entry ${index + 1} is filed under seq ${String(row.seq)}`);
    });
    return { entries };
  }

  async append(id: string, entries: readonly JournalEntry[], condition: AppendCondition): Promise<number> {
    checkSessionId(id);
    if (typeof condition.ttlMs !== "number" || !(condition.ttlMs > 0)) throw new TypeError("append() needs a positive ttlMs.");
    await this.ensureSchema();
    try {
      return await this.runner.transaction(async (db) => {
        const { lease, now } = await this.lockSession(db, id);
        // Read after the lock: under READ COMMITTED this sees every append that committed before us.
        const last = await db.query(`SELECT coalesce(max(seq), 0) AS seq FROM ${this.entries} WHERE session_id = $1`, [id]);
        const lastSeq = Number(last.rows[0].seq);
        checkAppend(id, lease, lastSeq, entries, condition);
        // One statement: the inserts and the lease renewal stand or fall together.
        await db.query(
          `WITH inserted AS (
             INSERT INTO ${this.entries} (session_id, seq, entry)
             SELECT $1, $2::integer + t.n::integer, t.entry FROM json_array_elements($3::json) WITH ORDINALITY AS t(entry, n)
           )
           UPDATE ${this.sessions}
              SET updated_at = to_timestamp($4::float8 / 1000),
                  expires_at = CASE WHEN token > 0 THEN to_timestamp($5::float8 / 1000) ELSE expires_at END
            WHERE session_id = $1`,
          [id, lastSeq, JSON.stringify(entries), now, now + condition.ttlMs],
        );
        return lastSeq + entries.length;
      });
    } catch (error) {
      // The primary key caught a writer that got past the lock (another tool, an older schema): still a conflict.
      if (pgCode(error) === "23505") throw new SessionConflictError(id, condition.expectedSeq, await this.lastSeq(id));
      throw error;
    }
  }

  async acquire(id: string, request: AcquireLease): Promise<SessionLease> {
    checkSessionId(id);
    grantLease(id, undefined, request, 0); // the argument checks, before a round trip
    await this.ensureSchema();
    return this.runner.transaction(async (db) => {
      const { lease, now } = await this.lockSession(db, id);
      const granted = grantLease(id, lease, request, now);
      await db.query(`UPDATE ${this.sessions} SET owner = $2, token = $3::bigint, expires_at = to_timestamp($4::float8 / 1000) WHERE session_id = $1`, [id, granted.owner, String(granted.token), granted.expiresAt]);
      return granted;
    });
  }

  async release(id: string, token: number): Promise<void> {
    checkSessionId(id);
    if (!Number.isSafeInteger(token) || token <= 0) return; // no lease ever had such a token
    await this.ensureSchema();
    await this.runner.query(`UPDATE ${this.sessions} SET expires_at = 'epoch' WHERE session_id = $1 AND token = $2::bigint`, [id, String(token)]);
  }

  async list(): Promise<SessionSummary[]> {
    await this.ensureSchema();
    // One index probe per session row, rather than grouping every entry of every journal.
    const { rows } = await this.runner.query(
      `SELECT s.session_id AS id, m.seq, floor(extract(epoch FROM s.updated_at) * 1000)::float8 AS updated_at
         FROM ${this.sessions} s
         CROSS JOIN LATERAL (SELECT max(e.seq) AS seq FROM ${this.entries} e WHERE e.session_id = s.session_id) m
        WHERE m.seq IS NOT NULL`,
    );
    const summaries = rows.map((row: { id: string; seq: unknown; updated_at: unknown }) => ({ id: row.id, seq: Number(row.seq), updatedAt: Number(row.updated_at) }));
    // Sorted here, not by the database's collation, to order ids as every other store does.
    return summaries.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** Removes the journal. The session's row stays, its lease expired, with its last token: a writer from before is still fenced out (SPEC S3). */
  async delete(id: string): Promise<void> {
    checkSessionId(id);
    await this.ensureSchema();
    await this.runner.transaction(async (db) => {
      // Two statements, in this order: the first waits out a running append (it holds the row),
      // and the second, with a snapshot taken after that, sees the entries it wrote.
      await db.query(`UPDATE ${this.sessions} SET expires_at = 'epoch' WHERE session_id = $1`, [id]);
      await db.query(`DELETE FROM ${this.entries} WHERE session_id = $1`, [id]);
    });
  }

  /** Locks the session's row (creating it, token 0, when missing) and reads its lease with the server's time. */
  private async lockSession(db: PostgresQueryable, id: string): Promise<{ lease: LeaseRecord | undefined; now: number }> {
    for (let attempt = 0; attempt < LOCK_ATTEMPTS; attempt++) {
      const { rows } = await db.query(
        `SELECT owner, token::text AS token,
                floor(extract(epoch FROM expires_at) * 1000)::float8 AS expires_at,
                floor(extract(epoch FROM clock_timestamp()) * 1000)::float8 AS now
           FROM ${this.sessions} WHERE session_id = $1 FOR UPDATE`,
        [id],
      );
      const row = rows[0] as { owner: string; token: string; expires_at: unknown; now: unknown } | undefined;
      if (row) {
        const token = Number(row.token);
        return { lease: token > 0 ? { owner: row.owner, token, expiresAt: Number(row.expires_at) } : undefined, now: Number(row.now) };
      }
      await db.query(`INSERT INTO ${this.sessions} (session_id) VALUES ($1) ON CONFLICT (session_id) DO NOTHING`, [id]);
    }
    throw new Error(`Session "${id}": its row was deleted ${LOCK_ATTEMPTS} times while this call waited for it.`);
  }

  private async lastSeq(id: string): Promise<number> {
    const { rows } = await this.runner.query(`SELECT coalesce(max(seq), 0) AS seq FROM ${this.entries} WHERE session_id = $1`, [id]);
    return Number(rows[0].seq);
  }

  /** Creates the schema and tables once per store, on first use; a failure is retried by the next call. */
  private ensureSchema(): Promise<void> {
    this.ready ??= this.createSchema().catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  private async createSchema(): Promise<void> {
    // Skips the DDL when the tables exist: a role without CREATE rights can use tables a DBA made.
    const { rows } = await this.runner.query(`SELECT to_regclass($1) IS NOT NULL AND to_regclass($2) IS NOT NULL AS ready`, [this.entries, this.sessions]);
    if (rows[0]?.ready === true) return;
    try {
      await this.createTables();
    } catch (error) {
      // A waiter can still miss what the lock holder created (see createTables); a new
      // transaction sees it, and IF NOT EXISTS then passes.
      if (!DUPLICATE_OBJECT.has(pgCode(error) ?? "")) throw error;
      await this.createTables();
    }
  }

  private createTables(): Promise<void> {
    return this.runner.transaction(async (db) => {
      // IF NOT EXISTS alone races: two sessions creating the same schema or table at once can
      // fail on a catalog unique index. The lock makes stores starting together take turns. It is
      // not the whole cure: CREATE SCHEMA looks the name up in the connection's catalog cache, which
      // may still hold "no such schema" from before the wait; hence the retry in createSchema.
      await db.query(`SELECT pg_advisory_xact_lock(${ADVISORY_CLASS}, ${this.lockKey})`);
      await db.query(`CREATE SCHEMA IF NOT EXISTS ${this.schema}`);
      await db.query(
        `CREATE TABLE IF NOT EXISTS ${this.entries} (
           session_id text NOT NULL,
           seq integer NOT NULL CHECK (seq > 0),
           entry json NOT NULL,
           PRIMARY KEY (session_id, seq)
         )`,
      );
      // token 0 with owner '' is a session never leased: the row exists to be locked by appends.
      await db.query(
        `CREATE TABLE IF NOT EXISTS ${this.sessions} (
           session_id text PRIMARY KEY,
           owner text NOT NULL DEFAULT '',
           token bigint NOT NULL DEFAULT 0,
           expires_at timestamptz NOT NULL DEFAULT 'epoch',
           updated_at timestamptz NOT NULL DEFAULT now()
         )`,
      );
    });
  }
}
