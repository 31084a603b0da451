/**
 * The state a session's followers see, as the fold of its events: the Agent's own reducer, with
 * a run begun at `agent_start` and ended at `agent_end`. The server folds every event it sends
 * with it, and so does each follower, so both hold the same state at every event.
 *
 * @module
 */
import { reduceAgentState, type AgentStateValue } from "../agent/agent-state-reducer.js";
import type { AgentEvent } from "../model/types.js";

/**
 * `state` after `event`.
 *
 * @example
 * ```ts
 * const state = events.reduce(foldView, initialAgentState([], model, "off", []));
 * ```
 */
export function foldView(state: AgentStateValue, event: AgentEvent): AgentStateValue {
  if (event.type === "agent_start") return reduceAgentState(reduceAgentState(state, { type: "[state] run begun" }), event);
  if (event.type === "agent_end") return reduceAgentState(reduceAgentState(state, event), { type: "[state] run ended" });
  return reduceAgentState(state, event);
}
