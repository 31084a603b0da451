/**
 * The session server: agents run here, with their keys, tools and durable sessions, and any
 * number of pages follow and command them. A fetch-style handler (`(request) =>
 * Promise<Response>`), like `createProxyHandler`; `rxagent/server/node` serves it on Node's
 * `http`.
 *
 * - `GET {basePath}/{id}/events`: the session's entries as server-sent events. `Last-Event-ID`
 *   (or `?after=`) resumes: the entries after it while this process holds them, else the state
 *   at the last checkpoint then the entries after it; then live, with heartbeats.
 * - `POST {basePath}/{id}/commands`: one command (JSON): prompt, steer, follow_up, abort,
 *   approve, deny. `202 { at }` when applied; the run lives on the server, and a follower that
 *   goes away stops nothing.
 *
 * @module
 */
import type { Agent } from "../agent/agent.js";
import { declaredTooLarge, readBodyText } from "../providers/proxy/proxy-body.js";
import { eventStreamBody } from "./event-stream.js";
import { HostedSession } from "./hosted-session.js";
import { applyCommand, parseCommand, type SessionAction } from "./session-command.js";
import { resolveServerOptions, type SessionServerOptions } from "./session-server-options.js";

export type { SessionServerOptions } from "./session-server-options.js";

/** A session server: its handler, and `close()` to stop hosting (the Agents stay the app's). */
export interface SessionServer {
  handle(request: Request): Promise<Response>;
  close(): void;
}

const SESSION_ID = /^[A-Za-z0-9._~-]{1,128}$/;

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", "cache-control": "no-store", ...headers } });
}

function randomEpoch(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(9));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Creates a session server. `authenticate` runs before anything else is read, `authorize` on
 * every watch and command (with the command's type): there is no open mode.
 *
 * Answers: `404` to another path or a session id that is not `[A-Za-z0-9._~-]{1,128}`; `405` to
 * another method; `401` when `authenticate` finds no one (before the body); `403` when
 * `authorize` refuses; `413`/`408` to a body too large or too slow; `400` to a command that is
 * not one; `409` to a command the Agent would refuse now (a prompt while a run goes, an answer
 * for a call that does not wait); `500` when a hook throws (its error is not sent).
 *
 * @example
 * ```ts
 * import { createSessionServer } from "rxagent/server";
 * const server = createSessionServer({
 *   agentFor: (id) => new Agent({ streamFn, initialState: { model, tools }, session: agentSession({ store, id }) }),
 *   authenticate: (request) => users.fromCookie(request.headers.get("cookie")),
 *   authorize: (user, sessionId) => user.sessions.includes(sessionId),
 * });
 * Bun.serve({ fetch: server.handle });
 * ```
 */
export function createSessionServer(options: SessionServerOptions): SessionServer {
  const settings = resolveServerOptions(options);
  const hosted = new Map<string, Promise<HostedSession>>();
  const epoch = randomEpoch();

  const host = (id: string): Promise<HostedSession> => {
    let session = hosted.get(id);
    if (!session) {
      session = Promise.resolve(options.agentFor(id)).then((agent: Agent) => {
        const hostedSession = new HostedSession(agent, epoch, settings.maxReplayBytes);
        settings.onHosted?.(id, agent);
        return hostedSession;
      });
      // A factory that failed is asked again next time.
      session.catch(() => hosted.delete(id));
      hosted.set(id, session);
    }
    return session;
  };

  const handle = async (request: Request): Promise<Response> => {
    try {
      const url = new URL(request.url);
      if (!url.pathname.startsWith(`${settings.basePath}/`)) return json(404, { error: "Not found" });
      const [id, part, ...rest] = url.pathname.slice(settings.basePath.length + 1).split("/");
      if (id === undefined || !SESSION_ID.test(id) || rest.length > 0 || (part !== "events" && part !== "commands")) return json(404, { error: "Not found" });
      const method = part === "events" ? "GET" : "POST";
      if (request.method !== method) return json(405, { error: `Use ${method}` }, { allow: method });
      const principal = await options.authenticate(request);
      if (principal === undefined || principal === null || principal === false) return json(401, { error: "Not authenticated" });
      if (part === "events") {
        if (!(await options.authorize(principal, id, "watch"))) return json(403, { error: "Not allowed" });
        const session = await host(id);
        const lastId = request.headers.get("last-event-id") ?? url.searchParams.get("after");
        const body = eventStreamBody(session.follow(lastId), (n) => session.log.idOf(n), settings);
        return new Response(body, { status: 200, headers: { "content-type": "text/event-stream", "cache-control": "no-store", "x-accel-buffering": "no" } });
      }
      const tooLarge = declaredTooLarge(request, settings.maxBodyBytes);
      if (tooLarge) return json(tooLarge.status, { error: tooLarge.error });
      const text = await readBodyText(request, settings.maxBodyBytes, settings.bodyTimeoutMs);
      if (typeof text !== "string") return json(text.status, { error: text.error });
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return json(400, { error: "The body is not JSON." });
      }
      const command = parseCommand(body);
      if ("status" in command) return json(command.status, { error: command.error });
      if (!(await options.authorize(principal, id, command.type as SessionAction))) return json(403, { error: "Not allowed" });
      const session = await host(id);
      const at = session.log.lastId;
      const refused = applyCommand(session.agent, command, (error) => settings.onError(error, id));
      return refused ? json(refused.status, { error: refused.error }) : json(202, { at });
    } catch (error) {
      settings.onError(error, undefined);
      return json(500, { error: "The server failed to handle the request." });
    }
  };

  return {
    handle,
    close() {
      for (const session of hosted.values()) session.then((s) => s.close(), () => undefined);
      hosted.clear();
    },
  };
}
