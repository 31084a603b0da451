/**
 * The sessions a server process hosts, at most `maxSessions` of them: a new one lets go of the
 * longest-unused idle one (nobody follows it, its Agent runs nothing), and is refused when none
 * is idle. Each hosting has its own epoch, so an id of an earlier hosting of the same session is
 * never taken for one of this log's. With a relay, a session whose lease another process holds is
 * not hosted (`HostedElsewhere`, never kept: the next request tries again), and every hosted
 * session is published.
 *
 * @module
 */
import { isObservable, type Observable } from "rxjs";
import type { Agent } from "../agent/agent.js";
import { SessionLeaseHeldError } from "../session/session-errors.js";
import { HostedSession } from "./hosted-session.js";
import type { RelayPublisher } from "./relay-publisher.js";

/** What hosting needs of the server's options. */
export interface HostingOptions {
  readonly agentFor: (id: string) => Agent | undefined | Promise<Agent | undefined>;
  readonly onHosted: ((id: string, agent: Agent) => void | Promise<void> | Observable<unknown>) | undefined;
  readonly onReleased: ((id: string, agent: Agent) => void) | undefined;
  readonly onError: (error: unknown, sessionId: string | undefined) => void;
  readonly maxSessions: number;
  readonly maxReplayBytes: number;
  /** With a relay: publishes each hosted session, and a session leased elsewhere is `HostedElsewhere`. */
  readonly publisher?: RelayPublisher | undefined;
  /** Told when a session begins to be hosted here (commands forwarded meanwhile are looked at again). */
  readonly onRunning?: ((id: string) => void) | undefined;
}

/** Why a session could not be hosted, as the client's status. */
export class HostingRefusal extends Error {
  constructor(
    readonly status: 404 | 503,
    message: string,
  ) {
    super(message);
  }
}

/** The session's lease is another process's (its `onHosted` met `SessionLeaseHeldError`): its followers read the relay. */
export class HostedElsewhere extends Error {
  constructor(readonly sessionId: string) {
    super("The session runs on another instance.");
  }
}

function isLeaseHeld(error: unknown): boolean {
  return error instanceof SessionLeaseHeldError || (error instanceof Error && error.name === "SessionLeaseHeldError");
}

function randomEpoch(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(9));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The hosted sessions of one server.
 *
 * @example
 * ```ts
 * const hosts = new SessionHosts(options);
 * const session = await hosts.host("chat-1");
 * ```
 */
export class SessionHosts {
  // Insertion order is use order: a session used again moves to the end.
  private readonly hosted = new Map<string, Promise<HostedSession>>();
  // The sessions whose hosting resolved, for commands forwarded by other instances.
  private readonly running = new Map<string, HostedSession>();
  private closed = false;

  constructor(private readonly options: HostingOptions) {}

  /** Whether `close()` was called: nothing is hosted any more. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Session `id`, hosted now if it was not. Rejects with a `HostingRefusal` (404, 503) or the app's error. */
  host(id: string): Promise<HostedSession> {
    if (this.closed) return Promise.reject(new HostingRefusal(503, "The server is closing."));
    const known = this.hosted.get(id);
    if (known) {
      this.hosted.delete(id);
      this.hosted.set(id, known);
      return known;
    }
    const made = this.make(id);
    this.hosted.set(id, made);
    // A session that could not be hosted is asked for again next time (if it is still the one kept).
    made.catch(() => {
      if (this.hosted.get(id) === made) this.hosted.delete(id);
    });
    return made;
  }

  /** The ids of the sessions hosted now. */
  hostedIds(): string[] {
    return [...this.running.keys()];
  }

  /** Session `id` when it is hosted now; never hosts it. */
  hostedNow(id: string): HostedSession | undefined {
    return this.running.get(id);
  }

  /** Stops hosting every session; later requests are refused. */
  close(): void {
    this.closed = true;
    for (const [id, session] of this.hosted) this.release(id, session);
    this.hosted.clear();
  }

  private async make(id: string): Promise<HostedSession> {
    await this.makeRoom(id);
    const agent = await this.options.agentFor(id);
    if (!agent) throw new HostingRefusal(404, "Not found");
    const session = new HostedSession(agent, randomEpoch(), this.options.maxReplayBytes, (error) => this.options.onError(error, id));
    try {
      const hosting = this.options.onHosted?.(id, agent);
      // An Observable (a resume): served once it has begun, kept running with the hosting.
      if (isObservable(hosting)) await session.resume(hosting, (error) => this.options.onError(error, id));
      else await hosting;
    } catch (error) {
      session.close();
      if (!this.options.publisher || !isLeaseHeld(error)) throw error;
      // Another instance runs it: this Agent is the app's again, and nothing of it was published.
      this.options.onReleased?.(id, agent);
      throw new HostedElsewhere(id);
    }
    // Published from its first state on, once hosted (a failed hosting publishes nothing).
    this.options.publisher?.attach(id, session);
    this.running.set(id, session);
    this.options.onRunning?.(id);
    return session;
  }

  // Over the bound: the longest-unused idle session goes; none idle, the new one is refused.
  private async makeRoom(id: string): Promise<void> {
    const others = () => this.hosted.size - (this.hosted.has(id) ? 1 : 0);
    if (others() < this.options.maxSessions) return;
    for (const [otherId, pending] of [...this.hosted]) {
      if (otherId === id) continue;
      const session = await pending.catch(() => undefined);
      if (session && !session.idle) continue;
      if (this.hosted.get(otherId) !== pending) continue;
      this.hosted.delete(otherId);
      if (session) this.release(otherId, pending);
      if (others() < this.options.maxSessions) return;
    }
    throw new HostingRefusal(503, "The server hosts as many sessions as it may; try again later.");
  }

  private release(id: string, pending: Promise<HostedSession>): void {
    pending.then(
      async (session) => {
        if (this.running.get(id) === session) this.running.delete(id);
        session.close();
        // Its last entries reach the relay before its Agent (and so its lease) is the app's again:
        // a later host's entries never land before them.
        await this.options.publisher?.flushed(id);
        this.options.onReleased?.(id, session.agent);
      },
      () => undefined,
    ).catch((error: unknown) => this.options.onError(error, id));
  }
}
