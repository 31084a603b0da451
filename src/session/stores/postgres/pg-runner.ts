/**
 * How the PostgreSQL store sends its queries: on a pool (each transaction checks out its own
 * client, so calls run side by side) or on a single connection (calls run one at a time, since
 * a transaction owns its connection).
 *
 * @module
 */
import type { PostgresPool, PostgresPoolClient, PostgresQueryable } from "./pg-types.js";

/**
 * Statements and transactions on the app's pool or connection.
 *
 * @example
 * ```ts
 * const runner = new PgRunner(pool);
 * await runner.transaction(async (db) => db.query("SELECT 1"));
 * ```
 */
export class PgRunner {
  private readonly pool: PostgresPool | undefined;
  private readonly connection: PostgresQueryable | undefined;
  /** The tail of the single connection's queue: each call starts when the one before it settled. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(pool: PostgresPool | PostgresQueryable) {
    // pg.Client has connect() as well (it opens the socket), so a pool is told apart by its counters.
    if (typeof (pool as PostgresPool).connect === "function" && typeof (pool as PostgresPool).totalCount === "number") this.pool = pool as PostgresPool;
    else this.connection = pool;
  }

  /** One statement, outside a transaction. */
  query(text: string, values?: unknown[]): Promise<{ rows: any[] }> {
    if (this.pool) return this.pool.query(text, values);
    return this.exclusive((db) => db.query(text, values));
  }

  /** `work` in a READ COMMITTED transaction (the store's locking relies on it, whatever the server's default). */
  transaction<T>(work: (db: PostgresQueryable) => Promise<T>): Promise<T> {
    const run = async (db: PostgresQueryable): Promise<{ result: T } | { error: unknown; broken?: Error }> => {
      try {
        await db.query("BEGIN ISOLATION LEVEL READ COMMITTED");
        const result = await work(db);
        await db.query("COMMIT");
        return { result };
      } catch (error) {
        try {
          await db.query("ROLLBACK");
          return { error };
        } catch (rollbackError) {
          return { error, broken: rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError)) };
        }
      }
    };
    const settle = (outcome: { result: T } | { error: unknown }): T => {
      if ("error" in outcome) throw outcome.error;
      return outcome.result;
    };
    if (!this.pool) return this.exclusive(run).then(settle);
    const pool = this.pool;
    return (async () => {
      const client: PostgresPoolClient = await pool.connect();
      let outcome: Awaited<ReturnType<typeof run>> | undefined;
      try {
        outcome = await run(client);
      } finally {
        // A client whose rollback failed is in an unknown state: the pool must drop it, not lend it again.
        client.release(outcome && "broken" in outcome ? outcome.broken : undefined);
      }
      return settle(outcome);
    })();
  }

  /** Runs `use` on the single connection after every call queued before it. */
  private exclusive<T>(use: (db: PostgresQueryable) => Promise<T>): Promise<T> {
    const connection = this.connection!;
    const run = this.queue.then(() => use(connection));
    this.queue = run.catch(() => undefined);
    return run;
  }
}
