/**
 * A journal line of the file store: one entry as JSON, with the session's id in a `sid` field so
 * that a line copied in from another journal is caught. Lines written by earlier releases have
 * no `sid` and are still read, but once a journal has a line with one, every later line must too.
 *
 * @module
 */
import { checkEntry, type JournalEntry } from "../../journal-entry.js";
import { SessionCorruptError } from "../../session-errors.js";

/**
 * The lines of an append, newline-terminated. Throws `RangeError`, before anything is written,
 * when a line would be longer than `maxEntryBytes`: the store would refuse to read it back.
 *
 * @example
 * ```ts
 * encodeLines("s", [entry], 16 * 1024 * 1024); // '{"sid":"s","v":1,"seq":1,…}\n'
 * ```
 */
export function encodeLines(id: string, entries: readonly JournalEntry[], maxEntryBytes: number): string {
  const prefix = `{"sid":${JSON.stringify(id)},`;
  let text = "";
  for (const entry of entries) {
    // The id spliced in as text, not by copying the entry; an entry with its own `sid` is copied, so ours wins.
    const line = Object.hasOwn(entry, "sid") ? JSON.stringify({ ...entry, sid: id }) : prefix + JSON.stringify(entry).slice(1);
    // A UTF-16 code unit is at most 3 bytes of UTF-8: most lines need no exact count.
    if (line.length * 3 > maxEntryBytes) {
      const bytes = Buffer.byteLength(line);
      if (bytes > maxEntryBytes) throw new RangeError(`Session "${id}": entry ${entry.seq} is ${bytes} bytes, over maxEntryBytes (${maxEntryBytes} bytes). Nothing of this append was written; raise maxEntryBytes (for every process reading this directory) or write a smaller entry.`);
    }
    text += line + "\n";
  }
  return text;
}

/** What a reader carries from line to line. */
export interface LineState {
  /** A line with `sid` was read: every later line needs one too. */
  bound: boolean;
}

/**
 * One line read back into its entry: JSON, of this session (`sid`), and a valid entry at
 * position `lineNumber` (see `checkEntry`). Throws `SessionCorruptError` naming the line.
 *
 * @example
 * ```ts
 * const state = { bound: false };
 * const entry = decodeLine('{"sid":"s","v":1,"seq":1,"at":1,"type":"created","sessionId":"s"}', "s", 1, state);
 * ```
 */
export function decodeLine(line: string, id: string, lineNumber: number, state: LineState): JournalEntry {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    throw new SessionCorruptError(id, lineNumber, `line ${lineNumber} is not JSON (${line.slice(0, 40)}…)`);
  }
  if (record !== null && typeof record === "object" && Object.hasOwn(record, "sid")) {
    const { sid, ...entry } = record as Record<string, unknown>;
    if (sid !== id) {
      const owner = typeof sid === "string" ? `session ${JSON.stringify(sid)}` : `no session (sid is ${JSON.stringify(sid)})`;
      throw new SessionCorruptError(id, lineNumber, lineNumber === 1 ? `the journal belongs to ${owner}` : `line ${lineNumber} belongs to ${owner}`);
    }
    state.bound = true;
    return checkEntry(entry, id, lineNumber);
  }
  if (state.bound) throw new SessionCorruptError(id, lineNumber, `line ${lineNumber} names no session, after lines that do (copied in from an older journal?)`);
  return checkEntry(record, id, lineNumber);
}
