/**
 * What the PostgreSQL store uses of `pg`, named here so that neither the module nor its
 * declarations need `pg` or `@types/pg`: a `pg.Pool`, `pg.Client` and `pg.PoolClient` fit.
 *
 * @module
 */

/**
 * One connection the store may send queries to: a `pg.Client`, a checked-out `pg.PoolClient`, or
 * anything else with the same `query()`.
 *
 * @example
 * ```ts
 * const client = new pg.Client(process.env.DATABASE_URL);
 * await client.connect();
 * const store = new PostgresSessionStore({ pool: client });
 * ```
 */
export interface PostgresQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
}

/**
 * What the store uses of a `pg.Pool`, named here so the declarations need no `@types/pg`: a
 * `pg.Pool` is one.
 *
 * @example
 * ```ts
 * const pool: PostgresPool = new pg.Pool({ connectionString });
 * ```
 */
export interface PostgresPool extends PostgresQueryable {
  connect(): Promise<PostgresPoolClient>;
  readonly totalCount: number;
}

/**
 * A client checked out of a {@link PostgresPool}.
 *
 * @example
 * ```ts
 * const client: PostgresPoolClient = await pool.connect();
 * try { await client.query("SELECT 1"); } finally { client.release(); }
 * ```
 */
export interface PostgresPoolClient extends PostgresQueryable {
  release(error?: Error | boolean): void;
}
