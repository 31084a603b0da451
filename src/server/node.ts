/// <reference types="node" />
/**
 * `rxagent/server/node`: the session server on Node's `http`: `toNodeListener(server.handle)`
 * is a request listener (the same adapter as `rxagent/proxy/node`'s).
 *
 * @example
 * ```ts
 * import { createServer } from "node:http";
 * import { createSessionServer } from "rxagent/server";
 * import { toNodeListener } from "rxagent/server/node";
 * createServer(toNodeListener(createSessionServer({ agentFor, authenticate, authorize }).handle)).listen(8787, "127.0.0.1");
 * ```
 *
 * @module
 */
export { toNodeListener, type FetchHandler } from "../providers/proxy/node-listener.js";
