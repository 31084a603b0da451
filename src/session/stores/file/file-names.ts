/**
 * How the file store names a session's files. A name is the id, percent-encoded so that it is
 * safe on every file system and tells ids apart even where names are compared without case:
 * `encodeURIComponent`, and also `.`, `*` and the capital letters A–Z as `%XX` (escapes
 * themselves use capital hex digits only, so lowercasing a name never makes it another's). A name
 * that would be longer than {@link READABLE_MAX} characters becomes a readable start, a `+` (which
 * the encoding never yields) and the id's SHA-256.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { checkSessionId } from "../session-id.js";

/** The journal's suffix. */
export const JOURNAL_SUFFIX = ".jsonl";

/** The longest readable name: with the longest suffix (`.jsonl.torn-<ms>`) it stays far below the common 255-byte limit. */
export const READABLE_MAX = 120;

/** How much of the readable name a hashed name keeps, for a person listing the directory. */
const HASHED_PREFIX = 32;

/** An escape, kept as it is, or a character the older encoding left as it was but this one escapes. */
const TO_ESCAPE = /%[0-9A-F]{2}|[.*A-Z]/g;

const escapeChar = (match: string): string => (match.length === 3 ? match : `%${match.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * The file name (without suffix) of a session's journal, lease and lock. Checks the id first
 * (`SessionIdError`).
 *
 * @example
 * ```ts
 * fileNameOf("Chat/1"); // "%43hat%2F1"
 * ```
 */
export function fileNameOf(id: string): string {
  const readable = encodeURIComponent(checkSessionId(id)).replace(TO_ESCAPE, escapeChar);
  if (readable.length <= READABLE_MAX) return readable;
  let prefix = readable.slice(0, HASHED_PREFIX);
  // Not cut inside an escape: the start stays a readable piece of the id.
  const percent = prefix.lastIndexOf("%");
  if (percent > prefix.length - 3) prefix = prefix.slice(0, percent);
  return `${prefix}+${createHash("sha256").update(id, "utf8").digest("hex")}`;
}

/**
 * The name releases before this one gave the id (capital letters and long ids as they were), when
 * it differs from {@link fileNameOf}'s: its files are still read, and moved on the next write.
 *
 * @example
 * ```ts
 * legacyFileNameOf("Chat"); // "Chat"
 * legacyFileNameOf("chat"); // undefined: the name did not change
 * ```
 */
export function legacyFileNameOf(id: string): string | undefined {
  const legacy = encodeURIComponent(id).replace(/\./g, "%2E").replace(/\*/g, "%2A");
  return legacy === fileNameOf(id) ? undefined : legacy;
}

/** What a file name says of its id: the id, or that it is hashed (the id is in the journal), or why it names no session. */
export type NameMeaning = { kind: "id"; id: string; legacy: boolean } | { kind: "hashed" } | { kind: "stray"; reason: string };

/**
 * Reads a journal's file name (without suffix) back into its id.
 *
 * @example
 * ```ts
 * meaningOfName("%43hat"); // { kind: "id", id: "Chat", legacy: false }
 * meaningOfName("%zz"); // { kind: "stray", reason: "…" }
 * ```
 */
export function meaningOfName(name: string): NameMeaning {
  if (/^[^+]*\+[0-9a-f]{64}$/.test(name)) return { kind: "hashed" };
  let id: string;
  try {
    id = decodeURIComponent(name);
    if (fileNameOf(id) === name) return { kind: "id", id, legacy: false };
    if (legacyFileNameOf(id) === name) return { kind: "id", id, legacy: true };
  } catch {
    return { kind: "stray", reason: "its name is not a session id's encoding" };
  }
  return { kind: "stray", reason: "its name is not a session id's encoding (not as this store writes it)" };
}
