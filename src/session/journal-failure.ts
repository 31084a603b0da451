/**
 * What an Agent's state says when its session's journal could not be written (SPEC S6, T3): a
 * store error, a fence, an entry that cannot be serialised. The run ends with this text as its
 * error and the session closes itself; `resume()` opens it again from what is on record.
 *
 * @module
 */
import { describeError } from "../model/describe-error.js";
import { redactSecrets } from "../model/redact-secrets.js";
import { SessionFencedError } from "./session-errors.js";

/** The longest part of a store's own error kept in the text (a store may echo a whole entry). */
const MAX_REASON = 300;

/**
 * The error text for a journal write that failed: the session, the reason (credentials taken out,
 * cut to a readable length), and what to do next.
 *
 * @example
 * ```ts
 * journalFailureText("chat-1", new RangeError("Maximum call stack size exceeded"));
 * // 'The session journal could not be written: Maximum call stack size exceeded. The session "chat-1" is closed: call resume() to open it again from what is on record.'
 * ```
 */
export function journalFailureText(sessionId: string, error: unknown): string {
  let reason = redactSecrets(describeError(error));
  if (reason.length > MAX_REASON) reason = `${reason.slice(0, MAX_REASON)}…`;
  const next = error instanceof SessionFencedError ? "another writer holds it now" : "call resume() to open it again from what is on record";
  // A sentence ends the reason before what follows: a store's message may end with one already.
  const stop = /[.!?]$/.test(reason) ? "" : ".";
  return `The session journal could not be written: ${reason}${stop} The session "${sessionId}" is closed: ${next}.`;
}
