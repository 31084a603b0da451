/**
 * `rxagent/server`: the session server. Agents run on the server — keys, tools, database and
 * durable sessions there — and pages follow and command them over server-sent events and POST
 * (`rxagent/remote` is the page's side). A fetch-style handler, for any runtime with web
 * `Request`/`Response`; `rxagent/server/node` serves it on Node's `http`.
 *
 * @example
 * ```ts
 * import { createSessionServer } from "rxagent/server";
 * const server = createSessionServer({ agentFor, authenticate, authorize });
 * Deno.serve(server.handle);
 * ```
 *
 * @module
 */
export { createSessionServer, type SessionServer, type SessionServerOptions } from "./session-server.js";
export type { SessionAction, SessionCommand } from "./session-command.js";
export type { CommandRelay, ForwardedAnswer, RelayEntry, RelayRecord, RelayRole, SessionRelay } from "./session-relay.js";
