/**
 * The relay's one `LISTEN` connection: a client of the app's pool, held while any follower
 * reads, given back (closed) when the last one leaves, and re-established when its connection
 * drops. Each follower is woken when its session's channel says something was published, and
 * once each time `LISTEN` is (re-)established — then it reads what it may have missed.
 *
 * @module
 */
import type { RelayNotification, RelayPool, RelayPoolClient } from "./pg-relay-types.js";

const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5_000;

/**
 * Wakes the followers of a session when the hosting instance publishes to it.
 *
 * @example
 * ```ts
 * const listener = new RelayListener(pool, '"rxagent_relay"', "rxagent_relay");
 * const stop = listener.listen("chat-1", () => readNewRows());
 * ```
 */
export class RelayListener {
  private readonly waiters = new Map<string, Set<() => void>>();
  private count = 0;
  /** Closes the current connection, if any; whether it was still open. */
  private current: (() => boolean) | undefined;
  private listening = false;
  /** Which connection is current: a callback of an older one does nothing. */
  private generation = 0;
  private retryMs = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * @param quotedChannel - The channel as an identifier for `LISTEN` (quoted).
   * @param channel - The channel's name as notifications carry it.
   * @param onError - Told of a connection that failed or dropped (it is tried again).
   */
  constructor(
    private readonly pool: RelayPool,
    private readonly quotedChannel: string,
    private readonly channel: string,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Calls `wake` on each publish to `sessionId`, and once `LISTEN` is (re-)established; returns how to stop. */
  listen(sessionId: string, wake: () => void): () => void {
    let set = this.waiters.get(sessionId);
    if (!set) this.waiters.set(sessionId, (set = new Set()));
    set.add(wake);
    if (this.count++ === 0) this.connect();
    else if (this.listening) queueMicrotask(wake);
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      set.delete(wake);
      if (set.size === 0 && this.waiters.get(sessionId) === set) this.waiters.delete(sessionId);
      if (--this.count === 0) this.disconnect();
    };
  }

  private connect(): void {
    const generation = ++this.generation;
    this.pool.connect().then(
      (client) => this.listenOn(client, generation),
      (error: unknown) => this.dropped(generation, error),
    );
  }

  private listenOn(client: RelayPoolClient, generation: number): void {
    if (generation !== this.generation) return client.release();
    const onNotification = (message: RelayNotification) => {
      if (message.channel !== this.channel || !message.payload) return;
      const sessionId = message.payload.slice(0, message.payload.lastIndexOf(" "));
      for (const wake of this.waiters.get(sessionId) ?? []) wake();
    };
    let gone = false;
    const close = () => {
      if (gone) return false;
      gone = true;
      client.removeListener("notification", onNotification);
      if (this.current === close) this.current = undefined;
      client.release(true);
      return true;
    };
    const onDrop = (error?: unknown) => {
      if (close()) this.dropped(generation, error ?? new Error("The relay's LISTEN connection ended."));
    };
    client.on("notification", onNotification);
    // Kept for good: pg emits "error" on a client whose connection breaks, even once released.
    client.on("error", onDrop);
    client.on("end", () => onDrop());
    this.current = close;
    client.query(`LISTEN ${this.quotedChannel}`).then(
      () => {
        if (gone || generation !== this.generation) return;
        this.retryMs = 0;
        this.listening = true;
        // Whatever was published while not listening is read now.
        for (const set of this.waiters.values()) for (const wake of set) wake();
      },
      (error: unknown) => onDrop(error),
    );
  }

  private dropped(generation: number, error: unknown): void {
    if (generation !== this.generation || this.count === 0) return;
    this.listening = false;
    this.onError(error);
    this.retryMs = Math.min(MAX_RETRY_MS, this.retryMs === 0 ? FIRST_RETRY_MS : this.retryMs * 2);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (generation === this.generation && this.count > 0) this.connect();
    }, this.retryMs);
  }

  // Closed, not returned to the pool: a pooled connection would go on listening.
  private disconnect(): void {
    this.generation++;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.listening = false;
    this.current?.();
  }
}
