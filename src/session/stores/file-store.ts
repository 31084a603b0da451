/**
 * The file session store for Node: one JSONL file per session, the embedded default (SPEC S2–S4).
 * A line is one entry, tagged with its session; an append writes its lines in one `write` and, by
 * default, `fsync`s before it answers. A crash can leave at most a torn last line (no newline at
 * its end): `load()` drops it and says so, the next append moves it aside into a `.torn` file
 * before writing, so it is never merged with what comes next. Processes of one machine (one PID
 * namespace, a local file system) share a directory: appends and leases are taken under a lock
 * file created with `O_EXCL`, and a lock whose process died is broken. Files are private to the
 * user (0600, the directory 0700) and symbolic links in the directory are never followed.
 *
 * @module
 */
import { renameSync } from "node:fs";
import { mkdir, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { JournalEntry } from "../journal-entry.js";
import { checkAppend, grantLease } from "../lease-rules.js";
import type { AcquireLease, AppendCondition, LoadedJournal, SessionLease, SessionStore, SessionSummary } from "../session-store.js";
import { fileNameOf, JOURNAL_SUFFIX, legacyFileNameOf } from "./file/file-names.js";
import { appendToJournal, setTornAside, syncJournal } from "./file/journal-file.js";
import { decodeLine, encodeLines } from "./file/journal-lines.js";
import { readLines } from "./file/journal-reader.js";
import { LeaseFiles } from "./file/lease-file.js";
import { listJournals } from "./file/list-journals.js";
import { LockFiles } from "./file/lock-file.js";
import { DIRECTORY_MODE, lstatOrMissing, symlinkError, versionOf } from "./file/no-follow.js";

/**
 * When an append is on disk: `"fsync"` (the default) before it answers; `{ fsyncEveryMs }` at
 * most that long after (a process crash loses nothing, a power cut at most that window);
 * `"none"` when the OS writes it (tests, scratch sessions).
 */
export type FileDurability = "fsync" | { fsyncEveryMs: number } | "none";

/** Options of {@link FileSessionStore}. */
export interface FileSessionStoreOptions {
  /** The directory of the journals; created (mode 0700) when missing. An existing directory keeps its mode. */
  directory: string;
  durability?: FileDurability | undefined;
  /** How long to wait for another process's lock before failing. Default 10 s. */
  lockTimeoutMs?: number | undefined;
  /** The clock of leases. */
  now?: (() => number) | undefined;
  /**
   * The longest journal line (one entry, as JSON) in bytes. A longer line is a
   * `SessionCorruptError` on read, found without reading it whole; `append()` refuses an entry
   * that would be longer (`RangeError`). Default 64 MiB.
   */
  maxEntryBytes?: number | undefined;
  /**
   * Told of each file `list()` skips: a name that is no session id's, a journal of another
   * session, a corrupt journal, a link. Default: a process warning.
   */
  onSkipped?: ((file: string, error: Error) => void) | undefined;
}

/** The default {@link FileSessionStoreOptions.maxEntryBytes}. */
const DEFAULT_MAX_ENTRY_BYTES = 64 * 1024 * 1024;

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
  private readonly now: () => number;
  private readonly maxEntryBytes: number;
  private readonly onSkipped: (file: string, error: Error) => void;
  private ready: Promise<void> | undefined;
  /** Per journal: its version (see `versionOf`) when this process last read or wrote it, and its last seq: an append need not read it. */
  private readonly seen = new Map<string, { version: string; seq: number }>();
  private readonly pendingSync = new Map<string, NodeJS.Timeout>();
  /** Ids whose files of an earlier release's name were looked for (and moved) already. */
  private readonly migrated = new Set<string>();
  private readonly leases = new LeaseFiles();
  private readonly locks: LockFiles;

  constructor(options: FileSessionStoreOptions) {
    if (!options || typeof options.directory !== "string" || options.directory === "") throw new TypeError("FileSessionStore needs a directory.");
    const max = options.maxEntryBytes ?? DEFAULT_MAX_ENTRY_BYTES;
    if (!Number.isSafeInteger(max) || max <= 0) throw new TypeError(`FileSessionStore: maxEntryBytes must be a positive integer, got ${String(max)}.`);
    this.directory = options.directory;
    this.durability = options.durability ?? "fsync";
    this.locks = new LockFiles(options.lockTimeoutMs ?? 10_000);
    this.now = options.now ?? Date.now;
    this.maxEntryBytes = max;
    this.onSkipped = options.onSkipped ?? ((file, error) => process.emitWarning(`FileSessionStore.list() skipped ${join(this.directory, file)}: ${error.message}`, "FileSessionStoreWarning"));
  }

  async load(id: string): Promise<LoadedJournal | undefined> {
    const name = fileNameOf(id);
    await this.prepare();
    const path = await this.journalPath(id, name);
    const entries: JournalEntry[] = [];
    const state = { bound: false };
    const read = await readLines(path, id, this.maxEntryBytes, (line, n) => void entries.push(decodeLine(line, id, n, state)));
    if (!read || entries.length === 0) return undefined;
    // What was read is the whole file: the next append here need not read it again.
    if (path === this.path(name, JOURNAL_SUFFIX) && read.tornBytes === 0 && read.stats.size === BigInt(read.size)) this.seen.set(name, { version: versionOf(read.stats), seq: entries.length });
    return read.tornBytes > 0 ? { entries, droppedTail: { bytes: read.tornBytes } } : { entries };
  }

  async append(id: string, entries: readonly JournalEntry[], condition: AppendCondition): Promise<number> {
    const name = fileNameOf(id);
    await this.prepare();
    return this.locked(id, name, async () => {
      const lease = this.leases.read(this.path(name, ".lease"));
      const seq = await this.lastSeq(id, name);
      checkAppend(id, lease, seq, entries, condition);
      const text = encodeLines(id, entries, this.maxEntryBytes);
      const version = await appendToJournal(this.path(name, JOURNAL_SUFFIX), text, this.durability === "fsync");
      this.scheduleSync(name);
      const last = seq + entries.length;
      this.seen.set(name, { version, seq: last });
      // Renewed unless it was a moment ago (a tenth of the lease, at most a second): a lease write
      // per append would double the appends' cost, and the lease still lasts its time from the
      // last append, to within that moment.
      const now = this.now();
      if (lease && lease.expiresAt < now + condition.ttlMs - Math.min(1000, condition.ttlMs / 10)) this.leases.write(this.path(name, ".lease"), { ...lease, expiresAt: now + condition.ttlMs });
      return last;
    });
  }

  async acquire(id: string, request: AcquireLease): Promise<SessionLease> {
    const name = fileNameOf(id);
    await this.prepare();
    return this.locked(id, name, async () => {
      const lease = grantLease(id, this.leases.read(this.path(name, ".lease")), request, this.now());
      this.leases.write(this.path(name, ".lease"), { owner: lease.owner, token: lease.token, expiresAt: lease.expiresAt });
      return lease;
    });
  }

  async release(id: string, token: number): Promise<void> {
    const name = fileNameOf(id);
    await this.prepare();
    await this.locked(id, name, async () => {
      const lease = this.leases.read(this.path(name, ".lease"));
      if (lease && lease.token === token) this.leases.write(this.path(name, ".lease"), { ...lease, expiresAt: 0 });
    });
  }

  /** Every readable session, by id. A file that is not one (see {@link FileSessionStoreOptions.onSkipped}) is skipped and reported. */
  async list(): Promise<SessionSummary[]> {
    await this.prepare();
    return listJournals(await readdir(this.directory), {
      count: async (id, file) => {
        const state = { bound: false };
        const read = await readLines(join(this.directory, file), id, this.maxEntryBytes, (line, n) => void decodeLine(line, id, n, state));
        return read && read.lines > 0 ? { seq: read.lines, updatedAt: Math.floor(Number(read.stats.mtimeMs)) } : undefined;
      },
      firstLine: (file) => this.firstLine(join(this.directory, file)),
      onSkipped: this.onSkipped,
    });
  }

  async delete(id: string): Promise<void> {
    const name = fileNameOf(id);
    await this.prepare();
    await this.locked(id, name, async () => {
      await rm(this.path(name, JOURNAL_SUFFIX), { force: true });
      // The lease stays, expired, with its last token: a writer from before is still fenced out (SPEC S3).
      const lease = this.leases.read(this.path(name, ".lease"));
      if (lease) this.leases.write(this.path(name, ".lease"), { ...lease, expiresAt: 0 });
      this.seen.delete(name);
    });
  }

  /** Syncs what `{ fsyncEveryMs }` left pending; call before a planned exit. */
  async flush(): Promise<void> {
    const names = [...this.pendingSync.keys()];
    for (const name of names) {
      clearTimeout(this.pendingSync.get(name));
      this.pendingSync.delete(name);
      await syncJournal(this.path(name, JOURNAL_SUFFIX));
    }
  }

  private prepare(): Promise<void> {
    // The mode applies to directories created here; an existing directory keeps its own.
    return (this.ready ??= mkdir(this.directory, { recursive: true, mode: DIRECTORY_MODE }).then(() => undefined));
  }

  private path(name: string, suffix: string): string {
    return join(this.directory, name + suffix);
  }

  /** Runs `work` holding the session's lock, after moving files of an earlier release's name to this one's. */
  private locked<T>(id: string, name: string, work: () => Promise<T>): Promise<T> {
    return this.locks.locked(this.path(name, ".lock"), async () => {
      if (!this.migrated.has(id) && legacyFileNameOf(id) !== undefined) {
        await this.migrate(id, name);
        this.migrated.add(id);
      }
      return work();
    });
  }

  /**
   * The journal to read: the one under this release's name, else one under an earlier release's
   * name (capital letters unescaped) if its first line is this session's created entry — on a
   * file system blind to case, `Chat.jsonl` may be the journal of "chat".
   */
  private async journalPath(id: string, name: string): Promise<string> {
    const path = this.path(name, JOURNAL_SUFFIX);
    const legacy = legacyFileNameOf(id);
    if (legacy === undefined || lstatOrMissing(path)) return path;
    const legacyPath = this.path(legacy, JOURNAL_SUFFIX);
    if (!lstatOrMissing(legacyPath)) return path;
    const first = await this.firstLine(legacyPath).catch(() => undefined);
    return first?.type === "created" && first.sessionId === id ? legacyPath : path;
  }

  /** Moves a journal of an earlier release's name to this one's, and copies its lease (tokens must not go back). */
  private async migrate(id: string, name: string): Promise<void> {
    const legacy = legacyFileNameOf(id);
    if (legacy === undefined) return;
    const journal = await this.journalPath(id, name);
    if (journal !== this.path(name, JOURNAL_SUFFIX)) renameSync(journal, this.path(name, JOURNAL_SUFFIX));
    // Copied, not moved: on a file system blind to case it may be another id's lease too.
    if (!lstatOrMissing(this.path(name, ".lease"))) {
      const lease = this.leases.read(this.path(legacy, ".lease"));
      if (lease) this.leases.write(this.path(name, ".lease"), lease);
    }
  }

  /** The first line of a journal, parsed; `undefined` when missing or not JSON. */
  private async firstLine(path: string): Promise<Record<string, unknown> | undefined> {
    let first: Record<string, unknown> | undefined;
    await readLines(path, path, this.maxEntryBytes, (line) => {
      try {
        first = JSON.parse(line) as Record<string, unknown>;
      } catch {
        // Not JSON: no session's journal.
      }
      return false;
    });
    return first;
  }

  /** The journal's last seq; read (line by line, checking each) only when someone else wrote since this process did. */
  private async lastSeq(id: string, name: string): Promise<number> {
    const path = this.path(name, JOURNAL_SUFFIX);
    const stats = lstatOrMissing(path);
    if (!stats) return 0;
    if (stats.isSymbolicLink()) throw symlinkError(path);
    const seen = this.seen.get(name);
    if (seen && seen.version === versionOf(stats)) return seen.seq;
    const state = { bound: false };
    const read = await readLines(path, id, this.maxEntryBytes, (line, n) => void decodeLine(line, id, n, state));
    if (!read) return 0;
    if (read.tornBytes > 0) await setTornAside(path, read.size, this.now());
    return read.lines;
  }

  private scheduleSync(name: string): void {
    const durability = this.durability;
    if (typeof durability !== "object" || this.pendingSync.has(name)) return;
    const timer = setTimeout(() => {
      this.pendingSync.delete(name);
      syncJournal(this.path(name, JOURNAL_SUFFIX)).catch(() => undefined);
    }, durability.fsyncEveryMs);
    timer.unref();
    this.pendingSync.set(name, timer);
  }
}
