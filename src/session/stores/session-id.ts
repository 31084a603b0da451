/**
 * The one rule for session ids that the file and PostgreSQL stores check before touching disk or
 * database: an id must survive as a file name (through an encoding) and as PostgreSQL `text`.
 *
 * @module
 */
import { SessionIdError } from "../session-errors.js";

/**
 * The longest session id, in UTF-16 code units: at most 1 536 bytes of UTF-8, well inside
 * PostgreSQL's limit on an index entry, and long enough for any key an app composes.
 */
export const MAX_SESSION_ID_LENGTH = 512;

/** A lone high surrogate, or a lone low one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Returns `id` when a store can keep it; otherwise throws `SessionIdError` naming the rule it
 * breaks: non-empty, well-formed UTF-16 (a lone surrogate has no UTF-8 form, so it would not
 * survive a file name or the database), no NUL (PostgreSQL `text` cannot hold it), at most
 * {@link MAX_SESSION_ID_LENGTH} characters.
 *
 * @example
 * ```ts
 * checkSessionId("chat-1"); // "chat-1"
 * checkSessionId("a\u0000b"); // throws SessionIdError: it holds NUL
 * ```
 */
export function checkSessionId(id: string): string {
  if (typeof id !== "string") throw new SessionIdError(String(id), `it is a ${id === null ? "null" : typeof id}, not a string`);
  if (id === "") throw new SessionIdError(id, "it is empty");
  if (id.length > MAX_SESSION_ID_LENGTH) throw new SessionIdError(id, `it has ${id.length} characters; at most ${MAX_SESSION_ID_LENGTH} characters are allowed`);
  if (id.includes("\u0000")) throw new SessionIdError(id, "it holds NUL (U+0000)");
  if (LONE_SURROGATE.test(id)) throw new SessionIdError(id, "it is not well-formed UTF-16: it holds a lone surrogate");
  return id;
}
