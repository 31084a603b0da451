/**
 * The Angular example's server: the built app and its model endpoint on one origin, so the
 * app's `streamProxy({ url: "/api/stream" })` needs no CORS and the provider key stays here.
 *
 *   npx tsx examples/angular/server.ts      ng build into examples/angular/dist, then serve
 *                                           http://127.0.0.1:4200 (PORT to change)
 *
 *   npx tsx examples/angular/server.ts --sessions --store .sessions
 *                                           the agent runs on this server instead: the page
 *                                           follows session "chat" (or ?session=<id>) with a
 *                                           RemoteAgent; journals in the --store folder
 *
 * Upstream is the embedded demo model unless OPENAI_BASE_URL (with OPENAI_API_KEY,
 * OPENAI_MODEL) is set. Clients must send the bearer token PROXY_TOKEN (default `dev-token`,
 * what the app's `Session` holds). The other flags: `--port N` (PORT), `--browser-dir DIR` (serve
 * a build, no `ng build`), `--delay-ms N` (the demo model's pace), `--tool-speed X` (the tools'
 * delays times X). test/e2e/angular.test.ts uses `buildApp` and `startAppServer`;
 * test/e2e/angular-remote.test.ts runs this file as a process in `--sessions` mode.
 */
import { spawn } from "node:child_process";
import { createReadStream, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import type { AddressInfo } from "node:net";
import { extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { Model, StreamFn } from "../../src/index.js";
import { createProxyHandler } from "../../src/providers/proxy/index.js"; // in your app: from "rxagent/proxy"
import { toNodeListener } from "../../src/providers/proxy/node.js"; // in your app: from "rxagent/proxy/node"
import { demoModel } from "../../demo/demo-model.js";
import { upstreamFromEnv } from "../web/proxy-server.js";
import { createAppSessions } from "./app-sessions.js";
import type { AgentChoice } from "./src/app/agent-choice.js";

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
  /**
   * Runs the agent here: a session server under `/sessions` (see app-sessions.ts), and
   * `/config.json` tells the page to follow session `chat` with a `RemoteAgent`. Without it the
   * page runs its own agent on `/api/stream`.
   */
  sessions?: {
    /** The folder of the sessions' journals: a restarted server resumes them. */
    directory: string;
    /** Multiplies the tools' delays. Default 1. */
    toolSpeed?: number;
  };
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
  const streamFn = options.streamFn ?? demoModel();
  const token = options.token ?? "dev-token";
  const handler = createProxyHandler({
    streamFn,
    token,
    // The server defines what is called: the app's model, answered by `streamFn`, or the pinned one.
    ...(options.resolveModel ? { resolveModel: options.resolveModel } : { models: [APP_MODEL] }),
  });
  const api = toNodeListener(handler);
  const sessions = options.sessions && createAppSessions({
      directory: options.sessions.directory,
      token,
      streamFn,
      toolSpeed: options.sessions.toolSpeed ?? 1,
      ...(options.resolveModel ? { model: options.resolveModel() } : {}),
    });
  const sessionsApi = sessions && toNodeListener(sessions.handle);
  // What the page reads before it starts (src/app/agent-choice.ts): which agent to make.
  const config: AgentChoice = sessions ? { agent: "remote", session: "chat" } : { agent: "local" };
  const server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? "/").split("?")[0]!);
    if (path === "/api/stream") return api(req, res);
    if (sessionsApi && path.startsWith("/sessions/")) return sessionsApi(req, res);
    if (path === "/config.json") return res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify(config));
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
  server.on("close", () => sessions?.close());
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

// Run directly: build (unless given a build), then serve.
if (import.meta.url === `file://${process.argv[1]}`) {
  const env = process.env;
  const { values: flags } = parseArgs({
    options: {
      sessions: { type: "boolean", default: false },
      // Kept across restarts of this server; outside the repository.
      store: { type: "string", default: join(tmpdir(), "rxagent-angular-sessions") },
      port: { type: "string", default: env.PORT ?? "4200" },
      "browser-dir": { type: "string" },
      "delay-ms": { type: "string" },
      "tool-speed": { type: "string", default: "1" },
    },
  });
  const upstreamChoice = upstreamFromEnv(env);
  const { resolveModel, upstream } = upstreamChoice;
  const streamFn = upstreamChoice.streamFn ?? (flags["delay-ms"] !== undefined ? demoModel({ delayMs: Number(flags["delay-ms"]) }) : undefined);
  let browserDir = flags["browser-dir"];
  if (browserDir === undefined) {
    console.log("Building the app (ng build)…");
    browserDir = await buildApp();
  }
  const { url } = await startAppServer({
    browserDir,
    port: Number(flags.port),
    token: env.PROXY_TOKEN ?? "dev-token",
    ...(streamFn ? { streamFn } : {}),
    ...(resolveModel ? { resolveModel } : {}),
    ...(flags.sessions ? { sessions: { directory: resolve(flags.store), toolSpeed: Number(flags["tool-speed"]) } } : {}),
  });
  const where = flags.sessions ? `, the agent on this server, sessions in ${resolve(flags.store)}` : "";
  console.log(`rxagent Angular example on ${url} (model: ${upstream}${where})`);
}
