/**
 * The file store's per-session lock: `<name>.lock`, created with `O_EXCL` (which never follows a
 * link), holding the pid and a mark of the process that holds it. Processes of one machine (one
 * PID namespace, a local file system) share a directory this way; a lock whose process died is
 * broken.
 *
 * @module
 */
import { closeSync, statSync, unlinkSync, writeSync } from "node:fs";
import { CREATE_NEW_FLAGS, isMissing, openNoFollowSync, readSmallFileSync } from "./no-follow.js";

/**
 * Locks of one store.
 *
 * @example
 * ```ts
 * const locks = new LockFiles(10_000);
 * await locks.locked("/sessions/s.lock", async () => append());
 * ```
 */
export class LockFiles {
  /** What this store writes in a lock: the pid, and a mark of this process's own (see `brokeStaleLock`). */
  private readonly mark = `${process.pid} ${Math.random().toString(36).slice(2)}`;

  constructor(private readonly timeoutMs: number) {}

  /** Runs `work` holding the lock at `lock`; waits for another holder at most the timeout. */
  async locked<T>(lock: string, work: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.timeoutMs;
    for (let attempt = 0; ; attempt++) {
      try {
        const fd = openNoFollowSync(lock, CREATE_NEW_FLAGS);
        try {
          writeSync(fd, this.mark);
        } finally {
          closeSync(fd);
        }
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        if (this.brokeStaleLock(lock)) continue;
        if (Date.now() > deadline) throw new Error(`FileSessionStore: the lock ${lock} has been held for over ${this.timeoutMs} ms.`);
        await new Promise((resolve) => setTimeout(resolve, Math.min(1 + attempt, 20)));
      }
    }
    try {
      return await work();
    } finally {
      try {
        unlinkSync(lock);
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    }
  }

  /** A lock whose owner process is gone (it was killed holding it) is removed. */
  private brokeStaleLock(lock: string): boolean {
    let text: string | undefined;
    let age: number;
    try {
      text = readSmallFileSync(lock);
      age = Date.now() - statSync(lock).mtimeMs;
    } catch (error) {
      // Gone already: the holder let go; try again.
      if (isMissing(error)) return true;
      throw error;
    }
    if (text === undefined) return true;
    const pid = Number(text.split(" ")[0]);
    // No pid yet: just created by a live process, or left by one killed before it wrote it.
    if (text === "" || !Number.isInteger(pid) || pid <= 0) return age > 1000 ? this.removeLock(lock, text) : false;
    // Our pid: our own lock (another call of this process holds it), or one left by an earlier
    // process that had the same pid (PID 1 in a restarted container): its mark tells.
    if (pid === process.pid) return text === this.mark ? false : this.removeLock(lock, text);
    try {
      process.kill(pid, 0);
      return false;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === "ESRCH" ? this.removeLock(lock, text) : false;
    }
  }

  /**
   * Removes the stale lock that read `stale`, unless it changed since: another process may have
   * broken it and taken the lock meanwhile. (Between that check and the unlink a window remains;
   * breaking a lock is rare — its holder was killed — and two breakers at once rarer.)
   */
  private removeLock(lock: string, stale: string): boolean {
    try {
      if (readSmallFileSync(lock) !== stale) return true;
      unlinkSync(lock);
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    return true;
  }
}
