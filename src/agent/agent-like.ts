/**
 * What a user interface uses of an agent, whether it runs in the page (`Agent`) or on a server
 * that the page follows (the remote agent): the state and its stream, the events, and the
 * commands. A component written against `AgentLike` works unchanged against either.
 *
 * @module
 */
import type { Observable } from "rxjs";
import type { ImageContent } from "../model/messages.js";
import type { AgentEvent, AgentMessage } from "../model/types.js";
import type { AgentStateSnapshot } from "./agent-state-types.js";
import type { PromptInput } from "./prompt-input.js";

/**
 * The state a user interface reads. The tools are left out: a remote agent's tools run on the
 * server, and only their names travel.
 */
export type AgentViewState = Omit<AgentStateSnapshot, "tools">;

/**
 * How a remote agent's link to its server stands: `connected`; `reconnecting` after a drop,
 * with the attempt number and the delay before it; `offline` when the browser says so (or the
 * agent was closed); `refused` when the server will not let the page follow the session (401,
 * 403, 404: no retry helps; sign in again, or follow another session).
 */
export type AgentConnection =
  | { readonly status: "connected" }
  | { readonly status: "reconnecting"; readonly attempt: number; readonly delayMs: number }
  | { readonly status: "offline" }
  | { readonly status: "refused"; readonly httpStatus: number };

/**
 * The surface a user interface uses of an agent. `Agent` implements it; so does the remote
 * agent, which adds `connection$`.
 *
 * @example
 * ```ts
 * function follow(agent: AgentLike): Subscription {
 *   return agent.events$.pipe(textDeltas()).subscribe((delta) => output.append(delta));
 * }
 * ```
 */
export interface AgentLike {
  /** The state now. */
  readonly state: AgentViewState;
  /** The state now, then after every change (frozen snapshots). */
  readonly state$: Observable<AgentViewState>;
  /** Every event of every run, as it happens (hot). */
  readonly events$: Observable<AgentEvent>;
  /** Where the agent runs elsewhere: how the link to it stands. Absent for an agent in this process. */
  readonly connection$?: Observable<AgentConnection>;
  /** Starts a run with `input`; resolves when it has settled. Rejects while a run is active. */
  prompt(input: PromptInput, images?: ImageContent[]): Promise<void>;
  /** {@link AgentLike.prompt} as an Observable (cold): subscribing starts the run, its events arrive as they happen, it completes when the run has settled, and unsubscribing before that aborts the run. */
  prompt$(input: PromptInput, images?: ImageContent[]): Observable<AgentEvent>;
  /** Queues a message for after the current turn. */
  steer(message: AgentMessage | string): void;
  /** Queues a message for when the run would otherwise stop. */
  followUp(message: AgentMessage | string): void;
  /** Stops the current run, if one is going. */
  abort(): void;
  /** Lets a tool call that waits for approval run (with other arguments, if given). */
  approve(toolCallId: string, options?: { args?: unknown }): void;
  /** Refuses a tool call that waits for approval; the model reads `reason`. */
  deny(toolCallId: string, reason?: string): void;
}
