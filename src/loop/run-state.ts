/**
 * What a run's events say about it, as one pure reducer: which brackets are open, which message
 * is streaming, which tool calls are executing or still without a result (SPEC L2, A4). The
 * loop folds it to close what is open when a run fails (SPEC A6); the `Agent` folds the same
 * events with it into `streamingMessage`, `pendingToolCalls` and `errorMessage`.
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
  /** Ids of the tool calls between `tool_execution_start` and `tool_execution_end`, in start order (the `Agent`'s `pendingToolCalls`). */
  readonly executing: readonly string[];
  /** The last assistant message committed. */
  readonly lastAssistant: AssistantMessage | undefined;
  /** Ids of the tool calls of {@link RunState.lastAssistant} that have a result message. */
  readonly answered: readonly string[];
  /** The error of the last turn that ended with an `error` or `aborted` assistant message. */
  readonly errorMessage: string | undefined;
}

const NO_IDS: readonly string[] = Object.freeze([]);

/** The state's one shape. Mutated only while `reduceRunState` builds a new one, never after. */
class State implements RunState {
  constructor(
    public started: boolean,
    public ended: boolean,
    public turnOpen: boolean,
    public streamingMessage: AgentMessage | undefined,
    public executing: readonly string[],
    public lastAssistant: AssistantMessage | undefined,
    public answered: readonly string[],
    public errorMessage: string | undefined,
  ) {}
}

/** A copy to change before it is handed out (object spread is ~20× slower in V8 11, on the per-event path). */
function copy(s: RunState): State {
  return new State(s.started, s.ended, s.turnOpen, s.streamingMessage, s.executing, s.lastAssistant, s.answered, s.errorMessage);
}

/** The state before any event. */
export const initialRunState: RunState = Object.freeze(new State(false, false, false, undefined, NO_IDS, undefined, NO_IDS, undefined));

/**
 * The state of a run that resumes a turn a stopped process left open (SPEC S5): the turn's
 * assistant message is the last one, and `answered` of its calls already have results (the
 * state keeps the array: give it one nobody changes).
 */
export function resumedRunState(lastAssistant: AssistantMessage, answered: readonly string[]): RunState {
  return new State(false, false, false, undefined, NO_IDS, lastAssistant, answered, undefined);
}

/** `state` with `errorMessage` replaced. */
export function withErrorMessage(state: RunState, errorMessage: string | undefined): RunState {
  const next = copy(state);
  next.errorMessage = errorMessage;
  return next;
}

/** `ids` with `id` added (the same array when it is there already). */
function withId(ids: readonly string[], id: string): readonly string[] {
  return ids.includes(id) ? ids : [...ids, id];
}

/** `ids` without `id` (the same array when it is not there). */
function withoutId(ids: readonly string[], id: string): readonly string[] {
  const index = ids.indexOf(id);
  if (index < 0) return ids;
  const next = ids.slice();
  next.splice(index, 1);
  return next;
}

function role(message: AgentMessage): string | undefined {
  return (message as { role?: string }).role;
}

/**
 * Whether `event` is a streamed update of the message already streaming: `reduceRunState`
 * returns `state` itself for it. The per-delta paths test this before the reducer's switch.
 */
export function repeatsUpdate(state: RunState, event: AgentEvent): boolean {
  return event.type === "message_update" && event.message === state.streamingMessage;
}

/**
 * Folds one event into the state. Pure: returns a new state, or `state` itself when the event
 * changes nothing (a streamed update of the same partial message, an unknown event).
 *
 * @example
 * ```ts
 * const state = events.reduce(reduceRunState, initialRunState);
 * state.executing; // the calls still executing
 * ```
 */
export function reduceRunState(state: RunState, event: AgentEvent): RunState {
  let next: State;
  switch (event.type) {
    case "agent_start":
      if (state.started) return state;
      next = copy(state);
      next.started = true;
      return next;
    case "agent_end":
      next = copy(state);
      next.ended = true;
      next.streamingMessage = undefined;
      return next;
    case "turn_start":
      if (state.turnOpen) return state;
      next = copy(state);
      next.turnOpen = true;
      return next;
    case "turn_end": {
      next = copy(state);
      next.turnOpen = false;
      // The loop's turn_end always carries an assistant message.
      const { errorMessage } = event.message as { errorMessage?: string };
      if (errorMessage) next.errorMessage = errorMessage;
      return next;
    }
    case "message_start":
    case "message_update":
      if (state.streamingMessage === event.message) return state;
      next = copy(state);
      next.streamingMessage = event.message;
      return next;
    case "message_end": {
      const message = event.message;
      const kind = role(message);
      if (kind !== "assistant" && kind !== "toolResult" && state.streamingMessage === undefined) return state;
      next = copy(state);
      next.streamingMessage = undefined;
      if (kind === "assistant") {
        next.lastAssistant = message as AssistantMessage;
        next.answered = NO_IDS;
      } else if (kind === "toolResult") next.answered = withId(state.answered, (message as { toolCallId: string }).toolCallId);
      return next;
    }
    case "tool_execution_start":
      next = copy(state);
      next.executing = withId(state.executing, event.toolCallId);
      return next;
    case "tool_execution_end":
      next = copy(state);
      next.executing = withoutId(state.executing, event.toolCallId);
      return next;
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
  return last.content.filter((block): block is ToolCall => block.type === "toolCall" && !state.answered.includes(block.id));
}
