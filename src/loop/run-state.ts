/**
 * What a run's events say about it, as one pure reducer: which brackets are open, which message
 * is streaming, which tool calls are executing or still without a result (SPEC L2, A4). The
 * loop folds it to close what is open when a run fails (SPEC A6); the `Agent` folds the same
 * events into `streamingMessage`, `pendingToolCalls` and `errorMessage`.
 *
 * @module
 */
import type { AssistantMessage, ToolCall } from "../model/messages.js";
import type { AgentEvent, AgentMessage } from "../model/types.js";

/** The state of a run as its events so far describe it. Never mutated: each event gives a new one (or the same one when nothing changed). */
export interface RunState {
  /** `agent_start` was seen. */
  readonly started: boolean;
  /** `agent_end` was seen. */
  readonly ended: boolean;
  /** Between `turn_start` and `turn_end`. */
  readonly turnOpen: boolean;
  /** The message between its `message_start` and `message_end` (the partial, for an assistant message). */
  readonly streamingMessage: AgentMessage | undefined;
  /** Ids of the tool calls between `tool_execution_start` and `tool_execution_end`. */
  readonly pendingToolCalls: ReadonlySet<string>;
  /** The last assistant message committed. */
  readonly lastAssistant: AssistantMessage | undefined;
  /** Ids of the tool calls of {@link RunState.lastAssistant} that have a result message. */
  readonly answered: ReadonlySet<string>;
  /** The error of the last turn that ended with an `error` or `aborted` assistant message. */
  readonly errorMessage: string | undefined;
}

const NONE: ReadonlySet<string> = new Set();

/** The state before any event. */
export const initialRunState: RunState = Object.freeze({
  started: false,
  ended: false,
  turnOpen: false,
  streamingMessage: undefined,
  pendingToolCalls: NONE,
  lastAssistant: undefined,
  answered: NONE,
  errorMessage: undefined,
});

function withId(set: ReadonlySet<string>, id: string): ReadonlySet<string> {
  return set.has(id) ? set : new Set(set).add(id);
}

function withoutId(set: ReadonlySet<string>, id: string): ReadonlySet<string> {
  if (!set.has(id)) return set;
  const next = new Set(set);
  next.delete(id);
  return next;
}

function role(message: AgentMessage): string | undefined {
  return (message as { role?: string }).role;
}

/**
 * Folds one event into the state. Pure: returns a new state, or `state` itself when the event
 * changes nothing (a streamed update of the same partial message, an unknown event).
 *
 * @example
 * ```ts
 * const state = events.reduce(reduceRunState, initialRunState);
 * state.pendingToolCalls; // the calls still executing
 * ```
 */
export function reduceRunState(state: RunState, event: AgentEvent): RunState {
  switch (event.type) {
    case "agent_start":
      return state.started ? state : { ...state, started: true };
    case "agent_end":
      return { ...state, ended: true, streamingMessage: undefined };
    case "turn_start":
      return state.turnOpen ? state : { ...state, turnOpen: true };
    case "turn_end": {
      const message = event.message as { role?: string; errorMessage?: string };
      const errorMessage = message.role === "assistant" && message.errorMessage ? message.errorMessage : state.errorMessage;
      return { ...state, turnOpen: false, errorMessage };
    }
    case "message_start":
    case "message_update":
      return state.streamingMessage === event.message ? state : { ...state, streamingMessage: event.message };
    case "message_end": {
      const message = event.message;
      if (role(message) === "assistant") return { ...state, streamingMessage: undefined, lastAssistant: message as AssistantMessage, answered: NONE };
      if (role(message) === "toolResult") {
        return { ...state, streamingMessage: undefined, answered: withId(state.answered, (message as { toolCallId: string }).toolCallId) };
      }
      return state.streamingMessage === undefined ? state : { ...state, streamingMessage: undefined };
    }
    case "tool_execution_start":
      return { ...state, pendingToolCalls: withId(state.pendingToolCalls, event.toolCallId) };
    case "tool_execution_end":
      return { ...state, pendingToolCalls: withoutId(state.pendingToolCalls, event.toolCallId) };
    default:
      return state;
  }
}

/**
 * The tool calls of the last assistant message that have no result message yet. None for an
 * `error` or `aborted` message: its calls never run and get no results (SPEC L6 hard exit).
 */
export function unansweredToolCalls(state: RunState): ToolCall[] {
  const last = state.lastAssistant;
  if (!last || last.stopReason === "error" || last.stopReason === "aborted") return [];
  return last.content.filter((block): block is ToolCall => block.type === "toolCall" && !state.answered.has(block.id));
}
