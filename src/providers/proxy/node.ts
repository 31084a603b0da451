/// <reference types="node" />
/**
 * `rxagent/proxy/node`: serves a fetch-style handler (such as the proxy's) from Node's `http`
 * module, Express or Fastify's raw mode. Node-only, so it lives in its own entry point and the
 * browser entries never import it.
 *
 * @module
 */
export { type FetchHandler, toNodeListener } from "./node-listener.js";
export { createProxyServer, type ProxyServerOptions } from "./node-server.js";
