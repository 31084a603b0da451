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
 * With a `relay`, several instances share one database: a session whose lease another instance
 * holds is followed through the relay, and its commands are forwarded to the host (a 409
 * when the relay cannot forward, a 504 when no host answered in time).
 *
 * @module
 */
import { Subject } from "rxjs";
import { declaredTooLarge, readBodyText } from "../providers/proxy/proxy-body.js";
import { eventStreamBody } from "./event-stream.js";
import { applyForwarded, checkedAnswer } from "./forwarded-commands.js";
import { RelayPublisher } from "./relay-publisher.js";
import { relayedEventStream } from "./relayed-events.js";
import { HostedElsewhere, HostingRefusal, SessionHosts } from "./session-hosts.js";
import { applyCommand, parseCommand, type SessionAction } from "./session-command.js";
import { resolveServerOptions, type SessionServerOptions } from "./session-server-options.js";

export type { SessionServerOptions } from "./session-server-options.js";

/** A session server: its handler, and `close()` to stop hosting and serving (the Agents stay the app's). */
export interface SessionServer {
  handle(request: Request): Promise<Response>;
  close(): void;
}

const SESSION_ID = /^[A-Za-z0-9._~-]{1,128}$/;

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", "cache-control": "no-store", ...headers } });
}

/**
 * Creates a session server. `authenticate` runs before anything else is read, `authorize` on
 * every watch and command (with the command's type): there is no open mode.
 *
 * Answers: `404` to another path, a session id that is not `[A-Za-z0-9._~-]{1,128}`, or one
 * `agentFor` has no Agent for; `405` to another method; `401` when `authenticate` finds no one
 * (before the body); `403` when `authorize` refuses; `415` to a command that is not
 * `application/json`; `413`/`408` to a body too large or too slow; `400` to a command that is
 * not one; `409` to a command the Agent refuses (a prompt while a run goes, or one it cannot
 * start, with its text; an answer for a call that does not wait); `503` past `maxSessions` with
 * none idle, and once closed; `500` when a hook throws (its error goes to `onError`, not the client).
 * With a `relay`, a command for a session another instance hosts gets that instance's answer, or
 * `504` when none came within `relayCommandTimeoutMs`.
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
  const publisher = settings.relay
    ? new RelayPublisher({ relay: settings.relay, onError: settings.onError, checkpointBytes: settings.relayCheckpointBytes, maxQueueBytes: settings.relayQueueBytes, retryMs: 1000, scheduler: settings.scheduler })
    : undefined;
  let serving: { stop(): void; wake(): void } | undefined;
  const hosts = new SessionHosts({ ...settings, agentFor: options.agentFor, publisher, onRunning: () => serving?.wake() });
  // Commands other instances forward to the sessions hosted here.
  serving = settings.relay?.commands?.serve(
    () => hosts.hostedIds(),
    (id, body) => applyForwarded(hosts, id, body, settings.onError),
  );
  // Ends the streams served from the relay when the server closes (hosted ones end with their sessions).
  const closing = new Subject<void>();
  const streamHeaders = { "content-type": "text/event-stream", "cache-control": "no-store", "x-accel-buffering": "no" };

  const handle = async (request: Request): Promise<Response> => {
    let sessionId: string | undefined;
    try {
      if (hosts.isClosed) return json(503, { error: "The server is closing." });
      const url = new URL(request.url);
      if (!url.pathname.startsWith(`${settings.basePath}/`)) return json(404, { error: "Not found" });
      const [id, part, ...rest] = url.pathname.slice(settings.basePath.length + 1).split("/");
      if (id === undefined || !SESSION_ID.test(id) || rest.length > 0 || (part !== "events" && part !== "commands")) return json(404, { error: "Not found" });
      sessionId = id;
      const method = part === "events" ? "GET" : "POST";
      if (request.method !== method) return json(405, { error: `Use ${method}` }, { allow: method });
      const principal: unknown = await options.authenticate(request);
      if (!principal) return json(401, { error: "Not authenticated" });
      if (part === "events") {
        if (!(await options.authorize(principal, id, "watch"))) return json(403, { error: "Not allowed" });
        const lastId = request.headers.get("last-event-id") ?? url.searchParams.get("after");
        const session = await hosts.host(id).catch((error: unknown) => {
          if (error instanceof HostedElsewhere && settings.relay) return relayedEventStream(settings.relay, id, lastId, settings, closing, settings.onError);
          throw error;
        });
        if (session instanceof ReadableStream) return new Response(session, { status: 200, headers: streamHeaders });
        // The replay is read and the live entries joined in this one synchronous step.
        const { head, live } = session.follow(lastId);
        const body = eventStreamBody(head, live, (entry) => session.log.idOf(entry.n), settings);
        return new Response(body, { status: 200, headers: streamHeaders });
      }
      // JSON only: a page of another site cannot send it without CORS (no form, no text/plain).
      if (!/^application\/json\s*(;|$)/i.test(request.headers.get("content-type") ?? "")) return json(415, { error: "Commands are JSON: send content-type: application/json." });
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
      const session = await hosts.host(id).catch((error: unknown) => {
        if (error instanceof HostedElsewhere && settings.relay?.commands) return undefined;
        throw error;
      });
      if (!session) {
        const answer = await settings.relay!.commands!.forward(id, command, settings.relayCommandTimeoutMs);
        if (!answer) return json(504, { error: "The session's host did not answer in time." });
        const checked = checkedAnswer(answer);
        return json(checked.status, checked.body);
      }
      const at = session.log.lastId;
      const refused = await applyCommand(session, command, (error) => settings.onError(error, id));
      return refused ? json(refused.status, { error: refused.error }) : json(202, { at });
    } catch (error) {
      if (error instanceof HostingRefusal) return json(error.status, { error: error.message });
      // A relay without `commands`: the client must send them to the host.
      if (error instanceof HostedElsewhere) return json(409, { error: error.message });
      settings.onError(error, sessionId);
      return json(500, { error: "The server failed to handle the request." });
    }
  };

  return {
    handle,
    close: () => {
      serving?.stop();
      hosts.close();
      closing.next();
      closing.complete();
      // What is queued is still published (the last entries of the runs); nothing waits for it.
      publisher?.close().catch((error: unknown) => settings.onError(error, undefined));
    },
  };
}
