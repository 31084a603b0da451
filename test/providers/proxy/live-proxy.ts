/**
 * Real servers for the proxy suites: scripted upstreams and Node proxies on 127.0.0.1,
 * all closed (every one, whichever close fails) after each test.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";
import { toNodeListener } from "../../../src/providers/proxy/node.js";
import type { TestServer } from "../support/http-server.js";

/** Registers the clean-up; returns how to keep an upstream and how to serve a handler. */
export function liveProxies(): { keep: (server: TestServer) => TestServer; listen: (handler: (request: Request) => Promise<Response>) => Promise<string> } {
  const servers: TestServer[] = [];
  // Every proxy a test started, not only the last one: each is closed even when another's close fails.
  const proxies: Server[] = [];
  const closeProxy = (proxy: Server): Promise<void> => {
    proxy.closeAllConnections();
    return new Promise<void>((resolve, reject) => proxy.close((error) => (error ? reject(error) : resolve())));
  };
  afterEach(async () => {
    const closed = await Promise.allSettled([...servers.splice(0).map((s) => s.close()), ...proxies.splice(0).map(closeProxy)]);
    const failed = closed.find((result): result is PromiseRejectedResult => result.status === "rejected");
    if (failed) throw failed.reason;
  });
  return {
    keep: (server) => (servers.push(server), server),
    /** Serves `handler` through `toNodeListener` and returns its URL. */
    listen: async (handler) => {
      const server = createServer(toNodeListener(handler));
      proxies.push(server);
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/stream`;
    },
  };
}
