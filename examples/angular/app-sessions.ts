/**
 * The Angular example's session server: the agent runs here, not in the page. Each session id
 * gets an Agent on the demo model with the app's tools, journaled in a `FileSessionStore`
 * folder, so a restarted server finishes what the last process left open. Pages follow a
 * session with `RemoteAgent` (`/sessions/{id}/events`) and command it
 * (`/sessions/{id}/commands`), with the same bearer token as `/api/stream`.
 *
 * server.ts mounts it under `/sessions` when started with `--sessions`.
 */
import { distinctUntilChanged, map, skip, type Subscription, tap } from "rxjs";
import { Agent, type AgentTool, type Model, type StreamFn } from "../../src/index.js"; // in your app: from "rxagent"
import { bearerToken, tokenMatcher } from "../../src/providers/proxy/proxy-auth.js";
import { createSessionServer, type SessionServer } from "../../src/server/index.js"; // in your app: from "rxagent/server"
import { agentSession } from "../../src/session/index.js"; // in your app: from "rxagent/session"
import { FileSessionStore } from "../../src/session/stores/file-store.js"; // in your app: from "rxagent/session/file"
import { demoModel } from "../../demo/demo-model.js";
import { APP_MODEL, appTools } from "./src/app/local-agent.js";

/** Options of {@link createAppSessions}. */
export interface AppSessionsOptions {
  /** The folder of the sessions' journals (one JSONL file per session). */
  directory: string;
  /** The bearer token pages must send. */
  token: string;
  /** The model. Default: the embedded demo model. */
  streamFn?: StreamFn;
  /** The model the Agents ask `streamFn` for. Default: the app's (`APP_MODEL`). */
  model?: Model;
  /** Multiplies the tools' delays (the weather service's steps). Default 1. */
  toolSpeed?: number;
  /** Where each run's start and end is told. Default `console.log`. */
  log?: (line: string) => void;
}

/**
 * The app's tools on the server. The weather and the calculator only read, so a restarted
 * server may run a call again that the crash cut short (`replay: "safe"`); the clock still asks
 * the user first.
 */
export function serverTools(toolSpeed = 1): AgentTool[] {
  return appTools({ speed: toolSpeed }).map((tool) => (tool.needsApproval ? tool : { ...tool, replay: "safe" }));
}

/**
 * The session server of the app: `handle` answers `/sessions/…` (fetch-style), `close()` lets
 * every session go and gives their leases back.
 *
 * @example
 * ```ts
 * const sessions = createAppSessions({ directory: ".sessions", token: "dev-token" });
 * createServer(toNodeListener(sessions.handle)).listen(8787, "127.0.0.1");
 * ```
 */
export function createAppSessions(options: AppSessionsOptions): SessionServer {
  const store = new FileSessionStore({ directory: options.directory });
  const streamFn = options.streamFn ?? demoModel();
  const tools = serverTools(options.toolSpeed);
  const log = options.log ?? ((line: string) => console.log(line));
  const matches = tokenMatcher(options.token);
  const watching = new Map<string, Subscription>();

  return createSessionServer({
    agentFor: (id) => {
      const agent = new Agent({
        streamFn,
        initialState: { systemPrompt: "Be brief. Use the tools.", model: options.model ?? APP_MODEL, tools },
        session: agentSession({ store, id }),
      });
      // The server's side of a run, for whoever runs it: when it starts and how it ends.
      const runs = agent.state$.pipe(
        map((state) => state.isStreaming),
        distinctUntilChanged(),
        skip(1),
      );
      watching.set(id, runs.subscribe((streaming) => log(streaming ? `session ${id}: run started` : `session ${id}: run ended (${agent.state.outcome ?? "no outcome"})`)));
      return agent;
    },
    // The journal may hold a run a killed process left open: the server serves the session once
    // the resume has begun, and the resumed run goes on in front of its followers.
    onHosted: (id, agent) =>
      agent.resume$().pipe(
        // Not hosted: the next request makes a new Agent.
        tap({ error: () => watching.get(id)?.unsubscribe() }),
      ),
    onReleased: (id, agent) => {
      watching.get(id)?.unsubscribe();
      watching.delete(id);
      void agent.closeSession().catch(() => undefined);
    },
    // One user, the token's holder, who may do anything with any session.
    authenticate: async (request) => ((await matches(bearerToken(request))) ? "user" : undefined),
    authorize: () => true,
  });
}
