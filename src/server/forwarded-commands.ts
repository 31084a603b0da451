/**
 * Commands between instances: the instance a command reached, which does not host the session,
 * forwards it through the relay (after `authenticate` and `authorize`, as always); the instance
 * that hosts it parses it again (what comes through the database is not trusted either),
 * applies it as its own and answers. What the sender returns of an answer is held to the
 * answers a host gives: a known status, and `{ at }` or `{ error }` as short strings.
 *
 * @module
 */
import { applyCommand, parseCommand } from "./session-command.js";
import type { SessionHosts } from "./session-hosts.js";
import type { ForwardedAnswer } from "./session-relay.js";

const STATUSES = new Set([202, 400, 409, 500, 503]);

/**
 * Applies `body`, a command another instance forwarded, to session `sessionId` when this
 * instance hosts it now.
 *
 * @example
 * ```ts
 * relay.commands?.serve(() => hosts.hostedIds(), (id, body) => applyForwarded(hosts, id, body, onError));
 * ```
 */
export async function applyForwarded(hosts: SessionHosts, sessionId: string, body: unknown, onError: (error: unknown, sessionId: string) => void): Promise<ForwardedAnswer> {
  const command = parseCommand(body);
  if ("status" in command) return { status: command.status, body: { error: command.error } };
  const session = hosts.hostedNow(sessionId);
  if (!session) return { status: 503, body: { error: "The session's host let it go; try again." } };
  try {
    const at = session.log.lastId;
    const refused = await applyCommand(session, command, (error) => onError(error, sessionId));
    return refused ? { status: refused.status, body: { error: refused.error } } : { status: 202, body: { at } };
  } catch (error) {
    onError(error, sessionId);
    return { status: 500, body: { error: "The server failed to handle the request." } };
  }
}

/** `answer` (read from the database) as this instance may send it on: a known status and short strings only. */
export function checkedAnswer(answer: ForwardedAnswer): ForwardedAnswer {
  const body = (typeof answer?.body === "object" && answer.body !== null ? answer.body : {}) as Record<string, unknown>;
  if (!STATUSES.has(answer?.status)) return { status: 502, body: { error: "The session's host answered what no host answers." } };
  if (answer.status === 202) return typeof body.at === "string" && body.at.length <= 200 ? { status: 202, body: { at: body.at } } : { status: 502, body: { error: "The session's host answered what no host answers." } };
  return { status: answer.status, body: { error: typeof body.error === "string" ? body.error.slice(0, 1000) : "Refused by the session's host." } };
}
