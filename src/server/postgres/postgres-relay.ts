/**
 * A session relay over the app's PostgreSQL: the records in one table, a `NOTIFY` per batch and
 * session with a small payload (the session id and the newest row's id — payloads are limited to
 * 8000 bytes, so the data stays in the table), one `LISTEN` client per relay while followers read.
 *
 * Rows are ordered by a `bigserial` id. A follower reads the rows after the last one it read, so
 * a session's rows must commit in id order: they do, since one instance hosts a session at a time
 * (its lease) and publishes one batch at a time.
 *
 * @module
 */
import { Observable } from "rxjs";
import { describeError } from "../../model/describe-error.js";
import { redactSecrets } from "../../model/redact-secrets.js";
import { hash32, pgCode, quoteIdentifier } from "../../session/stores/postgres/identifiers.js";
import { continues, entryPosition, planReplay, toldAfter, type EntryPosition, type RelayEntry, type RelayRecord, type RelayRole, type ReplayPlan, type SessionRelay } from "../session-relay.js";
import type { RelayPool } from "./pg-relay-types.js";
import { postgresCommands } from "./relay-commands.js";
import { RelayListener } from "./relay-listener.js";

/** What `postgresRelay` is given. */
export interface PostgresRelayOptions {
  /** The app's `pg.Pool`: queries, and one client held for `LISTEN` while followers read. */
  pool: RelayPool;
  /** The schema of the relay's table, created when missing. Default `"rxagent"`. */
  schema?: string;
  /** The table, created when missing. Default `"relay_entries"`. */
  table?: string;
  /** The notification channel. Default `"rxagent_relay"`. */
  channel?: string;
  /** Told of a `LISTEN` connection that failed or dropped (it is re-established), and of a forwarded command that could not be claimed or answered. Default: `console.error`, redacted. */
  onError?: (error: unknown) => void;
}

/** Rows per `INSERT`, and their bytes: a queue that built up goes in a few statements. */
const MAX_ROWS = 500;
const MAX_BATCH_BYTES = 4 << 20;
/** Rows a follower reads per query. */
const READ_ROWS = 1000;
/** A session id, its space and a row id fit a NOTIFY payload many times over. */
const MAX_SESSION_ID = 1024;
const ADVISORY_CLASS = 0x72786167;
const DUPLICATE_OBJECT = new Set(["23505", "42P06", "42P07", "42710"]);

interface Row {
  id: string;
  entry_id: string;
  kind: "event" | "state";
  role: RelayRole;
  data: string;
}

/** A session id fits a notification's payload, and never reads as one of the command keys ("!…"). */
function checkSessionId(sessionId: string): void {
  if (typeof sessionId !== "string" || sessionId.length === 0 || sessionId.length > MAX_SESSION_ID || sessionId.startsWith("!")) {
    throw new TypeError(`postgresRelay: a session id must be 1 to ${MAX_SESSION_ID} characters, not starting with "!".`);
  }
}

interface HeldRow {
  readonly key: number;
  readonly role: RelayRole;
  readonly entry: RelayEntry;
}

/**
 * The rows as a follower is told them. Rows are the host's, but they come through the database:
 * one whose id or data could break the event stream's framing (a line break) is left out and
 * reported, never sent, and the rows around it are (a row the host wrote in its place is missing
 * then: the follower's stream ends at that gap, to resume).
 */
function heldRows(rows: readonly Row[], report: (error: unknown) => void): HeldRow[] {
  const held: HeldRow[] = [];
  for (const row of rows) {
    if (!/^[0-9a-f]{1,64}\.\d{1,15}$/.test(row.entry_id) || (row.kind !== "event" && row.kind !== "state") || typeof row.data !== "string" || /[\r\n]/.test(row.data)) {
      report(new Error(`postgresRelay: row ${String(row.id).slice(0, 20)} of the relay's table is not an entry the host wrote; left out`));
      continue;
    }
    held.push({ key: Number(row.id), role: row.role, entry: { id: row.entry_id, kind: row.kind, data: row.data } });
  }
  return held;
}

function identifier(name: string, what: string): string {
  try {
    return quoteIdentifier(name, what);
  } catch (error) {
    throw new TypeError((error as Error).message.replace("PostgresSessionStore", "postgresRelay"));
  }
}

/**
 * A relay on PostgreSQL for `createSessionServer({ relay })`, over the app's `pg` pool.
 *
 * @example
 * ```ts
 * import pg from "pg";
 * import { createSessionServer } from "rxagent/server";
 * import { postgresRelay } from "rxagent/server/postgres";
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * const server = createSessionServer({ agentFor, authenticate, authorize, onHosted, relay: postgresRelay({ pool }) });
 * ```
 */
export function postgresRelay(options: PostgresRelayOptions): SessionRelay {
  const { pool } = options;
  if (typeof pool?.query !== "function" || typeof pool.connect !== "function") throw new TypeError("postgresRelay: `pool` must be a pg.Pool (query and connect)");
  const schemaName = options.schema ?? "rxagent";
  const tableName = options.table ?? "relay_entries";
  const channel = options.channel ?? "rxagent_relay";
  const reportError = options.onError ?? ((error: unknown) => console.error(`rxagent relay: ${redactSecrets(describeError(error))}`));
  const table = `${identifier(schemaName, "schema name")}.${identifier(tableName, "table name")}`;
  const commandTable = `${identifier(schemaName, "schema name")}.${identifier(`${tableName}_commands`, "table name")}`;
  const listener = new RelayListener(pool, identifier(channel, "channel name"), channel, reportError);
  const lockKey = hash32(`${schemaName}\u0000${tableName}`);
  let ready: Promise<void> | undefined;

  const createTable = async (): Promise<void> => {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      await client.query(`SELECT pg_advisory_xact_lock(${ADVISORY_CLASS}, ${lockKey})`);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${identifier(schemaName, "schema name")}`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${table} (
           id bigserial PRIMARY KEY,
           session_id text NOT NULL,
           entry_id text NOT NULL,
           kind text NOT NULL CHECK (kind IN ('event', 'state')),
           role text NOT NULL CHECK (role IN ('entry', 'checkpoint', 'resync')),
           data text NOT NULL,
           created_at timestamptz NOT NULL DEFAULT now()
         )`,
      );
      await client.query(`CREATE INDEX IF NOT EXISTS ${identifier(`${tableName}_session`, "index name")} ON ${table} (session_id, id)`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${commandTable} (
           id bigserial PRIMARY KEY,
           session_id text NOT NULL,
           token text NOT NULL,
           command text NOT NULL,
           claimed boolean NOT NULL DEFAULT false,
           answer text,
           created_at timestamptz NOT NULL DEFAULT now()
         )`,
      );
      await client.query("COMMIT");
      client.release();
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      client.release(true);
      throw error;
    }
  };
  const ensureTable = (): Promise<void> =>
    (ready ??= (async () => {
      const { rows } = await pool.query(`SELECT to_regclass($1) IS NOT NULL AND to_regclass($2) IS NOT NULL AS ready`, [table, commandTable]);
      if (rows[0]?.ready === true) return;
      // Two instances creating it at once: the loser of a catalog race tries once more.
      await createTable().catch((error: unknown) => (DUPLICATE_OBJECT.has(pgCode(error) ?? "") ? createTable() : Promise.reject(error)));
    })().catch((error: unknown) => {
      ready = undefined;
      throw error;
    }));

  const insert = async (records: readonly RelayRecord[]): Promise<void> => {
    const columns: string[][] = [[], [], [], [], []];
    for (const { sessionId, role, entry } of records) {
      columns[0]!.push(sessionId);
      columns[1]!.push(entry.id);
      columns[2]!.push(entry.kind);
      columns[3]!.push(role);
      columns[4]!.push(entry.data);
    }
    // One statement, one transaction: the rows, then a notification per session, sent at commit.
    await pool.query(
      `WITH inserted AS (
         INSERT INTO ${table} (session_id, entry_id, kind, role, data)
         SELECT s, e, k, r, d FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS u(s, e, k, r, d, o) ORDER BY o
         RETURNING id, session_id
       )
       SELECT pg_notify($6, session_id || ' ' || max(id)) FROM inserted GROUP BY session_id`,
      [...columns, channel],
    );
  };

  // Keeps each session's rows from its second-latest state on.
  const prune = (sessionIds: readonly string[]): Promise<unknown> =>
    pool.query(
      `DELETE FROM ${table} t USING (
         SELECT x.session_id, max(x.id) AS keep FROM ${table} x
         WHERE x.session_id = ANY($1::text[]) AND x.kind = 'state'
           AND x.id < (SELECT max(y.id) FROM ${table} y WHERE y.session_id = x.session_id AND y.kind = 'state')
         GROUP BY x.session_id
       ) k WHERE t.session_id = k.session_id AND t.id < k.keep`,
      [sessionIds],
    );

  const publish = async (records: readonly RelayRecord[]): Promise<void> => {
    for (const { sessionId, entry } of records) {
      checkSessionId(sessionId);
      if (typeof entry?.data !== "string" || typeof entry.id !== "string") throw new TypeError("postgresRelay: an entry needs a string id and data.");
    }
    if (records.length === 0) return;
    await ensureTable();
    let start = 0;
    while (start < records.length) {
      let end = start;
      let bytes = 0;
      while (end < records.length && end - start < MAX_ROWS && (end === start || bytes + records[end]!.entry.data.length <= MAX_BATCH_BYTES)) bytes += records[end++]!.entry.data.length;
      await insert(records.slice(start, end));
      start = end;
    }
    const withState = [...new Set(records.filter((record) => record.entry.kind === "state").map((record) => record.sessionId))];
    if (withState.length > 0) await prune(withState);
  };

  const follow = (sessionId: string, lastId: string | null | undefined): Observable<readonly RelayEntry[]> =>
    new Observable<readonly RelayEntry[]>((subscriber) => {
      checkSessionId(sessionId);
      let plan: ReplayPlan | undefined;
      let lastKey = 0;
      let busy = false;
      let again = false;
      let last: EntryPosition | undefined;
      /** The entries of `records` a follower past `plan` is told; throws at a gap. */
      const toldOf = (records: readonly HeldRow[], first: ReplayPlan): RelayEntry[] => {
        const told: RelayEntry[] = [];
        for (const record of records) {
          if (record.key !== first.base && !toldAfter(first, record.key, record)) continue;
          if (record.key !== first.base && !continues(last, record)) throw new Error("The relay no longer holds entries this follower had not read (it fell behind): resume from the last entry.");
          last = entryPosition(record.entry.id);
          told.push(record.entry);
        }
        return told;
      };
      const read = async (): Promise<void> => {
        await ensureTable();
        if (!plan) {
          const { rows } = await pool.query(`SELECT id, entry_id, kind, role, data FROM ${table} WHERE session_id = $1 ORDER BY id`, [sessionId]);
          const held = heldRows(rows as Row[], reportError);
          plan = planReplay(held, lastId);
          last = plan.skip;
          lastKey = Math.max(plan.after, Number((rows as Row[]).at(-1)?.id ?? 0));
          const told = toldOf(held, plan);
          if (!subscriber.closed) subscriber.next(told);
          return;
        }
        for (;;) {
          const { rows } = await pool.query(`SELECT id, entry_id, kind, role, data FROM ${table} WHERE session_id = $1 AND id > $2 ORDER BY id LIMIT ${READ_ROWS}`, [sessionId, lastKey]);
          const told = toldOf(heldRows(rows as Row[], reportError), plan);
          if (rows.length > 0) lastKey = Number((rows as Row[]).at(-1)!.id);
          if (subscriber.closed) return;
          if (told.length > 0) subscriber.next(told);
          if (rows.length < READ_ROWS) return;
        }
      };
      // One read at a time; a wake during a read reads again after it.
      const wake = (): void => {
        if (busy) {
          again = true;
          return;
        }
        busy = true;
        again = false;
        read().then(
          () => {
            busy = false;
            if (again && !subscriber.closed) wake();
          },
          (error: unknown) => subscriber.error(error),
        );
      };
      const stop = listener.listen(sessionId, wake);
      return stop;
    });

  const commands = postgresCommands({ pool, table: commandTable, channel, listener, ensureTable, onError: reportError });
  return { publish, follow, commands };
}
