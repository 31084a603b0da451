/**
 * Appends to one session's journal, one append at a time (SPEC S2, S6): entries are numbered as
 * they are written; while an append is in flight the next entries wait and go together in the
 * next one (group commit). A store that answers synchronously is written synchronously, with
 * nothing allocated to wait on (SPEC L12).
 *
 * @module
 */
import { filter, isObservable, map, type Observable, Subject, take, throwError } from "rxjs";
import { maybeAsync } from "../rx/maybe-async.js";
import type { JournalEntry } from "./journal-entry.js";
import type { SessionStore } from "./session-store.js";

/**
 * The writer of one session, for the lease holder of `token`.
 *
 * ```text
 * store answers at once:   write(a) → appended, returns undefined
 * store answers later:     write(a) ─append([a])──────ok
 *                          write(b)      (waits)       append([b, c])──ok
 *                          write(c)      (waits)
 * ```
 *
 * @internal
 */
export class JournalWriter {
  /** Seq of the last entry numbered (written or waiting). */
  seq: number;
  /** Seq of the last entry the store confirmed. */
  private durable: number;
  private waiting: JournalEntry[] = [];
  private inFlight = false;
  private failed: unknown;
  private readonly progress = new Subject<number>();

  constructor(
    private readonly store: SessionStore,
    readonly sessionId: string,
    private readonly token: number,
    private readonly ttlMs: number,
    seq: number,
  ) {
    this.seq = seq;
    this.durable = seq;
  }

  /** The error that stopped the writer (a conflict, a fence, a failed write), if one did. */
  get error(): unknown {
    return this.failed;
  }

  /**
   * Numbers `entries` (their `seq` is set here; the writer owns them from now on) and appends
   * them after everything written before.
   * @return `undefined` once they are durable, else an Observable that completes when they are
   *   (and errors when they, or an earlier write, failed).
   */
  write(...entries: JournalEntry[]): void | Observable<void> {
    if (this.failed !== undefined) return throwError(() => this.failed);
    for (const entry of entries) {
      (entry as { seq: number }).seq = ++this.seq;
      this.waiting.push(entry);
    }
    if (!this.inFlight) this.flush();
    return this.whenDurable(this.seq);
  }

  /** `undefined` when everything up to `seq` is durable, else an Observable that completes when it is. */
  whenDurable(seq: number = this.seq): void | Observable<void> {
    if (this.failed !== undefined) return throwError(() => this.failed);
    if (this.durable >= seq) return undefined;
    return this.progress.pipe(
      filter((durable) => durable >= seq),
      take(1),
      map(() => undefined),
    );
  }

  private flush(): void {
    // `confirm` lets waiting runs go on synchronously, and they may write and start an append of
    // their own: never a second one while one is in flight.
    while (this.waiting.length > 0 && this.failed === undefined && !this.inFlight) {
      const batch = this.waiting;
      this.waiting = [];
      const last = batch[batch.length - 1]!.seq;
      const expectedSeq = batch[0]!.seq - 1;
      const appended = maybeAsync(() => this.store.append(this.sessionId, batch, { expectedSeq, token: this.token, ttlMs: this.ttlMs }), "error");
      if (!isObservable(appended)) {
        this.confirm(last);
        continue;
      }
      this.inFlight = true;
      appended.subscribe({
        next: () => {
          this.inFlight = false;
          this.confirm(last);
          this.flush();
        },
        error: (error: unknown) => {
          this.inFlight = false;
          this.fail(error);
        },
      });
      return;
    }
  }

  private confirm(seq: number): void {
    this.durable = seq;
    this.progress.next(seq);
  }

  private fail(error: unknown): void {
    this.failed = error;
    this.waiting = [];
    this.progress.error(error);
  }
}
