/**
 * The file session store for Node: one JSONL file per session, the embedded default (SPEC S2–S4).
 * A line is one entry; an append writes its lines in one `write` and, by default, `fsync`s
 * before it answers. A crash can leave at most a torn last line (no newline at its end): `load()`
 * drops it and says so, the next append moves it aside into a `.torn` file before writing, so it is
 * never merged with what comes next. Processes of one machine (one PID namespace, a local file
 * system) share a directory: appends and leases are taken under a lock file created with
 * `O_EXCL`, and a lock whose process died is broken.
 *
 * @module
 */
import { closeSync, constants, fdatasync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync, writeFileSync } from "node:fs";
import { mkdir, open, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { checkJournal, type JournalEntry } from "../journal-entry.js";
import { checkAppend, grantLease, type LeaseRecord } from "../lease-rules.js";
import { SessionCorruptError } from "../session-errors.js";
import type { AcquireLease, AppendCondition, LoadedJournal, SessionLease, SessionStore, SessionSummary } from "../session-store.js";

/**
 * When an append is on disk: `"fsync"` (the default) before it answers; `{ fsyncEveryMs }` at
 * most that long after (a process crash loses nothing, a power cut at most that window);
 * `"none"` when the OS writes it (tests, scratch sessions).
 */
export type FileDurability = "fsync" | { fsyncEveryMs: number } | "none";

/** Options of {@link FileSessionStore}. */
export interface FileSessionStoreOptions {
  /** The directory of the journals; created when missing. */
  directory: string;
  durability?: FileDurability;
  /** How long to wait for another process's lock before failing. Default 10 s. */
  lockTimeoutMs?: number;
  /** The clock of leases. */
  now?: () => number;
}

const SUFFIX = ".jsonl";

/** A file name for an id: readable, and safe on every file system (no `/`, no leading dot). */
function fileNameOf(id: string): string {
  return encodeURIComponent(id).replace(/\./g, "%2E").replace(/\*/g, "%2A");
}

const isMissing = (error: unknown): boolean => (error as NodeJS.ErrnoException)?.code === "ENOENT";

/** What a journal file holds: its complete lines, and a torn tail if the last line has no newline. */
interface Scan {
  entries: JournalEntry[];
  /** Byte length of the complete lines. */
  size: number;
  tornBytes: number;
}

/**
 * Journals as JSONL files in a directory.
 *
 * @example
 * ```ts
 * import { FileSessionStore } from "rxagent/session/file";
 * const store = new FileSessionStore({ directory: ".sessions" });
 * const agent = new Agent({ initialState: { model, tools }, streamFn, session: agentSession({ store, id: "chat-1" }) });
 * await agent.resume();
 * ```
 */
export class FileSessionStore implements SessionStore {
  readonly directory: string;
  private readonly durability: FileDurability;
  private readonly lockTimeoutMs: number;
  private readonly now: () => number;
  private ready: Promise<void> | undefined;
  /** Per file: what this process last saw (size and last seq), so an append need not read the file. */
  private readonly seen = new Map<string, { size: number; seq: number }>();
  private readonly pendingSync = new Map<string, NodeJS.Timeout>();
  /** What this store writes in a lock: the pid, and a mark of this process's own (see `brokeStaleLock`). */
  private readonly lockMark = `${process.pid} ${Math.random().toString(36).slice(2)}`;
  /** Per lease file: what it held when its stat read `version`. */
  private readonly leases = new Map<string, { version: string; lease: LeaseRecord }>();

  constructor(options: FileSessionStoreOptions) {
    if (!options || typeof options.directory !== "string" || options.directory === "") throw new TypeError("FileSessionStore needs a directory.");
    this.directory = options.directory;
    this.durability = options.durability ?? "fsync";
    this.lockTimeoutMs = options.lockTimeoutMs ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  async load(id: string): Promise<LoadedJournal | undefined> {
    await this.prepare();
    const scan = await this.scan(id);
    if (!scan || scan.entries.length === 0) return undefined;
    return scan.tornBytes > 0 ? { entries: scan.entries, droppedTail: { bytes: scan.tornBytes } } : { entries: scan.entries };
  }

  async append(id: string, entries: readonly JournalEntry[], condition: AppendCondition): Promise<number> {
    await this.prepare();
    const name = fileNameOf(id);
    return this.locked(name, async () => {
      const lease = this.readLease(name);
      const { seq, size } = await this.tail(id, name);
      checkAppend(id, lease, seq, entries, condition);
      const text = entries.map((entry) => JSON.stringify(entry)).join("\n") + "\n";
      // The small steps are synchronous system calls: an asynchronous one costs a trip through
      // libuv's thread pool, several times the call itself. Only the wait for the disk is not.
      const fd = openSync(this.path(name, SUFFIX), constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND);
      try {
        writeSync(fd, text);
        if (this.durability === "fsync") await new Promise<void>((resolve, reject) => fdatasync(fd, (error) => (error ? reject(error) : resolve())));
      } finally {
        closeSync(fd);
      }
      this.scheduleSync(name);
      const last = seq + entries.length;
      this.seen.set(name, { size: size + Buffer.byteLength(text), seq: last });
      // Renewed unless it was a moment ago (a tenth of the lease, at most a second): a lease write
      // per append would double the appends' cost, and the lease still lasts its time from the
      // last append, to within that moment.
      const now = this.now();
      if (lease && lease.expiresAt < now + condition.ttlMs - Math.min(1000, condition.ttlMs / 10)) this.writeLease(name, { ...lease, expiresAt: now + condition.ttlMs });
      return last;
    });
  }

  async acquire(id: string, request: AcquireLease): Promise<SessionLease> {
    await this.prepare();
    const name = fileNameOf(id);
    return this.locked(name, async () => {
      const lease = grantLease(id, this.readLease(name), request, this.now());
      this.writeLease(name, { owner: lease.owner, token: lease.token, expiresAt: lease.expiresAt });
      return lease;
    });
  }

  async release(id: string, token: number): Promise<void> {
    await this.prepare();
    const name = fileNameOf(id);
    await this.locked(name, async () => {
      const lease = this.readLease(name);
      if (lease && lease.token === token) this.writeLease(name, { ...lease, expiresAt: 0 });
    });
  }

  async list(): Promise<SessionSummary[]> {
    await this.prepare();
    const summaries: SessionSummary[] = [];
    for (const file of await readdir(this.directory)) {
      if (!file.endsWith(SUFFIX)) continue;
      const id = decodeURIComponent(file.slice(0, -SUFFIX.length));
      const scan = await this.scan(id);
      if (!scan || scan.entries.length === 0) continue;
      const { mtimeMs } = await stat(join(this.directory, file));
      summaries.push({ id, seq: scan.entries.length, updatedAt: Math.floor(mtimeMs) });
    }
    return summaries.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async delete(id: string): Promise<void> {
    await this.prepare();
    const name = fileNameOf(id);
    await this.locked(name, async () => {
      await rm(this.path(name, SUFFIX), { force: true });
      // The lease stays, expired, with its last token: a writer from before is still fenced out (SPEC S3).
      const lease = this.readLease(name);
      if (lease) this.writeLease(name, { ...lease, expiresAt: 0 });
      this.seen.delete(name);
    });
  }

  /** Syncs what `{ fsyncEveryMs }` left pending; call before a planned exit. */
  async flush(): Promise<void> {
    const names = [...this.pendingSync.keys()];
    for (const name of names) {
      clearTimeout(this.pendingSync.get(name));
      this.pendingSync.delete(name);
      await this.sync(name);
    }
  }

  private prepare(): Promise<void> {
    return (this.ready ??= mkdir(this.directory, { recursive: true }).then(() => undefined));
  }

  private path(name: string, suffix: string): string {
    return join(this.directory, name + suffix);
  }

  /** The last seq and the size of the complete lines; the file is read only when another process wrote to it. */
  private async tail(id: string, name: string): Promise<{ seq: number; size: number }> {
    let size = 0;
    try {
      size = statSync(this.path(name, SUFFIX)).size;
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    const seen = this.seen.get(name);
    if (seen && seen.size === size) return seen;
    const scan = await this.scan(id);
    if (!scan) return { seq: 0, size: 0 };
    if (scan.tornBytes > 0) await this.setTornAside(name, scan.size);
    const known = { seq: scan.entries.length, size: scan.size };
    this.seen.set(name, known);
    return known;
  }

  /** Moves a torn last line into `<name>.jsonl.torn-<time>` and cuts the journal back to its complete lines. */
  private async setTornAside(name: string, completeSize: number): Promise<void> {
    const path = this.path(name, SUFFIX);
    const bytes = await readFile(path);
    await writeFile(`${path}.torn-${this.now()}`, bytes.subarray(completeSize));
    const file = await open(path, constants.O_RDWR);
    try {
      await file.truncate(completeSize);
      await file.datasync();
    } finally {
      await file.close();
    }
  }

  private async scan(id: string): Promise<Scan | undefined> {
    let text: string;
    try {
      text = await readFile(this.path(fileNameOf(id), SUFFIX), "utf8");
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    const end = text.lastIndexOf("\n") + 1;
    const lines = end === 0 ? [] : text.slice(0, end - 1).split("\n");
    const records = lines.map((line, index) => {
      try {
        return JSON.parse(line) as unknown;
      } catch {
        throw new SessionCorruptError(id, index + 1, `line ${index + 1} is not JSON (${line.slice(0, 40)}…)`);
      }
    });
    return { entries: checkJournal(records, id), size: Buffer.byteLength(text.slice(0, end)), tornBytes: Buffer.byteLength(text.slice(end)) };
  }

  /** The lease file, read again only when it changed (another process wrote it): one `stat` per append. */
  private readLease(name: string): LeaseRecord | undefined {
    const path = this.path(name, ".lease");
    let version: string;
    try {
      // Nanoseconds, the change time and the inode: a rewrite by another process within one
      // clock tick, to the same size, still reads as a change.
      const { mtimeNs, ctimeNs, size, ino } = statSync(path, { bigint: true });
      version = `${mtimeNs}:${ctimeNs}:${size}:${ino}`;
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    const cached = this.leases.get(name);
    if (cached && cached.version === version) return { ...cached.lease };
    const lease = JSON.parse(readFileSync(path, "utf8")) as LeaseRecord;
    this.leases.set(name, { version, lease: { ...lease } });
    return lease;
  }

  /** Written to a temporary file and renamed over the lease: a crash leaves the old one or the new one. */
  private writeLease(name: string, lease: LeaseRecord): void {
    const path = this.path(name, ".lease");
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(lease));
    renameSync(temporary, path);
    this.leases.delete(name);
  }

  private scheduleSync(name: string): void {
    const durability = this.durability;
    if (typeof durability !== "object" || this.pendingSync.has(name)) return;
    const timer = setTimeout(() => {
      this.pendingSync.delete(name);
      this.sync(name).catch(() => undefined);
    }, durability.fsyncEveryMs);
    timer.unref();
    this.pendingSync.set(name, timer);
  }

  private async sync(name: string): Promise<void> {
    const file = await open(this.path(name, SUFFIX), constants.O_RDONLY).catch((error: unknown) => (isMissing(error) ? undefined : Promise.reject(error)));
    if (!file) return;
    try {
      await file.datasync();
    } finally {
      await file.close();
    }
  }

  /** Runs `work` holding the session's lock file (created with `O_EXCL`, it holds the pid); a lock whose process died is broken. */
  private async locked<T>(name: string, work: () => Promise<T>): Promise<T> {
    const lock = this.path(name, ".lock");
    const deadline = Date.now() + this.lockTimeoutMs;
    for (let attempt = 0; ; attempt++) {
      try {
        const fd = openSync(lock, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL);
        try {
          writeSync(fd, this.lockMark);
        } finally {
          closeSync(fd);
        }
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        if (this.brokeStaleLock(lock)) continue;
        if (Date.now() > deadline) throw new Error(`FileSessionStore: the lock ${lock} has been held for over ${this.lockTimeoutMs} ms.`);
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
    let text: string;
    let age: number;
    try {
      text = readFileSync(lock, "utf8");
      age = Date.now() - statSync(lock).mtimeMs;
    } catch (error) {
      // Gone already: the holder let go; try again.
      return isMissing(error);
    }
    const pid = Number(text.split(" ")[0]);
    // No pid yet: just created by a live process, or left by one killed before it wrote it.
    if (text === "" || !Number.isInteger(pid) || pid <= 0) return age > 1000 ? this.removeLock(lock, text) : false;
    // Our pid: our own lock (another call of this process holds it), or one left by an earlier
    // process that had the same pid (PID 1 in a restarted container): its mark tells.
    if (pid === process.pid) return text === this.lockMark ? false : this.removeLock(lock, text);
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
      if (readFileSync(lock, "utf8") !== stale) return true;
      unlinkSync(lock);
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    return true;
  }
}
