/**
 * The frozen snapshots `state$` emits (SPEC A7), one per value of the Agent's state: one costs
 * O(1), not O(transcript), because the value shares the transcript's array and remembers its length.
 *
 * @module
 */
import { getSystemPrompt } from "../model/transcript.js";
import type { Usage } from "../model/messages.js";
import type { AgentMessage } from "../model/types.js";
import type { AgentStateSnapshot } from "./agent-state-types.js";
import type { AgentStateValue } from "./agent-state-reducer.js";

/** What a snapshot reads beside the value: the frozen transcript and the executing calls as a `Set`, shared with `agent.state`. @internal */
export interface SnapshotViews {
  frozenTranscript(value: AgentStateValue, keep: boolean): readonly AgentMessage[];
  readonly pendingToolCalls: ReadonlySet<string>;
  readonly usage: Usage;
}

/** An immutable view of `value` (the store's newest: `views` read it). @internal */
export function freezeSnapshot(value: AgentStateValue, views: SnapshotViews): AgentStateSnapshot {
  let messages: readonly AgentMessage[] | undefined;
  let systemPrompt: string | undefined;
  return Object.freeze({
    // Copied on first read: a copy per event would make long runs quadratic. A value's prefix of
    // the array never changes, so the copy is of this moment whenever it is made.
    get messages() {
      // The copy `agent.state.messages` handed out, if alive; a snapshot's own copy is its alone.
      return (messages ??= views.frozenTranscript(value, false));
    },
    get systemPrompt() {
      return (systemPrompt ??= getSystemPrompt(value.messages.slice(0, value.messageCount)));
    },
    model: value.model,
    thinkingLevel: value.thinkingLevel,
    tools: Object.freeze(value.tools.slice()),
    isStreaming: value.isStreaming,
    streamingMessage: value.run.streamingMessage,
    pendingToolCalls: views.pendingToolCalls,
    errorMessage: value.run.errorMessage,
    pendingApprovals: value.pendingApprovals,
    usage: views.usage,
    limit: value.limit,
    cancellation: value.cancellation,
    outcome: value.outcome,
  });
}
