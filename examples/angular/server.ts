/**
 * The Angular example's server: the built app and its model endpoint on one origin, so the
 * app's `streamProxy({ url: "/api/stream" })` needs no CORS and the provider key stays here.
 *
 *   npx tsx examples/angular/server.ts      ng build into examples/angular/dist, then serve
 *                                           http://127.0.0.1:4200 (PORT to change)
 *
 * Upstream is the embedded demo model unless OPENAI_BASE_URL (with OPENAI_API_KEY,
 * OPENAI_MODEL) is set. Clients must send the bearer token PROXY_TOKEN (default `dev-token`,
 * what the app's `Session` holds). test/e2e/angular.test.ts uses `buildApp` and `startAppServer`.
 */
import { spawn } from "node:child_process";
import { createReadStream, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { Model, StreamFn } from "../../src/index.js";
import { createProxyHandler } from "../../src/providers/proxy/index.js"; // in your app: from "rxagent/proxy"
import { toNodeListener } from "../../src/providers/proxy/node.js"; // in your app: from "rxagent/proxy/node"
import { demoModel } from "../../demo/demo-model.js";
import { upstreamFromEnv } from "../web/proxy-server.js";

/** The Angular workspace: this folder. */
export const APP_DIR = fileURLToPath(new URL(".", import.meta.url));
const NG = join(APP_DIR, "../../node_modules/.bin/ng");

/**
 * Builds the app with the Angular CLI (`ng build`, the `@angular/build:application` builder,
 * production configuration) into `outputPath`; resolves with the folder of the browser files.
 * Rejects with the CLI's output when the build fails (type errors in code or templates included).
 * `extraArgs` go to `ng build` as they are (e.g. `--stats-json`).
 */
export function buildApp(outputPath = join(APP_DIR, "dist"), extraArgs: readonly string[] = []): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [NG, "build", "--output-path", outputPath, ...extraArgs], {
      cwd: APP_DIR,
      // No analytics prompt, no colours in the captured output.
      env: { ...process.env, NG_CLI_ANALYTICS: "false", NO_COLOR: "1", FORCE_COLOR: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", fail);
    child.on("exit", (code) => (code === 0 ? done(join(outputPath, "browser")) : fail(new Error(`ng build exited with ${code}:\n${output}`))));
  });
}

/** The model the app asks for (src/app/app.config.ts), as the server serves it. */
const APP_MODEL: Model = { id: "gpt-4o-mini", api: "openai-completions", provider: "openai" };

/** Options of {@link startAppServer}. */
export interface AppServerOptions {
  /** The folder with the built app's `index.html` (what {@link buildApp} resolves with). */
  browserDir: string;
  /** 0 lets the OS choose. Default 4200. */
  port?: number;
  /** The bearer token clients must send. Default `dev-token`. */
  token?: string;
  /** The upstream model. Default: the embedded demo model. */
  streamFn?: StreamFn;
  /** Pins the model, whatever the page asks for (it sees only the requested id and api). */
  resolveModel?: () => Model;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".txt": "text/plain; charset=utf-8",
  ".ico": "image/x-icon",
  ".svg": "image/svg+xml",
};

/** Starts the server on 127.0.0.1; resolves with it and its URL once it listens. */
export async function startAppServer(options: AppServerOptions): Promise<{ server: Server; url: string }> {
  const root = resolve(options.browserDir);
  const handler = createProxyHandler({
    streamFn: options.streamFn ?? demoModel(),
    token: options.token ?? "dev-token",
    // The server defines what is called: the app's model, answered by `streamFn`, or the pinned one.
    ...(options.resolveModel ? { resolveModel: options.resolveModel } : { models: [APP_MODEL] }),
  });
  const api = toNodeListener(handler);
  const server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? "/").split("?")[0]!);
    if (path === "/api/stream") return api(req, res);
    if (req.method !== "GET" && req.method !== "HEAD") return res.writeHead(405).end();
    let file = resolve(root, `.${path}`);
    // Nothing outside the build folder; unknown paths without an extension are app routes.
    if (file !== root && !file.startsWith(root + sep)) return res.writeHead(404).end();
    if (!isFile(file)) {
      if (extname(path)) return res.writeHead(404).end();
      file = join(root, "index.html");
    }
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((ready) => server.listen(options.port ?? 4200, "127.0.0.1", ready));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}` };
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

// Run directly: build, then serve.
if (import.meta.url === `file://${process.argv[1]}`) {
  const env = process.env;
  const { streamFn, resolveModel, upstream } = upstreamFromEnv(env);
  console.log("Building the app (ng build)…");
  const browserDir = await buildApp();
  const { url } = await startAppServer({
    browserDir,
    port: Number(env.PORT ?? 4200),
    token: env.PROXY_TOKEN ?? "dev-token",
    ...(streamFn ? { streamFn } : {}),
    ...(resolveModel ? { resolveModel } : {}),
  });
  console.log(`rxagent Angular example on ${url} (model: ${upstream})`);
}
