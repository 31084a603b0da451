/**
 * Commands forwarded through PostgreSQL: the instance a command reached inserts it into the
 * relay's command table and notifies; every instance's relay hears it, and the one that hosts the
 * session claims it (`FOR UPDATE SKIP LOCKED`: once), applies it and writes its answer, and
 * notifies the sender, which reads the answer and deletes the row. Notifications carry keys and
 * row ids only.
 *
 * @module
 */
import type { CommandRelay, ForwardedAnswer } from "../session-relay.js";
import type { RelayPool } from "./pg-relay-types.js";
import type { RelayListener } from "./relay-listener.js";

/** What the command relay shares with its entry relay. */
export interface CommandTableContext {
  readonly pool: RelayPool;
  /** The command table, quoted. */
  readonly table: string;
  readonly channel: string;
  readonly listener: RelayListener;
  readonly ensureTable: () => Promise<void>;
  readonly onError: (error: unknown) => void;
}

interface CommandRow {
  id: string;
  session_id: string;
  token: string;
  command: string;
}

const UNREADABLE = Symbol("unreadable");

/** `text` parsed, or `UNREADABLE`. */
function readJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return UNREADABLE;
  }
}

/** An answer row as the sender reads it: one that is not JSON is the host's failure (the sender holds it to a host's answers after). */
function readAnswer(text: string): ForwardedAnswer {
  const answer = readJson(text);
  return answer === UNREADABLE ? { status: 502, body: {} } : (answer as ForwardedAnswer);
}

/** The listener's key of every forwarded command. */
export const COMMAND_KEY = "!command";
/** Rows a sender left (it crashed while waiting) are deleted after this long. */
const STALE_SECONDS = 300;

/**
 * The `commands` part of a PostgreSQL relay.
 *
 * @example
 * ```ts
 * const commands = postgresCommands({ pool, table: '"rxagent"."relay_entries_commands"', channel, listener, ensureTable, onError });
 * ```
 */
export function postgresCommands(context: CommandTableContext): CommandRelay {
  const { pool, table, channel, listener } = context;

  const forward = async (sessionId: string, command: unknown, timeoutMs: number): Promise<ForwardedAnswer | undefined> => {
    await context.ensureTable();
    // The answer's key is known before the insert, so an answer faster than the insert's reply is heard.
    const token = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, "0")).join("");
    let id: string | undefined;
    let settle: (answer: ForwardedAnswer | undefined) => void = () => undefined;
    let failed: (error: unknown) => void = () => undefined;
    const answered = new Promise<ForwardedAnswer | undefined>((resolve, reject) => ((settle = resolve), (failed = reject)));
    const check = (): void => {
      if (id === undefined) return;
      pool
        .query(`SELECT answer FROM ${table} WHERE id = $1`, [id])
        .then(({ rows }) => {
          const answer = rows[0]?.answer as string | null | undefined;
          if (typeof answer === "string") settle(readAnswer(answer));
        })
        .catch(failed);
    };
    const stop = listener.listen(`!answer:${token}`, check);
    const timer = setTimeout(() => settle(undefined), timeoutMs);
    try {
      const { rows } = await pool.query(
        `WITH inserted AS (INSERT INTO ${table} (session_id, token, command) VALUES ($1, $2, $3) RETURNING id)
         SELECT id, pg_notify($4, '${COMMAND_KEY} ' || id) FROM inserted`,
        [sessionId, token, JSON.stringify(command), channel],
      );
      id = String(rows[0].id);
      check();
      return await answered;
    } finally {
      clearTimeout(timer);
      stop();
      // Answered or given up: the row is of no use to anyone now (nor are rows older senders left).
      if (id !== undefined) await pool.query(`DELETE FROM ${table} WHERE id = $1 OR created_at < now() - interval '${STALE_SECONDS} seconds'`, [id]).catch(context.onError);
    }
  };

  const serve = (hostedIds: () => readonly string[], apply: (sessionId: string, command: unknown) => Promise<ForwardedAnswer>): { stop(): void; wake(): void } => {
    let busy = false;
    let again = false;
    let stopped = false;
    const claim = async (): Promise<void> => {
      const ids = hostedIds();
      if (ids.length === 0) return;
      await context.ensureTable();
      const { rows } = await pool.query(
        `UPDATE ${table} SET claimed = true WHERE id IN (
           SELECT id FROM ${table} WHERE NOT claimed AND session_id = ANY($1::text[]) ORDER BY id FOR UPDATE SKIP LOCKED
         ) RETURNING id, session_id, token, command`,
        [ids],
      );
      rows.sort((a, b) => Number(a.id) - Number(b.id));
      // In order within a session; sessions side by side, so one slow prompt holds up no other session's commands.
      const bySession = new Map<string, CommandRow[]>();
      for (const row of rows as CommandRow[]) bySession.set(row.session_id, [...(bySession.get(row.session_id) ?? []), row]);
      await Promise.all(
        [...bySession.values()].map(async (sessionRows) => {
          for (const row of sessionRows) {
            // A row that is not JSON (written by hand, not by a sender) is answered as a bad command;
            // the rows claimed with it are still applied.
            const command = readJson(row.command);
            const answer = command === UNREADABLE ? { status: 400, body: { error: "The forwarded command is not JSON." } } : await apply(row.session_id, command);
            await pool.query(`WITH updated AS (UPDATE ${table} SET answer = $2 WHERE id = $1 RETURNING token) SELECT pg_notify($3, '!answer:' || token || ' .') FROM updated`, [row.id, JSON.stringify(answer), channel]);
          }
        }),
      );
    };
    // One claim at a time; a notification during one claims again after it.
    const wake = (): void => {
      if (stopped) return;
      if (busy) {
        again = true;
        return;
      }
      busy = true;
      again = false;
      void claim()
        .catch(context.onError)
        .finally(() => {
          busy = false;
          if (again) wake();
        });
    };
    const stopListening = listener.listen(COMMAND_KEY, wake);
    return {
      stop: () => {
        stopped = true;
        stopListening();
      },
      wake,
    };
  };

  return { forward, serve };
}
