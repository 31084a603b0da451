/**
 * A session's lease in the file store: `<name>.lease`, a small JSON file replaced whole by a
 * rename, so a crash leaves the old lease or the new one. The temporary file has a random name
 * and is created exclusively without following links: a link planted at a predictable name
 * cannot redirect the write.
 *
 * @module
 */
import { randomBytes } from "node:crypto";
import { closeSync, renameSync, unlinkSync, writeSync } from "node:fs";
import type { LeaseRecord } from "../../lease-rules.js";
import { CREATE_NEW_FLAGS, lstatOrMissing, openNoFollowSync, readSmallFileSync, symlinkError, versionOf } from "./no-follow.js";

/**
 * The lease files of one directory, each read again only when it changed (another process wrote
 * it): one `lstat` per call.
 *
 * @example
 * ```ts
 * const leases = new LeaseFiles();
 * leases.write("/sessions/s.lease", { owner: "w", token: 1, expiresAt: Date.now() + 30_000 });
 * leases.read("/sessions/s.lease"); // { owner: "w", token: 1, expiresAt: … }
 * ```
 */
export class LeaseFiles {
  /** Per lease file: what it held when its stat read `version`. */
  private readonly cache = new Map<string, { version: string; lease: LeaseRecord }>();

  /** The lease at `path`, or `undefined` when there is none. */
  read(path: string): LeaseRecord | undefined {
    const stats = lstatOrMissing(path);
    if (!stats) return undefined;
    if (stats.isSymbolicLink()) throw symlinkError(path);
    const version = versionOf(stats);
    const cached = this.cache.get(path);
    if (cached && cached.version === version) return { ...cached.lease };
    const text = readSmallFileSync(path);
    if (text === undefined) return undefined;
    let lease: LeaseRecord;
    try {
      lease = JSON.parse(text) as LeaseRecord;
    } catch {
      throw new Error(`FileSessionStore: the lease file ${path} is not JSON; it was left as it is.`);
    }
    this.cache.set(path, { version, lease: { ...lease } });
    return lease;
  }

  /** Replaces the lease at `path` (through a temporary file and a rename). */
  write(path: string, lease: LeaseRecord): void {
    const temporary = `${path}.${randomBytes(8).toString("hex")}.tmp`;
    const fd = openNoFollowSync(temporary, CREATE_NEW_FLAGS);
    try {
      try {
        writeSync(fd, JSON.stringify(lease));
      } finally {
        closeSync(fd);
      }
      renameSync(temporary, path);
    } catch (error) {
      try {
        unlinkSync(temporary);
      } catch {
        // Already renamed, or never fully made: nothing to clean up.
      }
      throw error;
    }
    this.cache.delete(path);
  }
}
