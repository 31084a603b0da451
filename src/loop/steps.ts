/**
 * The steps that carry a run from one phase to the next through `expandSteps` (SPEC L4): each
 * phase is an Observable of events that ends with the step to take next, or with `agent_end`.
 *
 * ```text
 * NextTurn → (turn_start, pending messages, hooks) → Request
 * Request  → (message_start, message_update…, message_end, the tool batch) → FinishTurn
 * FinishTurn → (turn_end, queue polls) → NextTurn | agent_end
 * ```
 *
 * @module
 */
import type { Message, ToolResultMessage, AssistantMessage } from "../model/messages.js";
import type { AgentEvent, AgentMessage } from "../model/types.js";
import type { AgentTurnContext } from "./loop-config.js";

/** A step between two phases of a run; never emitted, only taken. */
export abstract class Step {
  abstract readonly kind: "next-turn" | "request" | "finish-turn";
}

/** The next turn: the messages that open it and the turn before (none before the first). */
export class NextTurn extends Step {
  readonly kind = "next-turn";
  constructor(
    readonly pending: AgentMessage[],
    readonly lastTurn: AgentTurnContext | undefined,
  ) {
    super();
  }
}

/** The request to send: the converted messages and the API key, after every hook ran. */
export class Request extends Step {
  readonly kind = "request";
  constructor(
    readonly messages: Message[],
    readonly apiKey: string | undefined,
  ) {
    super();
  }
}

/**
 * The end of a turn: its assistant message and its tool results in source order;
 * `hasMoreToolCalls` when the message made calls and not every result asked to stop; `hardExit`
 * for an error or aborted response, which ends the run (SPEC L6).
 */
export class FinishTurn extends Step {
  readonly kind = "finish-turn";
  constructor(
    readonly message: AssistantMessage,
    readonly toolResults: ToolResultMessage[],
    readonly hasMoreToolCalls: boolean,
    readonly hardExit = false,
  ) {
    super();
  }
}

/** What a phase emits: its events, and last the step to take next. */
export type Phase = AgentEvent | Step;

/** Whether a phase's value is a step (taken) rather than an event (emitted). */
export function isStep(value: Phase): value is Step {
  return value instanceof Step;
}
