/**
 * The Agent's state as one pure reducer (SPEC A4, A7, I1): what it knows is the fold of its
 * actions — the run's events, as they are, and the Agent's own writes (`state.model = …`, a new
 * transcript, a run beginning or ending) — by {@link reduceAgentState}. The store
 * (`agent-state.ts`) folds them with `scan`, as NgRx's store folds its actions.
 *
 * @module
 */
import { initialRunState, reduceRunState, type RunState, withErrorMessage } from "../loop/run-state.js";
import type { AssistantMessage, Model, ThinkingLevel, Usage } from "../model/messages.js";
import { emptyUsage } from "../model/assistant-message.js";
import { addUsage, copyUsage } from "../model/usage-totals.js";
import type { AgentEvent, AgentMessage, CallCancellation, LimitReached, RunOutcome } from "../model/types.js";
import type { AgentTool, ToolApprovalRequest } from "../model/tool-types.js";

/**
 * What the Agent itself writes into its state; the run's events are actions too. The reducer
 * copies the arrays it installs, except `tools` (the store hands it a copy, which becomes the
 * Agent's own array) and the approvals list (a parked run's own, frozen and shown as it is).
 */
export type AgentCommand =
  | { readonly type: "[state] model"; readonly model: Model }
  | { readonly type: "[state] thinking level"; readonly thinkingLevel: ThinkingLevel }
  | { readonly type: "[state] tools"; readonly tools: AgentTool[] }
  /** A new transcript (copied); `reset` also forgets the last run (`agent.reset()`). */
  | { readonly type: "[state] transcript"; readonly messages: readonly AgentMessage[]; readonly reset: boolean }
  /** What a session's journal held (copied), installed at once. */
  | { readonly type: "[state] restored"; readonly messages: readonly AgentMessage[]; readonly usage: Usage; readonly errorMessage: string | undefined; readonly outcome: RunOutcome | undefined }
  | { readonly type: "[state] run begun" }
  | { readonly type: "[state] run ended" }
  /** A failure beside the run's events; `inRun`: the Agent could not end the run cleanly. */
  | { readonly type: "[state] failed"; readonly errorMessage: string; readonly inRun: boolean }
  /** The approvals a parked run waits for (none once it is dropped). */
  | { readonly type: "[state] approvals"; readonly approvals: readonly ToolApprovalRequest[] }
  /** Another agent's state, installed at once (a session server's snapshot, followed by a remote agent); the tools stay. */
  | { readonly type: "[state] installed"; readonly view: AgentStateView };

/**
 * An Agent's state without its tools, as plain data (JSON can carry it): what a session server
 * sends a follower to start from.
 */
export type AgentStateView = Omit<AgentStateValue, "tools" | "messageCount">;

/** What the Agent's state folds: its own commands and the run's events. */
export type AgentStateAction = AgentCommand | AgentEvent;

/**
 * One moment of the Agent's state. Never changed once handed out, with one sharing: the
 * transcript is the first `messageCount` entries of `messages`, an array only ever appended to
 * (a new transcript is a new array). A value's prefix never changes, so appending costs O(1),
 * not O(transcript). `tools` is the Agent's own array, which pi's API lets an app push onto.
 */
export interface AgentStateValue {
  readonly messages: readonly AgentMessage[];
  readonly messageCount: number;
  readonly model: Model;
  readonly thinkingLevel: ThinkingLevel;
  readonly tools: AgentTool[];
  readonly isStreaming: boolean;
  /** What the run's events say (streaming message, executing calls, error): the loop's own reducer. */
  readonly run: RunState;
  readonly pendingApprovals: readonly ToolApprovalRequest[];
  /** Frozen; absent until the first assistant message adds to it. */
  readonly usage: Usage | undefined;
  readonly limit: LimitReached | undefined;
  readonly cancellation: readonly CallCancellation[] | undefined;
  readonly outcome: RunOutcome | undefined;
}

const NO_APPROVALS: readonly ToolApprovalRequest[] = Object.freeze([]);

/** The value's one shape, filled by its constructor (object spread is far slower on the per-event path). */
class Value implements AgentStateValue {
  constructor(
    public messages: AgentMessage[],
    public messageCount: number,
    public model: Model,
    public thinkingLevel: ThinkingLevel,
    public tools: AgentTool[],
    public isStreaming: boolean,
    public run: RunState,
    public pendingApprovals: readonly ToolApprovalRequest[],
    public usage: Usage | undefined,
    public limit: LimitReached | undefined,
    public cancellation: readonly CallCancellation[] | undefined,
    public outcome: RunOutcome | undefined,
  ) {}
}

function copy(s: AgentStateValue): Value {
  return new Value(s.messages as AgentMessage[], s.messageCount, s.model, s.thinkingLevel, s.tools, s.isStreaming, s.run, s.pendingApprovals, s.usage, s.limit, s.cancellation, s.outcome);
}

/** The state an Agent starts with: `messages` (the value's own from now on: pass a copy, with its system message) and its settings. */
export function initialAgentState(messages: AgentMessage[], model: Model, thinkingLevel: ThinkingLevel, tools: AgentTool[]): AgentStateValue {
  return new Value(messages, messages.length, model, thinkingLevel, tools, false, initialRunState, NO_APPROVALS, undefined, undefined, undefined, undefined);
}

/** The transcript of `state`, as a new array. */
export function transcriptOf(state: AgentStateValue): AgentMessage[] {
  return state.messages.slice(0, state.messageCount);
}

/** `state` without its tools, as plain data: the transcript copied, everything else shared (it is never changed). */
export function viewOfState(state: AgentStateValue): AgentStateView {
  const { model, thinkingLevel, isStreaming, run, pendingApprovals, usage, limit, cancellation, outcome } = state;
  return { messages: transcriptOf(state), model, thinkingLevel, isStreaming, run, pendingApprovals, usage, limit, cancellation, outcome };
}

/** `next` with `message` appended: in place while `next` holds the array's end, else on a copy of its prefix. */
function append(next: Value, message: AgentMessage): void {
  if (next.messageCount !== next.messages.length) next.messages = transcriptOf(next);
  next.messages.push(message);
  next.messageCount++;
}

function frozenUsage(usage: Usage): Usage {
  Object.freeze(usage.cost);
  return Object.freeze(usage);
}

// Outside the reducer: a closure there over the event would allocate its context on every event.
function withoutApproval(approvals: readonly ToolApprovalRequest[], toolCallId: string): readonly ToolApprovalRequest[] {
  return Object.freeze(approvals.filter((request) => request.toolCallId !== toolCallId));
}

/** `next` with what ends the last run forgotten: its run state, limit, cancellation and outcome. */
function forgetRun(next: Value): Value {
  next.run = initialRunState;
  next.limit = undefined;
  next.cancellation = undefined;
  next.outcome = undefined;
  return next;
}

/**
 * Folds one action into the state. Pure: a new value for every action, except a streamed
 * update of the partial message already streaming (the stream changed that object in place, and
 * nothing else changed: `state` itself, as `reduceRunState` does), and nothing it returned
 * before changes.
 *
 * ```text
 * actions:  b---s---u---u---e---    (b: run begun, s: message_start, u: its message_update, e: message_end)
 * states:   B---S---S---S---E---    (S the same value while the partial grows; E's transcript one longer)
 * ```
 *
 * @example
 * ```ts
 * const state = actions.reduce(reduceAgentState, initialAgentState([], model, "off", []));
 * ```
 */
export function reduceAgentState(state: AgentStateValue, action: AgentStateAction): AgentStateValue {
  // The per-delta path: the partial already streaming changed in place, and nothing else did.
  if (action.type === "message_update" && action.message === state.run.streamingMessage) return state;
  const next = copy(state);
  switch (action.type) {
    case "[state] model":
      next.model = action.model;
      return next;
    case "[state] thinking level":
      next.thinkingLevel = action.thinkingLevel;
      return next;
    case "[state] tools":
      next.tools = action.tools;
      return next;
    case "[state] transcript":
      next.messages = action.messages.slice();
      next.messageCount = next.messages.length;
      return action.reset ? forgetRun(next) : next;
    case "[state] restored":
      next.messages = action.messages.slice();
      next.messageCount = next.messages.length;
      next.usage = frozenUsage(copyUsage(action.usage));
      next.run = withErrorMessage(next.run, action.errorMessage);
      next.outcome = action.outcome;
      return next;
    case "[state] run begun":
      next.isStreaming = true;
      next.pendingApprovals = NO_APPROVALS;
      return forgetRun(next);
    case "[state] run ended":
      next.isStreaming = false;
      next.pendingApprovals = NO_APPROVALS;
      next.run = withErrorMessage(initialRunState, next.run.errorMessage);
      return next;
    case "[state] failed":
      next.run = withErrorMessage(next.run, action.errorMessage);
      // Outside a run's end, a failure while a run goes leaves that run's outcome to it (A9).
      if (action.inRun || !next.isStreaming) next.outcome = "failed";
      return next;
    case "[state] approvals":
      // The parked plan's own list, frozen and shown as it is.
      next.pendingApprovals = Object.freeze(action.approvals);
      return next;
    case "[state] installed": {
      const { view } = action;
      return new Value(view.messages.slice(), view.messages.length, view.model, view.thinkingLevel, next.tools, view.isStreaming, view.run, Object.freeze(view.pendingApprovals.slice()), view.usage && frozenUsage(copyUsage(view.usage)), view.limit, view.cancellation, view.outcome);
    }
  }
  return reduceEvent(next, action);
}

/** The run's events: the loop's reducer for the run, then what the Agent keeps across runs. */
function reduceEvent(next: Value, event: AgentEvent): AgentStateValue {
  next.run = reduceRunState(next.run, event);
  switch (event.type) {
    case "message_end":
      append(next, event.message);
      if ((event.message as { role?: string }).role === "assistant") {
        next.usage = frozenUsage(addUsage(next.usage ? copyUsage(next.usage) : emptyUsage(), (event.message as AssistantMessage).usage));
      }
      break;
    case "tool_approval_request":
      next.pendingApprovals = Object.freeze([...next.pendingApprovals, { toolCallId: event.toolCallId, toolName: event.toolName, args: event.args }]);
      break;
    case "tool_approval_end":
      next.pendingApprovals = withoutApproval(next.pendingApprovals, event.toolCallId);
      break;
    case "agent_end":
      next.outcome = event.outcome;
      next.limit = event.limit;
      next.cancellation = event.cancellation ? Object.freeze(event.cancellation.slice()) : undefined;
      break;
  }
  return next;
}
