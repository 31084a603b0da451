/**
 * The example proxy server: the browser streams through it, so the provider key stays here.
 *
 *   npx tsx examples/web/proxy-server.ts                 upstream: the embedded demo model
 *   OPENAI_BASE_URL=… OPENAI_API_KEY=… OPENAI_MODEL=… npx tsx examples/web/proxy-server.ts
 *
 * Then open the page with `?proxy=/api/stream` (Vite forwards /api here). Clients must send the
 * bearer token PROXY_TOKEN (default `dev-token`; in a real app, check the user's session in
 * `authorize`). The server defines the model it calls (`models`): the page's model only names it,
 * and nothing else of it (base URL, headers, provider) is used. With a real upstream,
 * `resolveModel` pins every other id the page asks for to that model.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Model, StreamFn } from "../../src/index.js";
import { openaiCompatible } from "../../src/providers/openai/index.js"; // in your app: from "rxagent/openai"
import { createProxyHandler } from "../../src/providers/proxy/index.js"; // in your app: from "rxagent/proxy"
import { createProxyServer } from "../../src/providers/proxy/node.js"; // in your app: from "rxagent/proxy/node"
import { DEMO_MODEL, demoModel } from "../../demo/demo-model.js";

export interface ProxyServerOptions {
  port?: number;
  token?: string;
  env?: NodeJS.ProcessEnv;
}

/** The model behind the proxy, from `OPENAI_BASE_URL` (+ `OPENAI_API_KEY`, `OPENAI_MODEL`); the demo model when unset. */
export interface EnvUpstream {
  streamFn?: StreamFn;
  /** The server's model: what is called, with the server's cap on output tokens. */
  model: Model;
  /** With a real upstream: any other id the page asks for is answered by `model`. */
  resolveModel?: () => Model;
  /** For the log line. */
  upstream: string;
}

/** The OpenAI-compatible server the environment names, or nothing (then the demo model). */
export function upstreamFromEnv(env: NodeJS.ProcessEnv): EnvUpstream {
  if (!env.OPENAI_BASE_URL) return { model: DEMO_MODEL, upstream: "the embedded demo model" };
  const model: Model = { id: env.OPENAI_MODEL ?? "gpt-4o-mini", api: "openai-completions", provider: "openai", maxTokens: 4096 };
  return {
    // The base URL and key are the server's, fixed here: nothing the page sends can change them.
    streamFn: openaiCompatible({ baseUrl: env.OPENAI_BASE_URL, ...(env.OPENAI_API_KEY ? { apiKey: env.OPENAI_API_KEY } : {}) }),
    model,
    resolveModel: () => model,
    upstream: `${model.id} at ${env.OPENAI_BASE_URL}`,
  };
}

/** Starts the proxy; resolves with the server and its URL once it listens. */
export async function startProxyServer(options: ProxyServerOptions = {}): Promise<{ server: Server; url: string; upstream: string }> {
  const env = options.env ?? process.env;
  const { streamFn = demoModel(), model, resolveModel, upstream } = upstreamFromEnv(env);
  const proxy = createProxyHandler({
    streamFn,
    token: options.token ?? env.PROXY_TOKEN ?? "dev-token",
    models: [model],
    ...(resolveModel ? { resolveModel } : {}),
    maxConcurrentPerToken: 4,
  });
  // createProxyServer sets deadlines for slow clients (headers 10 s, whole request 60 s).
  const server = createProxyServer((request) =>
    new URL(request.url).pathname === "/api/stream" ? proxy(request) : Response.json({ error: "POST /api/stream" }, { status: 404 }),
  );
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
