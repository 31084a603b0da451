/**
 * Real servers for the proxy suites: scripted upstreams and one Node proxy on 127.0.0.1 per test,
 * all closed after each test.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";
import { toNodeListener } from "../../../src/providers/proxy/node.js";
import type { TestServer } from "../support/http-server.js";

/** Registers the clean-up; returns how to keep an upstream and how to serve a handler. */
export function liveProxies(): { keep: (server: TestServer) => TestServer; listen: (handler: (request: Request) => Promise<Response>) => Promise<string> } {
  const servers: TestServer[] = [];
  let proxy: Server | undefined;
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
    if (proxy) {
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy!.close(() => resolve()));
      proxy = undefined;
    }
  });
  return {
    keep: (server) => (servers.push(server), server),
    /** Serves `handler` through `toNodeListener` and returns its URL. */
    listen: async (handler) => {
      const server = (proxy = createServer(toNodeListener(handler)));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/stream`;
    },
  };
}
