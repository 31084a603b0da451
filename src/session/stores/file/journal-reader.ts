/**
 * Reads a journal file line by line, in chunks, never holding more than one line (at most
 * `maxEntryBytes`) and one chunk: a journal of any size loads without one huge string, and a
 * line over the limit is refused as soon as the limit is passed, without reading the rest of it.
 *
 * @module
 */
import type { BigIntStats } from "node:fs";
import { SessionCorruptError } from "../../session-errors.js";
import { openNoFollow, READ_FLAGS } from "./no-follow.js";

const CHUNK_BYTES = 256 * 1024;
const NEWLINE = 10;

/** What a read found. */
export interface LinesRead {
  /** Bytes of the complete lines read. */
  size: number;
  /** Bytes after the last newline: a torn last line (0 when the read stopped early). */
  tornBytes: number;
  /** Complete lines read. */
  lines: number;
  /** The file as it was when the read ended (its size may be past `size` if a writer appended meanwhile). */
  stats: BigIntStats;
  /** False when `onLine` stopped the read. */
  complete: boolean;
}

/**
 * Calls `onLine` with each complete line of the file (without its newline), in order; `onLine`
 * returning `false` stops the read. Returns `undefined` when the file is missing. Throws
 * `SessionCorruptError` for a line longer than `maxEntryBytes`, and the store's link error for a
 * symbolic link at `path`.
 *
 * @example
 * ```ts
 * const entries: unknown[] = [];
 * await readLines(path, "s", 16 * 1024 * 1024, (line) => void entries.push(JSON.parse(line)));
 * ```
 */
export async function readLines(path: string, id: string, maxEntryBytes: number, onLine: (line: string, lineNumber: number) => boolean | void): Promise<LinesRead | undefined> {
  const file = await openNoFollow(path, READ_FLAGS);
  if (!file) return undefined;
  const tooLong = (lineNumber: number): SessionCorruptError => new SessionCorruptError(id, lineNumber, `line ${lineNumber} is longer than maxEntryBytes (${maxEntryBytes} bytes); it was not read whole`);
  try {
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    // The start of a line that goes on past the chunk, copied (the chunk is reused).
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let size = 0;
    let lineNumber = 0;
    for (;;) {
      const { bytesRead } = await file.read(chunk, 0, CHUNK_BYTES, size + pendingBytes);
      if (bytesRead === 0) break;
      const view = chunk.subarray(0, bytesRead);
      let start = 0;
      for (let end = view.indexOf(NEWLINE); end !== -1; end = view.indexOf(NEWLINE, start)) {
        lineNumber++;
        const length = pendingBytes + end - start;
        if (length > maxEntryBytes) throw tooLong(lineNumber);
        const line = pendingBytes === 0 ? view.toString("utf8", start, end) : Buffer.concat([...pending, view.subarray(start, end)]).toString("utf8");
        pending = [];
        pendingBytes = 0;
        size += length + 1;
        start = end + 1;
        if (onLine(line, lineNumber) === false) return { size, tornBytes: 0, lines: lineNumber, stats: await file.stat({ bigint: true }), complete: false };
      }
      if (start < bytesRead) {
        pendingBytes += bytesRead - start;
        if (pendingBytes > maxEntryBytes) throw tooLong(lineNumber + 1);
        pending.push(Buffer.from(view.subarray(start)));
      }
    }
    return { size, tornBytes: pendingBytes, lines: lineNumber, stats: await file.stat({ bigint: true }), complete: true };
  } finally {
    await file.close();
  }
}
