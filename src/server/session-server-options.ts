/**
 * The session server's options and their defaults.
 *
 * @module
 */
import type { Observable, SchedulerLike } from "rxjs";
import type { Agent } from "../agent/agent.js";
import { describeError } from "../model/describe-error.js";
import { redactSecrets } from "../model/redact-secrets.js";
import type { SessionAction } from "./session-command.js";
import type { SessionRelay } from "./session-relay.js";

/** What `createSessionServer` is given. */
export interface SessionServerOptions {
  /** The Agent of session `id`, made once per hosting when first watched or commanded (give it its durable session); `undefined`: no such session (404). */
  agentFor(id: string): Agent | undefined | Promise<Agent | undefined>;
  /** Who sends `request` (a user, a token's owner); `undefined`, `null` or `false`: nobody (401). Runs before the body is read. */
  authenticate(request: Request): unknown;
  /** Whether `principal` may do `action` on session `id` (`watch` to follow it; a command's type). */
  authorize(principal: unknown, id: string, action: SessionAction): boolean | Promise<boolean>;
  /** Where the sessions are: `{basePath}/{id}/events` and `{basePath}/{id}/commands`. Default `/sessions`. */
  basePath?: string;
  /** Largest command body, in bytes. Default 1 MiB. */
  maxBodyBytes?: number;
  /** How long a command body may take to arrive. Default 30 s. */
  bodyTimeoutMs?: number;
  /** Heartbeat interval of an event stream. Default 15 s. */
  heartbeatMs?: number;
  /** Serialized events a session keeps for followers that resume (the current message's are always kept). Default 4 MiB. */
  maxReplayBytes?: number;
  /** Bytes a follower may leave unread before its stream is ended (it resumes). Default 1 MiB. */
  maxClientBufferBytes?: number;
  /** Told of a hook or a run that failed (never sent to a client). Default: `console.error`. */
  onError?(error: unknown, sessionId: string | undefined): void;
  /**
   * Called when a session's Agent is hosted, before anything is served: return
   * `agent.resume$()` to resume a durable session. An Observable is subscribed and the session
   * served once it has emitted or completed (the journal restored, a resumed run begun), and it
   * keeps running while hosted: the resumed run reaches followers as it goes, and an approval
   * it waits for can be answered. A promise is awaited whole. A failure before that refuses the
   * request (500) and hosts nothing; a later error of the Observable goes to `onError`.
   *
   * @example
   * ```ts
   * createSessionServer({ agentFor, authenticate, authorize, onHosted: (_id, agent) => agent.resume$() });
   * ```
   */
  onHosted?(id: string, agent: Agent): void | Promise<void> | Observable<unknown>;
  /** Told when a session is let go (`maxSessions`, `close()`): its Agent is the app's again (to `closeSession()` it). */
  onReleased?(id: string, agent: Agent): void;
  /** Sessions hosted at once; a new one lets the longest-unused idle one go, or is refused (503). Default 1000. */
  maxSessions?: number;
  /**
   * Several instances on one database: this instance publishes the entries of the sessions it
   * hosts, and serves the followers of a session whose lease another instance holds (`onHosted`
   * rejected with `SessionLeaseHeldError`; its Agent goes to `onReleased`) from the relay, with the
   * host's ids; commands for it are forwarded to the host through the relay (a 409 when the relay
   * has no `commands`). See `rxagent/server/postgres`.
   */
  relay?: SessionRelay;
  /** Bytes of entries between two checkpoints a hosted session publishes to the relay, and at least the state's size (a relay keeps about twice it per session). Default 256 KiB. */
  relayCheckpointBytes?: number;
  /** Bytes of entries waiting for the relay before the queue is dropped and its sessions resynced (the run never waits). Default 16 MiB. */
  relayQueueBytes?: number;
  /** How long a command forwarded to another instance waits for its answer (then 504). Default 10 s. */
  relayCommandTimeoutMs?: number;
  /** Heartbeats' scheduler (virtual time in tests). */
  scheduler?: SchedulerLike;
}

/** The options with their defaults, checked. */
export interface ResolvedServerOptions {
  readonly basePath: string;
  readonly maxBodyBytes: number;
  readonly bodyTimeoutMs: number;
  readonly heartbeatMs: number;
  readonly maxReplayBytes: number;
  readonly maxBufferBytes: number;
  readonly onError: (error: unknown, sessionId: string | undefined) => void;
  readonly onHosted: ((id: string, agent: Agent) => void | Promise<void> | Observable<unknown>) | undefined;
  readonly onReleased: ((id: string, agent: Agent) => void) | undefined;
  readonly maxSessions: number;
  readonly relay: SessionRelay | undefined;
  readonly relayCheckpointBytes: number;
  readonly relayQueueBytes: number;
  readonly relayCommandTimeoutMs: number;
  readonly scheduler?: SchedulerLike;
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!(value > 0) || !Number.isFinite(value)) throw new TypeError(`createSessionServer: \`${name}\` must be a positive number, got ${String(value)}`);
  return value;
}

/** Timers overflow past 2³¹−1 ms (to about 1 ms): a longer time is refused rather than cut short. */
const MAX_TIMER_MS = 2 ** 31 - 1;

function duration(value: number | undefined, fallback: number, name: string, max = MAX_TIMER_MS): number {
  const ms = positive(value, fallback, name);
  if (ms > max) throw new TypeError(`createSessionServer: \`${name}\` must be at most ${max} ms, got ${String(value)}`);
  return ms;
}

/** Checks `options` and fills in the defaults; throws a `TypeError` naming what is wrong. */
export function resolveServerOptions(options: SessionServerOptions): ResolvedServerOptions {
  for (const hook of ["agentFor", "authenticate", "authorize"] as const) {
    if (typeof options[hook] !== "function") throw new TypeError(`createSessionServer: \`${hook}\` must be a function`);
  }
  const basePath = options.basePath ?? "/sessions";
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(basePath)) throw new TypeError(`createSessionServer: \`basePath\` must be a path like "/sessions", got ${JSON.stringify(basePath)}`);
  const resolved: ResolvedServerOptions = {
    basePath,
    maxBodyBytes: positive(options.maxBodyBytes, 1 << 20, "maxBodyBytes"),
    bodyTimeoutMs: duration(options.bodyTimeoutMs, 30_000, "bodyTimeoutMs"),
    heartbeatMs: duration(options.heartbeatMs, 15_000, "heartbeatMs"),
    maxReplayBytes: positive(options.maxReplayBytes, 4 << 20, "maxReplayBytes"),
    maxBufferBytes: positive(options.maxClientBufferBytes, 1 << 20, "maxClientBufferBytes"),
    onError: options.onError ?? ((error) => console.error(`rxagent session server: ${redactSecrets(describeError(error))}`)),
    onHosted: options.onHosted?.bind(options),
    onReleased: options.onReleased?.bind(options),
    maxSessions: positive(options.maxSessions, 1000, "maxSessions"),
    relay: options.relay,
    relayCheckpointBytes: positive(options.relayCheckpointBytes, 256 << 10, "relayCheckpointBytes"),
    relayQueueBytes: positive(options.relayQueueBytes, 16 << 20, "relayQueueBytes"),
    // Below the five minutes after which a relay may delete a command row as left behind.
    relayCommandTimeoutMs: duration(options.relayCommandTimeoutMs, 10_000, "relayCommandTimeoutMs", 240_000),
  };
  if (options.relay !== undefined && (typeof options.relay.publish !== "function" || typeof options.relay.follow !== "function")) throw new TypeError("createSessionServer: `relay` must have `publish` and `follow`");
  return options.scheduler ? { ...resolved, scheduler: options.scheduler } : resolved;
}
