/**
 * The shape of what {@link injectAgent} gives a component.
 *
 * @module
 */
import type { Signal } from "@angular/core";
import type { Observable } from "rxjs";
import type { AgentConnection, AgentLike, AgentViewState } from "../agent/agent-like.js";
import type { ImageContent } from "../model/messages.js";
import type { ToolApprovalRequest } from "../model/tool-types.js";
import type { AgentEvent, AgentMessage, RunOutcome } from "../model/types.js";
import type { ToolCallState } from "../operators/tool-calls.js";
import type { PromptInput } from "../agent/prompt-input.js";
import type { QueuedMessage } from "./queued-messages.js";

/**
 * An agent as signals for the template, Observables for operators, and its commands. Every
 * signal follows the agent until the injection context it was made in is destroyed.
 *
 * @example
 * ```ts
 * readonly chat = injectAgent();
 * // template:
 * // @for (m of chat.messages(); track $index) { <p>{{ m.role }}</p> }
 * // @if (chat.streamingText()) { <p>{{ chat.streamingText() }}</p> }
 * // <button (click)="chat.abort()" [disabled]="!chat.running()">Stop</button>
 * ```
 */
export interface AgentSignals {
  /** The agent itself, for anything left out here. */
  readonly agent: AgentLike;

  /** The whole state, a frozen snapshot per change. */
  readonly state: Signal<AgentViewState>;
  /** The transcript. */
  readonly messages: Signal<readonly AgentMessage[]>;
  /**
   * The text of the assistant message being streamed; `""` when none streams, when it has no
   * text (only tool calls) and while tools run: draw the live bubble only when it is not empty.
   */
  readonly streamingText: Signal<string>;
  /** Whether a run is going (`state.isStreaming`). */
  readonly running: Signal<boolean>;
  /** Tool calls waiting for `approve()` or `deny()`, in the order they asked. */
  readonly pendingApprovals: Signal<readonly ToolApprovalRequest[]>;
  /** The tool calls of the current (or last) run, in the order they appeared. */
  readonly toolCalls: Signal<readonly ToolCallState[]>;
  /**
   * Messages sent with this object's `steer()`, `followUp()` or `send()` that have not joined the
   * transcript yet. The agent does not publish its queues, so what other code queues is not seen.
   */
  readonly queued: Signal<readonly QueuedMessage[]>;
  /** Why the last turn failed or was cut short (`state.errorMessage`). */
  readonly error: Signal<string | undefined>;
  /** How the last run ended; `undefined` before the first and while one runs. */
  readonly outcome: Signal<RunOutcome | undefined>;
  /** How the link to a remote agent stands; always `connected` for an agent in the page. */
  readonly connection: Signal<AgentConnection>;

  /** The state now, then after every change. */
  readonly state$: Observable<AgentViewState>;
  /** Every event of every run (hot). */
  readonly events$: Observable<AgentEvent>;
  /** The link's status: the agent's `connection$`, or `connected` once for an agent in the page. */
  readonly connection$: Observable<AgentConnection>;

  /** Starts a run; resolves when it has settled. Rejects while a run is going (use `send`, `steer` or `followUp`). */
  prompt(input: PromptInput, images?: ImageContent[]): Promise<void>;
  /**
   * A prompt when idle; steering while a run is going (resolving once the agent took it: at once
   * for a local agent, when the server answered for a remote one, rejecting if it refused).
   */
  send(text: string): Promise<void>;
  /** Queues a message for after the current tool batch; listed in `queued` until it lands. */
  steer(message: AgentMessage | string): void;
  /** Queues a message for when the run would otherwise stop; listed in `queued` until it lands. */
  followUp(message: AgentMessage | string): void;
  /** Stops the current run, if one is going. */
  abort(): void;
  /** Lets a waiting tool call run (with other arguments, if given). */
  approve(toolCallId: string, options?: { args?: unknown }): void;
  /** Refuses a waiting tool call; the model reads `reason`. */
  deny(toolCallId: string, reason?: string): void;
}
