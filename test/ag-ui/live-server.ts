/**
 * A real Node server on 127.0.0.1 for the AG-UI suites: a handler served through
 * `toNodeListener`, closed after each test (connections included).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";
import { toNodeListener } from "../../src/providers/proxy/node.js";

/** Registers the clean-up; returns how to serve a handler (its URL). */
export function liveServers(): (handler: (request: Request) => Promise<Response>) => Promise<string> {
  const servers: Server[] = [];
  afterEach(async () => {
    const closing = servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve, reject) => {
          server.closeAllConnections();
          server.close((error) => (error ? reject(error) : resolve()));
        }),
    );
    await Promise.all(closing);
  });
  return async (handler) => {
    const server = createServer(toNodeListener(handler));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/ag-ui`;
  };
}
