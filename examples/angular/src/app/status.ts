/**
 * What the header's status says, from the agent's state.
 *
 * Imported by test/examples/angular.test.ts outside the Angular build, hence the relative path.
 */
import type { AgentViewState } from "../../../../src/agent/agent-like.js"; // in your app: from "rxagent/angular"
import type { AssistantMessage } from "../../../../src/index.js"; // in your app: from "rxagent"

/** A run is going, the last one was stopped or failed, or none of these. */
export type AgentStatus = "running" | "stopped" | "error" | "idle";

/**
 * The status of a state: the last run's outcome says how an idle agent's run ended (a Stop sets
 * `errorMessage` too, so that alone would read as an error); before any run, a transcript given
 * to the agent is read from its last assistant message.
 */
export function statusOf(state: Pick<AgentViewState, "isStreaming" | "outcome" | "messages" | "errorMessage">): AgentStatus {
  if (state.isStreaming) return "running";
  if (state.outcome === "aborted") return "stopped";
  if (state.outcome === "failed") return "error";
  if (state.outcome) return "idle";
  const last = [...state.messages].reverse().find((message): message is AssistantMessage => (message as { role?: string }).role === "assistant");
  if (last?.stopReason === "aborted") return "stopped";
  if (last?.stopReason === "error" || state.errorMessage) return "error";
  return "idle";
}
