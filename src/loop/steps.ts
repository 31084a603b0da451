/**
 * The steps that carry a run from one phase to the next through `expandSteps` (SPEC L4): each
 * phase is an Observable of events that ends with the step to take next; the run ends with the
 * phase that emits `agent_end` and no step.
 *
 * ```text
 * start                 agent_start, turn_start                    → Append(prompts) | FirstPoll
 * FirstPoll             steering poll, then as Append(pending)     → SendRequest
 * Append                the messages' start and end                → SendRequest
 * SendRequest           the request hooks, the provider's message events → Responded
 * Responded             the tool batch                             → FinishTurn
 * FinishTurn            finishTurn, turn_end                       → AfterTurn | End
 * AfterTurn             steering poll, then follow-up poll; the next turn's
 *                       prepareNextTurn, steering poll if nothing is pending,
 *                       turn_start (next-turn.ts)                  → Append(pending) | agent_end
 * End                   agent_end
 * ```
 *
 * @module
 */
import type { AssistantMessage, ToolResultMessage } from "../model/messages.js";
import type { AgentEvent, AgentMessage } from "../model/types.js";
import type { AgentTurnContext } from "./loop-config.js";

/** A step between two phases of a run; never emitted, only taken. */
export abstract class Step {}

/** The first steering poll, after the prompts (SPEC L7). */
export class FirstPoll extends Step {}

/** Messages to add before a request; then `next`, or the request when there is none. */
export class Append extends Step {
  constructor(
    readonly messages: readonly AgentMessage[],
    readonly next?: Step,
  ) {
    super();
  }
}

/** The request: its hooks, then the provider (SPEC L3). */
export class SendRequest extends Step {}

/** The response's final message: its tool calls come next, or the turn's end. */
export class Responded extends Step {
  constructor(readonly message: AssistantMessage) {
    super();
  }
}

/**
 * The end of a turn: its assistant message and its tool results in source order;
 * `hasMoreToolCalls` when the message made calls and not every result asked to stop; `hardExit`
 * for an error or aborted response, which ends the run (SPEC L6).
 */
export class FinishTurn extends Step {
  constructor(
    readonly message: AssistantMessage,
    readonly toolResults: ToolResultMessage[],
    readonly hasMoreToolCalls: boolean,
    readonly hardExit = false,
  ) {
    super();
  }
}

/** After `turn_end`: what decides the next turn (SPEC L7, L8). */
export class AfterTurn extends Step {
  constructor(
    readonly lastTurn: AgentTurnContext,
    readonly action: string | undefined,
    readonly hasMoreToolCalls: boolean,
  ) {
    super();
  }
}

/** `agent_end`. */
export class End extends Step {}

/** What a phase emits: its events, and last the step to take next. */
export type Phase = AgentEvent | Step;

/** Whether a phase's value is a step (taken) rather than an event (emitted). */
export function isStep(value: Phase): value is Step {
  return value instanceof Step;
}
