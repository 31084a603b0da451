/**
 * What the PostgreSQL relay uses of `pg`, named here so that neither the module nor its
 * declarations need `pg` or `@types/pg`: a `pg.Pool` fits.
 *
 * @module
 */

/** A notification as `pg` hands it over. */
export interface RelayNotification {
  readonly channel: string;
  readonly payload?: string | undefined;
}

/**
 * A client checked out of the pool: the relay keeps one for `LISTEN` while followers read.
 *
 * @example
 * ```ts
 * const client: RelayPoolClient = await pool.connect();
 * ```
 */
export interface RelayPoolClient {
  query(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
  release(destroy?: Error | boolean): void;
  on(event: string, listener: (...args: any[]) => void): unknown;
  removeListener(event: string, listener: (...args: any[]) => void): unknown;
}

/**
 * What the relay uses of a `pg.Pool`.
 *
 * @example
 * ```ts
 * const pool: RelayPool = new pg.Pool({ connectionString });
 * ```
 */
export interface RelayPool {
  query(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
  connect(): Promise<RelayPoolClient>;
}
