/**
 * The step that carries the loop from one turn to the next through `expand` (SPEC L4).
 *
 * @module
 */
import type { AgentEvent, AgentMessage } from "../model/types.js";
import type { AgentTurnContext } from "./loop-config.js";

/** The next turn, as it travels through `expand`: the messages that open it and the turn before. */
export class NextTurn {
  constructor(
    readonly pending: AgentMessage[],
    readonly lastTurn: AgentTurnContext | undefined,
  ) {}
}

/** What a turn emits: its events, and last the next turn when the run goes on. */
export type Step = AgentEvent | NextTurn;

