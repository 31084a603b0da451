/**
 * The example proxy server: the browser streams through it, so the provider key stays here.
 *
 *   npx tsx examples/web/proxy-server.ts                 upstream: the embedded demo model
 *   OPENAI_BASE_URL=… OPENAI_API_KEY=… OPENAI_MODEL=… npx tsx examples/web/proxy-server.ts
 *
 * Then open the page with `?proxy=/api/stream` (Vite forwards /api here). Clients must send the
 * bearer token PROXY_TOKEN (default `dev-token`; in a real app, check the user's session in
 * `authorize`). With a real upstream, `resolveModel` pins the model: the page cannot choose.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Model, StreamFn } from "../../src/index.js";
import { openaiCompatible } from "../../src/providers/openai/index.js"; // in your app: from "rxagent/openai"
import { createProxyHandler } from "../../src/providers/proxy/index.js"; // in your app: from "rxagent/proxy"
import { toNodeListener } from "../../src/providers/proxy/node.js"; // in your app: from "rxagent/proxy/node"
import { demoModel } from "../../demo/demo-model.js";

export interface ProxyServerOptions {
  port?: number;
  token?: string;
  env?: NodeJS.ProcessEnv;
}

/** The model behind the proxy, from `OPENAI_BASE_URL` (+ `OPENAI_API_KEY`, `OPENAI_MODEL`); none when unset. */
export interface EnvUpstream {
  streamFn?: StreamFn;
  resolveModel?: (requested: Model) => Model;
  /** For the log line. */
  upstream: string;
}

/** The OpenAI-compatible server the environment names, or nothing (then the demo model). */
export function upstreamFromEnv(env: NodeJS.ProcessEnv): EnvUpstream {
  if (!env.OPENAI_BASE_URL) return { upstream: "the embedded demo model" };
  const id = env.OPENAI_MODEL ?? "gpt-4o-mini";
  return {
    streamFn: openaiCompatible({ baseUrl: env.OPENAI_BASE_URL, ...(env.OPENAI_API_KEY ? { apiKey: env.OPENAI_API_KEY } : {}) }),
    resolveModel: () => ({ id, api: "openai-completions", provider: "openai" }),
    upstream: `${id} at ${env.OPENAI_BASE_URL}`,
  };
}

/** Starts the proxy; resolves with the server and its URL once it listens. */
export async function startProxyServer(options: ProxyServerOptions = {}): Promise<{ server: Server; url: string; upstream: string }> {
  const env = options.env ?? process.env;
  const { streamFn = demoModel(), resolveModel, upstream } = upstreamFromEnv(env);
  const handler = createProxyHandler({ streamFn, token: options.token ?? env.PROXY_TOKEN ?? "dev-token", ...(resolveModel ? { resolveModel } : {}) });
  const listener = toNodeListener(handler);
  const server = createServer((req, res) => {
    if (req.url?.split("?")[0] === "/api/stream") return listener(req, res);
    res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "POST /api/stream" }));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? Number(env.PORT ?? 8787), "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, upstream };
}

// Run directly: start and say where.
if (import.meta.url === `file://${process.argv[1]}`) {
  const { url, upstream } = await startProxyServer();
  console.log(`rxagent proxy on ${url}/api/stream → ${upstream}`);
  console.log("Open the page with ?proxy=/api/stream (npx vite examples/web, then http://127.0.0.1:5173/?proxy=/api/stream)");
}
