/// <reference types="node" />
/**
 * A Node `http.Server` for a fetch-style handler, with deadlines for slow clients (Node-only).
 *
 * @module
 */
import { createServer, type Server } from "node:http";
import { type FetchHandler, toNodeListener } from "./node-listener.js";

/** Connection limits of {@link createProxyServer}. Node's own defaults are far looser (300 s to send a request). */
export interface ProxyServerOptions {
  /** Time to receive a request's headers, in ms (`server.headersTimeout`). Default 10 000. */
  headersTimeoutMs?: number | undefined;
  /** Time to receive a whole request, headers and body, in ms (`server.requestTimeout`). Default 60 000. */
  requestTimeoutMs?: number | undefined;
  /** How long an idle keep-alive connection stays open, in ms (`server.keepAliveTimeout`). Default 5 000. */
  keepAliveTimeoutMs?: number | undefined;
  /** How often Node checks the two request deadlines, in ms (`connectionsCheckingInterval`). Default 1 000. */
  connectionsCheckingIntervalMs?: number | undefined;
  /** Most headers read per request (`server.maxHeadersCount`). Default 100. */
  maxHeadersCount?: number | undefined;
  /** Largest header block in bytes (`maxHeaderSize`). Default 16 384. */
  maxHeaderSize?: number | undefined;
}

/**
 * Creates an `http.Server` that serves `handler` through {@link toNodeListener}, with
 * deadlines set for slow or idle clients: a connection that does not finish its headers within
 * `headersTimeoutMs`, or its request within `requestTimeoutMs`, is answered 408 and closed.
 * A streaming response is not cut short: there is no idle timeout on an open response.
 *
 * @example
 * ```ts
 * import { createProxyHandler } from "rxagent/proxy";
 * import { createProxyServer } from "rxagent/proxy/node";
 *
 * createProxyServer(createProxyHandler({ streamFn, models, token: process.env.PROXY_TOKEN })).listen(8787, "127.0.0.1");
 * ```
 * @param handler - The fetch-style handler (the proxy's, or one that routes to it).
 * @param options - Deadlines and header limits.
 * @return The server, not yet listening.
 */
export function createProxyServer(handler: FetchHandler, options: ProxyServerOptions = {}): Server {
  const server = createServer(
    {
      headersTimeout: options.headersTimeoutMs ?? 10_000,
      requestTimeout: options.requestTimeoutMs ?? 60_000,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 5_000,
      connectionsCheckingInterval: options.connectionsCheckingIntervalMs ?? 1_000,
      maxHeaderSize: options.maxHeaderSize ?? 16_384,
    },
    toNodeListener(handler),
  );
  server.maxHeadersCount = options.maxHeadersCount ?? 100;
  server.timeout = 0;
  return server;
}
