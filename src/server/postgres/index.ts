/**
 * `rxagent/server/postgres`: a session relay on PostgreSQL, for several `rxagent/server`
 * instances on one database (a page on instance B follows a run on instance A). Uses the app's
 * `pg` pool (`pg` is an optional peer).
 *
 * @example
 * ```ts
 * import { postgresRelay } from "rxagent/server/postgres";
 * const server = createSessionServer({ agentFor, authenticate, authorize, onHosted, relay: postgresRelay({ pool }) });
 * ```
 *
 * @module
 */
export { postgresRelay, type PostgresRelayOptions } from "./postgres-relay.js";
export type { RelayPool, RelayPoolClient, RelayNotification } from "./pg-relay-types.js";
