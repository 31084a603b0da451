/**
 * `rxagent/operators`: the operators an app composes an agent's events with (`agent.events$`,
 * `agentLoop(...)`, `prompt$()`), so it need not narrow `event.type` by hand.
 *
 * @example
 * ```ts
 * import { assistantText, ofType, toolCalls } from "rxagent/operators";
 * agent.events$.pipe(ofType("agent_end")).subscribe((end) => console.log(end.outcome));
 * ```
 *
 * @module
 */
export { type AgentEventOf, ofType } from "./of-type.js";
export { textDeltas } from "./text-deltas.js";
export { assistantText } from "./assistant-text.js";
export { committedMessages } from "./committed-messages.js";
export { type ToolCallState, type ToolCallStatus, toolCalls } from "./tool-calls.js";
