/**
 * The side effect of the example: a `charges` table the `charge` tool inserts into. It is
 * outside the session journal on purpose, as a payment provider would be: the journal cannot
 * undo it, so the tool says `replay: "never"` and a resumed session never runs it twice.
 *
 * @module
 */
import type pg from "pg";

/** One charge, as the table keeps it. */
export interface ChargeRow {
  sessionId: string;
  toolCallId: string;
  worker: string;
}

const table = (schema: string): string => `"${schema.replace(/"/g, '""')}".charges`;

/** Creates the schema and the table when missing. */
export async function createChargesTable(pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(`CREATE SCHEMA IF NOT EXISTS "${schema.replace(/"/g, '""')}"`);
  // No unique key on the call: a second charge of one call must show up, not be hidden.
  await pool.query(`CREATE TABLE IF NOT EXISTS ${table(schema)} (session_id text NOT NULL, tool_call_id text NOT NULL, amount numeric NOT NULL, worker text NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())`);
}

/** Records a charge: the effect that must happen at most once per tool call. */
export async function recordCharge(pool: pg.Pool, schema: string, charge: ChargeRow & { amount: number }): Promise<void> {
  await pool.query(`INSERT INTO ${table(schema)} (session_id, tool_call_id, amount, worker) VALUES ($1, $2, $3, $4)`, [charge.sessionId, charge.toolCallId, charge.amount, charge.worker]);
}

/** Every charge, oldest first. */
export async function listCharges(pool: pg.Pool, schema: string): Promise<ChargeRow[]> {
  const { rows } = await pool.query<{ session_id: string; tool_call_id: string; worker: string }>(`SELECT session_id, tool_call_id, worker FROM ${table(schema)} ORDER BY at`);
  return rows.map((row) => ({ sessionId: row.session_id, toolCallId: row.tool_call_id, worker: row.worker }));
}
