/**
 * Opening the store's files without following symbolic links: a link planted in the directory
 * must not redirect a journal's reads or writes to another file. Every file the store creates is
 * private to its user (mode 0600), whatever the umask.
 *
 * @module
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, type BigIntStats } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";

/** The mode of every file the store creates. */
export const FILE_MODE = 0o600;
/** The mode of the directory, when the store creates it. */
export const DIRECTORY_MODE = 0o700;

/** `O_NOFOLLOW`: 0 where the platform lacks it (Windows, which has no such links for a user to plant). */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** Flags to append to a journal, creating it. */
export const APPEND_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | NOFOLLOW;
/** Flags to create a file that must not exist yet (a lock, a lease's temporary file, a torn tail set aside). */
export const CREATE_NEW_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW;
/** Flags to read. */
export const READ_FLAGS = constants.O_RDONLY | NOFOLLOW;
/** Flags to read and write an existing file. */
export const READ_WRITE_FLAGS = constants.O_RDWR | NOFOLLOW;

/** The error for a link where a file of the store should be. */
export function symlinkError(path: string): Error {
  return new Error(`FileSessionStore: ${path} is a symbolic link; the store does not follow links (one planted there could redirect a session's reads or writes). Remove it if it is not meant to be there.`);
}

/** ELOOP on Linux and macOS, EMLINK on FreeBSD: what `open` says for O_NOFOLLOW on a link. */
const isLinkRefusal = (error: unknown): boolean => ["ELOOP", "EMLINK"].includes((error as NodeJS.ErrnoException)?.code ?? "");

/** True for a file that is missing, or whose name the file system cannot hold (then it cannot exist either). */
export const isMissing = (error: unknown): boolean => ["ENOENT", "ENAMETOOLONG"].includes((error as NodeJS.ErrnoException)?.code ?? "");

/**
 * `openSync` without following a link at `path`: a link is {@link symlinkError}.
 *
 * @example
 * ```ts
 * const fd = openNoFollowSync(path, APPEND_FLAGS);
 * ```
 */
export function openNoFollowSync(path: string, flags: number): number {
  try {
    return openSync(path, flags, FILE_MODE);
  } catch (error) {
    throw isLinkRefusal(error) ? symlinkError(path) : error;
  }
}

/** The asynchronous {@link openNoFollowSync}; `undefined` when the file is missing. */
export async function openNoFollow(path: string, flags: number): Promise<FileHandle | undefined> {
  try {
    return await open(path, flags, FILE_MODE);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw isLinkRefusal(error) ? symlinkError(path) : error;
  }
}

/** The whole of a small file (a lease, a lock) read without following a link; `undefined` when missing. */
export function readSmallFileSync(path: string): string | undefined {
  let fd: number;
  try {
    fd = openNoFollowSync(path, READ_FLAGS);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
  try {
    const size = Number(fstatSync(fd).size);
    const buffer = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, buffer, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    return buffer.toString("utf8", 0, read);
  } finally {
    closeSync(fd);
  }
}

/** `lstat` with nanoseconds; `undefined` when missing. */
export function lstatOrMissing(path: string): BigIntStats | undefined {
  try {
    return lstatSync(path, { bigint: true });
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** A file's version: a rewrite within one clock tick, to the same size, still reads as a change. */
export const versionOf = (stats: BigIntStats): string => `${stats.mtimeNs}:${stats.ctimeNs}:${stats.size}:${stats.ino}`;
