/**
 * The hosting instance's side of a relay: every entry of its sessions' logs, queued and published
 * one batch at a time, off the Agent's path. The Agent's event only pushes onto a queue (and,
 * once the entries since the last state outweigh both `checkpointBytes` and that state, at a
 * checkpoint, serializes the log's state: never more state bytes than entry bytes); the relay's
 * speed or failure never reaches the run:
 *
 * - a failed publish is reported (`onError`), its sessions resynced, and the next one waits
 *   (doubling from `retryMs`, up to 30 s);
 * - a queue past `maxQueueBytes` (the database slower than the runs) is dropped whole, and its
 *   sessions resynced.
 *
 * A resynced session's next record, at its log's next checkpoint (at once when it is idle), is a
 * `resync`: its state, told to every follower, so nothing a follower folds is missing.
 *
 * @module
 */
import { asyncScheduler, type SchedulerLike, type Subscription, timer } from "rxjs";
import type { LoggedEvent } from "./event-log.js";
import type { HostedSession } from "./hosted-session.js";
import type { RelayRecord, RelayRole, SessionRelay } from "./session-relay.js";

/** How a publisher batches, bounds and reports. */
export interface RelayPublisherOptions {
  readonly relay: SessionRelay;
  readonly onError: (error: unknown, sessionId: string | undefined) => void;
  /** Bytes of entries between two checkpoints a session publishes (what a relay keeps is about twice it). */
  readonly checkpointBytes: number;
  /** Bytes waiting to be published before the queue is dropped. */
  readonly maxQueueBytes: number;
  /** The first wait after a failed publish. */
  readonly retryMs: number;
  /** Where its waits run (the server's scheduler; virtual time in tests). Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike | undefined;
}

const MAX_RETRY_MS = 30_000;
/** How long a session that is let go waits for the relay to take its last entries. */
const FLUSH_LIMIT_MS = 10_000;

/** One hosted session's publishing. */
interface Publication {
  readonly sessionId: string;
  readonly session: HostedSession;
  bytesSinceState: number;
  /** The size of the last state published: a checkpoint waits for at least as many bytes of entries. */
  stateBytes: number;
  resync: boolean;
  closed: boolean;
}

/**
 * Publishes the entries of the sessions attached to it.
 *
 * @example
 * ```ts
 * const publisher = new RelayPublisher({ relay, onError, checkpointBytes: 256 << 10, maxQueueBytes: 16 << 20, retryMs: 1000 });
 * const subscription = publisher.attach("chat-1", hosted); // once `onHosted` has resolved
 * ```
 */
export class RelayPublisher {
  private queue: Array<{ record: RelayRecord; publication: Publication }> = [];
  private queueBytes = 0;
  private draining: Promise<void> | undefined;
  private delayMs = 0;
  private timer: Subscription | undefined;
  private wake: (() => void) | undefined;
  private closed = false;
  /** The sessions of the batch being published. */
  private readonly inFlight = new Set<string>();
  /** Told after each publish, whether it succeeded or failed. */
  private attempted: Array<() => void> = [];

  constructor(private readonly options: RelayPublisherOptions) {}

  /**
   * Resolves once nothing of session `sessionId` is queued or being published: published, or
   * dropped after a failed publish. Awaited before a session's lease is given up, so no record of
   * this hosting can land after the next host's.
   */
  async flushed(sessionId: string, limitMs = FLUSH_LIMIT_MS): Promise<void> {
    let waited = false;
    const limit = this.after(limitMs, () => {
      waited = true;
      for (const told of this.attempted.splice(0)) told();
    });
    try {
      while (this.inFlight.has(sessionId) || this.queue.some((item) => item.record.sessionId === sessionId)) {
        if (waited) {
          // A publish that hangs (a split network, a query without a timeout) does not hold the
          // lease for ever: what is still queued is dropped, and a later hosting resyncs.
          this.queue = this.queue.filter((item) => item.record.sessionId !== sessionId);
          this.queueBytes = this.queue.reduce((sum, item) => sum + item.record.entry.data.length, 0);
          this.options.onError(new Error(`The relay did not take session ${JSON.stringify(sessionId.slice(0, 200))}'s last entries within ${limitMs} ms; the session is let go without them.`), sessionId);
          return;
        }
        await new Promise<void>((resolve) => this.attempted.push(resolve));
      }
    } finally {
      limit.unsubscribe();
    }
  }

  /**
   * Publishes what `session`'s log holds now (from its first state, or from its checkpoint as a
   * resync when it no longer holds its start), then each new entry. Unsubscribe to stop.
   */
  attach(sessionId: string, session: HostedSession): Subscription {
    const publication: Publication = { sessionId, session, bytesSinceState: 0, stateBytes: 0, resync: false, closed: false };
    const { log } = session;
    const replay = log.replayAfter(log.idOf(0));
    if (replay.kind === "snapshot") this.push(publication, "resync", { n: replay.n, kind: "state", data: replay.data });
    for (const entry of replay.events) this.entry(publication, entry);
    const subscription = session.entries$.subscribe((entry) => this.entry(publication, entry));
    subscription.add(() => (publication.closed = true));
    return subscription;
  }

  /** Publishes what is queued, then stops: what is attached later is not published. */
  close(): Promise<void> {
    this.closed = true;
    this.timer?.unsubscribe();
    this.wake?.();
    return this.draining ?? Promise.resolve();
  }

  // On the Agent's path: never throws, never waits.
  private entry(publication: Publication, entry: LoggedEvent): void {
    try {
      const { log } = publication.session;
      const atCheckpoint = log.checkpointNumber === entry.n;
      if (publication.resync) {
        // Until a checkpoint, the entries would follow a gap: the resync's state covers them.
        if (atCheckpoint) this.push(publication, "resync", { n: entry.n, kind: "state", data: log.checkpointData() });
        return;
      }
      this.push(publication, "entry", entry);
      if (entry.kind === "event") publication.bytesSinceState += entry.data.length;
      // Never more state than entries: a long transcript's checkpoints come as seldom as it is large.
      if (atCheckpoint && publication.bytesSinceState >= Math.max(this.options.checkpointBytes, publication.stateBytes)) this.push(publication, "checkpoint", { n: entry.n, kind: "state", data: log.checkpointData() });
    } catch (error) {
      this.options.onError(error, publication.sessionId);
    }
  }

  private push(publication: Publication, role: RelayRole, entry: LoggedEvent): void {
    if (this.closed || publication.closed) return;
    if (entry.kind === "state") {
      publication.bytesSinceState = 0;
      publication.stateBytes = entry.data.length;
    }
    if (role === "resync") publication.resync = false;
    const record: RelayRecord = { sessionId: publication.sessionId, role, entry: { id: publication.session.log.idOf(entry.n), kind: entry.kind, data: entry.data } };
    if (this.queueBytes + entry.data.length > this.options.maxQueueBytes && this.queue.length > 0) {
      const dropped = this.queue;
      this.queue = [];
      this.queueBytes = 0;
      this.options.onError(new Error(`The session relay fell behind: ${dropped.length} entries were dropped, their sessions resynced.`), undefined);
      this.resync([...dropped.map((item) => item.publication), publication]);
      return;
    }
    this.queue.push({ record, publication });
    this.queueBytes += entry.data.length;
    this.draining ??= this.drain();
  }

  /** Marks the sessions for a resync; one at a checkpoint now (idle) gets it at once. */
  private resync(publications: readonly Publication[]): void {
    for (const publication of new Set(publications)) {
      if (publication.closed) continue;
      publication.resync = true;
      const { log } = publication.session;
      if (log.checkpointNumber === log.lastNumber && log.lastNumber > 0) this.push(publication, "resync", { n: log.lastNumber, kind: "state", data: log.checkpointData() });
    }
  }

  // One publish at a time, so a session's records land in order; never rejects.
  private async drain(): Promise<void> {
    try {
      await Promise.resolve();
      while (this.queue.length > 0) {
        const batch = this.queue;
        this.queue = [];
        this.queueBytes = 0;
        for (const item of batch) this.inFlight.add(item.record.sessionId);
        const published = await this.publish(batch);
        this.inFlight.clear();
        for (const told of this.attempted.splice(0)) told();
        if (!published && !this.closed) await this.pause();
      }
    } finally {
      // In the same step as the last look at the queue: a record pushed after it starts a new drain.
      this.draining = undefined;
    }
  }

  /** Publishes `batch`; on failure reports it and resyncs its sessions. */
  private async publish(batch: ReadonlyArray<{ record: RelayRecord; publication: Publication }>): Promise<boolean> {
    try {
      await this.options.relay.publish(batch.map((item) => item.record));
      this.delayMs = 0;
      return true;
    } catch (error) {
      this.options.onError(error, batch[0]?.record.sessionId);
      if (!this.closed) {
        // What those sessions queued since would follow the gap: their resync replaces it.
        const failed = new Set(batch.map((item) => item.publication));
        this.queue = this.queue.filter((item) => !failed.has(item.publication));
        this.queueBytes = this.queue.reduce((sum, item) => sum + item.record.entry.data.length, 0);
        this.resync([...failed]);
      }
      this.delayMs = Math.min(MAX_RETRY_MS, this.delayMs === 0 ? this.options.retryMs : this.delayMs * 2);
      return false;
    }
  }

  /** `then` after `ms` on the scheduler. */
  private after(ms: number, then: () => void): Subscription {
    return timer(ms, this.options.scheduler ?? asyncScheduler).subscribe(then);
  }

  /** Waits after a failure (cut short by `close()`). */
  private async pause(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.wake = resolve;
      this.timer = this.after(this.delayMs, resolve);
    });
    this.timer = undefined;
    this.wake = undefined;
  }
}
