/**
 * The session store's connection to its database: opened on first use and kept, closed as soon
 * as another tab needs the database at a newer version (`versionchange`), opened again on the
 * next call. Only the connection is kept: everything about the sessions is read from the
 * database in each transaction, since another tab may have changed it.
 *
 * @module
 */
import { hasSchema, SCHEMA_VERSION, upgradeSchema } from "./schema.js";

/** How long an open that is blocked by another tab's older connection waits before it fails. */
const BLOCKED_TIMEOUT_MS = 10_000;

/**
 * One cached `IDBDatabase`, opened lazily.
 *
 * @example
 * ```ts
 * const connection = new DatabaseConnection(indexedDB, "rxagent-sessions");
 * const db = await connection.get();
 * connection.close();
 * ```
 */
export class DatabaseConnection {
  private pending: Promise<IDBDatabase> | undefined;
  private current: IDBDatabase | undefined;
  /** Bumped by `close()`, so an open still under way when the store is closed does not come back to life. */
  private generation = 0;

  constructor(
    private readonly factory: IDBFactory | undefined,
    /** The database name. */
    readonly name: string,
  ) {}

  /** The open database, opening it when there is none (again after a failed open). */
  get(): Promise<IDBDatabase> {
    if (!this.pending) {
      const pending = this.open();
      this.pending = pending;
      pending.catch(() => {
        if (this.pending === pending) this.pending = undefined;
      });
    }
    return this.pending;
  }

  /** Closes the connection (`db` only if it is still the current one); the next `get()` opens a new one. */
  close(db?: IDBDatabase): void {
    if (db && db !== this.current) {
      db.close();
      return;
    }
    this.generation++;
    this.current?.close();
    this.current = undefined;
    this.pending = undefined;
  }

  private open(): Promise<IDBDatabase> {
    const { factory, name } = this;
    if (!factory) {
      return Promise.reject(new Error("IndexedDbSessionStore: there is no IndexedDB here (globalThis.indexedDB is undefined). Use it in a browser, or pass options.indexedDB (for example fake-indexeddb's IDBFactory in Node)."));
    }
    const generation = this.generation;
    return new Promise<IDBDatabase>((resolve, reject) => {
      let request: IDBOpenDBRequest;
      try {
        request = factory.open(name, SCHEMA_VERSION);
      } catch (error) {
        reject(error);
        return;
      }
      let timer: ReturnType<typeof setTimeout> | undefined;
      let gaveUp = false;
      request.onupgradeneeded = (event) => upgradeSchema(request.result, event.oldVersion);
      request.onblocked = () => {
        // The other tabs were sent `versionchange` and normally close at once (this class does);
        // one that does not must not leave every call hanging.
        timer ??= setTimeout(() => {
          gaveUp = true;
          reject(new Error(`IndexedDbSessionStore: opening the IndexedDB database "${name}" is blocked by another tab that keeps an older version of it open. Close or reload the other tabs of this site.`));
        }, BLOCKED_TIMEOUT_MS);
      };
      request.onsuccess = () => {
        clearTimeout(timer);
        const db = request.result;
        if (gaveUp) {
          db.close();
          return;
        }
        if (generation !== this.generation) {
          db.close();
          reject(new Error(`IndexedDbSessionStore: the store was closed while its database "${name}" was opening.`));
          return;
        }
        if (!hasSchema(db)) {
          db.close();
          reject(new Error(`IndexedDbSessionStore: the IndexedDB database "${name}" exists but is not a session database (it has no "entries" and "leases" object stores). Pass another options.name.`));
          return;
        }
        // Close at once, so the other tab's upgrade is not blocked; the next call opens again and
        // learns whether this release can still read the database.
        db.onversionchange = () => this.close(db);
        // The browser closed it (storage cleared, disk error): open again on the next call.
        db.onclose = () => {
          if (this.current === db) this.close(db);
        };
        this.current = db;
        resolve(db);
      };
      request.onerror = () => {
        clearTimeout(timer);
        if (gaveUp) return;
        const error = request.error;
        if (error?.name === "VersionError") {
          reject(new Error(`IndexedDbSessionStore: the IndexedDB database "${name}" was upgraded past version ${SCHEMA_VERSION}, the one this release reads, by a newer release (in another tab?). Reload the page to run the newer release.`, { cause: error }));
        } else {
          reject(error ?? new Error(`IndexedDbSessionStore: the IndexedDB database "${name}" could not be opened.`));
        }
      };
    });
  }
}
