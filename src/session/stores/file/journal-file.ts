/**
 * Writing a journal file: appending lines, and setting a torn last line aside. Both open the
 * journal without following links and create files private to the user (0600).
 *
 * @module
 */
import { closeSync, fdatasync, fstatSync, writeSync } from "node:fs";
import { APPEND_FLAGS, CREATE_NEW_FLAGS, openNoFollow, openNoFollowSync, READ_FLAGS, READ_WRITE_FLAGS, versionOf } from "./no-follow.js";

/**
 * Appends `text` in one `write` and returns the file's version after it (see `versionOf`), so
 * the next append can tell whether anyone else wrote since. With `fsync`, waits for the disk.
 *
 * @example
 * ```ts
 * const version = await appendToJournal("/sessions/s.jsonl", line + "\n", true);
 * ```
 */
export async function appendToJournal(path: string, text: string, fsync: boolean): Promise<string> {
  // Synchronous system calls: an asynchronous one costs a trip through libuv's thread pool,
  // several times the call itself. Only the wait for the disk is not.
  const fd = openNoFollowSync(path, APPEND_FLAGS);
  try {
    writeSync(fd, text);
    const version = versionOf(fstatSync(fd, { bigint: true }));
    if (fsync) await new Promise<void>((resolve, reject) => fdatasync(fd, (error) => (error ? reject(error) : resolve())));
    return version;
  } finally {
    closeSync(fd);
  }
}

/**
 * Moves the bytes after `completeSize` (a torn last line) into a new `<path>.torn-<time>` file and
 * cuts the journal back to its complete lines. Only the torn bytes are read.
 *
 * @example
 * ```ts
 * await setTornAside("/sessions/s.jsonl", 1234, Date.now());
 * ```
 */
export async function setTornAside(path: string, completeSize: number, now: number): Promise<void> {
  const journal = await openNoFollow(path, READ_WRITE_FLAGS);
  if (!journal) return;
  try {
    const { size } = await journal.stat();
    const torn = Buffer.alloc(size - completeSize);
    await journal.read(torn, 0, torn.length, completeSize);
    // A new file, never an existing one (or a link planted at the name): the next free suffix.
    for (let attempt = 0; ; attempt++) {
      try {
        const fd = openNoFollowSync(`${path}.torn-${now}${attempt === 0 ? "" : `-${attempt}`}`, CREATE_NEW_FLAGS);
        try {
          writeSync(fd, torn);
          await new Promise<void>((resolve, reject) => fdatasync(fd, (error) => (error ? reject(error) : resolve())));
        } finally {
          closeSync(fd);
        }
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= 100) throw error;
      }
    }
    await journal.truncate(completeSize);
    await journal.datasync();
  } finally {
    await journal.close();
  }
}

/** `fdatasync` of the journal, for `{ fsyncEveryMs }`; nothing when it is gone. */
export async function syncJournal(path: string): Promise<void> {
  const file = await openNoFollow(path, READ_FLAGS);
  if (!file) return;
  try {
    await file.datasync();
  } finally {
    await file.close();
  }
}
