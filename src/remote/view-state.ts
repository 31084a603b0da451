/**
 * A remote agent's state as a user interface reads it (`AgentViewState`), made from the fold's
 * value. The transcript and the system prompt are copied on first read only: a snapshot per
 * streamed delta costs O(1), not O(transcript).
 *
 * @module
 */
import type { AgentViewState } from "../agent/agent-like.js";
import { transcriptOf, type AgentStateValue } from "../agent/agent-state-reducer.js";
import { emptyUsage } from "../model/assistant-message.js";
import { getSystemPrompt } from "../model/transcript.js";
import type { AgentMessage } from "../model/types.js";

const NO_USAGE = Object.freeze(emptyUsage());

/** The frozen view of `value`. */
export function viewState(value: AgentStateValue): AgentViewState {
  let messages: readonly AgentMessage[] | undefined;
  let systemPrompt: string | undefined;
  let pending: ReadonlySet<string> | undefined;
  return Object.freeze({
    get messages() {
      return (messages ??= Object.freeze(transcriptOf(value)));
    },
    get systemPrompt() {
      return (systemPrompt ??= getSystemPrompt(transcriptOf(value)));
    },
    get pendingToolCalls() {
      return (pending ??= new Set(value.run.executing));
    },
    model: value.model,
    thinkingLevel: value.thinkingLevel,
    isStreaming: value.isStreaming,
    streamingMessage: value.run.streamingMessage,
    errorMessage: value.run.errorMessage,
    pendingApprovals: value.pendingApprovals,
    usage: value.usage ?? NO_USAGE,
    limit: value.limit,
    cancellation: value.cancellation,
    outcome: value.outcome,
  });
}
