/**
 * The frozen snapshots `state$` emits (SPEC A7): one costs O(1), not O(transcript), because it
 * shares the store's transcript array and remembers its length.
 *
 * @module
 */
import { getSystemPrompt } from "../model/transcript.js";
import type { AgentMessage } from "../model/types.js";
import type { AgentState, AgentStateSnapshot } from "./agent-state-types.js";

/** What a snapshot is taken of: the state, its live transcript, and the frozen view of that transcript. @internal */
export interface SnapshotSource extends Omit<AgentState, "messages" | "systemPrompt"> {
  /** The live transcript; only ever appended to, replaced as a whole otherwise. */
  readonly transcript: readonly AgentMessage[];
  /** The frozen copy of the transcript as it is now, if one is still alive. */
  currentView(): readonly AgentMessage[] | undefined;
}

/** An immutable view of `store` at this moment. @internal */
export function freezeSnapshot(store: SnapshotSource): AgentStateSnapshot {
  const source = store.transcript;
  const length = source.length;
  let messages: readonly AgentMessage[] | undefined;
  let systemPrompt: string | undefined;
  return Object.freeze({
    // Copied on first read: a copy per event would make long runs quadratic. Nobody else can
    // write to `source` (what `messages` hands out is a frozen copy), so the copy is of this moment.
    get messages() {
      return (messages ??= (store.transcript === source && length === source.length ? store.currentView() : undefined) ?? Object.freeze(source.slice(0, length)));
    },
    get systemPrompt() {
      return (systemPrompt ??= getSystemPrompt(source.slice(0, length)));
    },
    model: store.model,
    thinkingLevel: store.thinkingLevel,
    tools: Object.freeze(store.tools.slice()),
    isStreaming: store.isStreaming,
    streamingMessage: store.streamingMessage,
    pendingToolCalls: store.pendingToolCalls,
    errorMessage: store.errorMessage,
    pendingApprovals: store.pendingApprovals,
    usage: store.usage,
    limit: store.limit,
    cancellation: store.cancellation,
    outcome: store.outcome,
  });
}
