/**
 * When a remote agent tries again after its connection dropped: exponential backoff from
 * `initialDelayMs`, doubling up to `maxDelayMs`, each delay shortened by a random part of it
 * (`jitter`), so tabs cut at once by a restart do not all come back in the same moment; while the browser says it is offline, at its
 * next `online` event instead. And when a connection that says nothing is taken as dropped.
 *
 * @module
 */
import { asyncScheduler, fromEvent, map, startWith, switchMap, take, timer, type Observable, type SchedulerLike, type Subject } from "rxjs";
import type { AgentConnection } from "../agent/agent-like.js";

/** The backoff. */
export interface ReconnectOptions {
  /** The first delay. Default 500 ms. */
  initialDelayMs?: number;
  /** The longest delay. Default 30 s. */
  maxDelayMs?: number;
  /** The share of each delay taken off at random, from 0 (none: every client waits the same) to 0.9 (more is taken as 0.9: some wait is always left). Default 0.5. */
  jitter?: number;
}

/**
 * The delay before attempt `attempt` (1 for the first): `initialDelayMs · 2^(attempt−1)`, at most
 * `maxDelayMs`, less `jitter · random()` of it.
 */
export function backoffMs(attempt: number, options: ReconnectOptions = {}, random: () => number = Math.random): number {
  const initial = options.initialDelayMs ?? 500;
  const max = options.maxDelayMs ?? 30_000;
  const jitter = Math.min(0.9, Math.max(0, options.jitter ?? 0.5));
  return Math.min(max, initial * 2 ** Math.min(attempt - 1, 30)) * (1 - jitter * random());
}

/**
 * Tells `connection` how it stands, then waits: for the backoff, or for `online` when offline
 * (`environment`: the page's window, where `navigator.onLine` and the `online` event are).
 *
 * ```text
 * attempt 3, initialDelayMs 10, jitter 0:  ---------------------------------------0|   (40 ms)
 * ```
 */
export function reconnectDelay(
  attempt: number,
  options: ReconnectOptions | undefined,
  scheduler: SchedulerLike | undefined,
  connection: Subject<AgentConnection>,
  environment: object = globalThis,
): Observable<unknown> {
  const online = (environment as { navigator?: { onLine?: boolean } }).navigator?.onLine;
  const target = environment as EventTarget;
  if (online === false && typeof target.addEventListener === "function") {
    connection.next({ status: "offline" });
    return fromEvent(target, "online").pipe(take(1));
  }
  const delayMs = backoffMs(attempt, options);
  connection.next({ status: "reconnecting", attempt, delayMs });
  return timer(delayMs, scheduler ?? asyncScheduler);
}

/**
 * Errors once `activity` has been silent for `idleMs` (from subscription, then from its last
 * value): a link that carries neither entries nor heartbeats is dead even if no one closed it —
 * a server host that lost power, a network that dropped the route, a proxy that forgot the
 * connection — and no error would ever come from the socket.
 *
 * ```text
 * activity:  --a---a-----------
 * silence:   --------------#        (idleMs 8: eight frames after the last a)
 * ```
 *
 * @example
 * ```ts
 * const dead = silence(bytesRead$, 45_000).subscribe({ error: () => reconnect() });
 * ```
 */
export function silence(activity: Observable<unknown>, idleMs: number, scheduler: SchedulerLike = asyncScheduler): Observable<never> {
  return activity.pipe(
    startWith(undefined),
    switchMap(() => timer(idleMs, scheduler)),
    map(() => {
      throw new Error(`The session server sent nothing for ${idleMs} ms: the connection is taken as dropped.`);
    }),
  );
}
