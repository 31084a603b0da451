/**
 * The shape of an `Agent`'s state: what `agent.state` is, what `state$` emits, and what the
 * Agent starts with (SPEC A1, A4, A7, I1).
 *
 * @module
 */
import type { Model, ThinkingLevel, Usage } from "../model/messages.js";
import type { AgentMessage, CallCancellation, LimitReached, RunOutcome } from "../model/types.js";
import type { AgentTool, ToolApprovalRequest } from "../model/tool-types.js";

/**
 * What the `Agent` knows. `messages` and `tools` copy the top-level array on assignment; the
 * transcript it hands out is frozen, so it cannot change after the fact (I1): assign a new array
 * to change it.
 */
export interface AgentState {
  /** The system prompt, replayed from the transcript's system messages. Read-only. */
  readonly systemPrompt: string;
  model: Model;
  thinkingLevel: ThinkingLevel;
  tools: AgentTool[];
  /** The transcript, frozen: a `push` or `splice` on it throws (I1). Assigning copies the array. */
  get messages(): readonly AgentMessage[];
  set messages(messages: readonly AgentMessage[]);
  /** True from the start of a run until its `agent_end` listeners have settled. */
  readonly isStreaming: boolean;
  /** The partial assistant message while one streams. */
  readonly streamingMessage: AgentMessage | undefined;
  /** Ids of tool calls that are executing. */
  readonly pendingToolCalls: ReadonlySet<string>;
  /** The error of the last turn that ended with an `error` or `aborted` answer (none after an abort that came after the last answer), or of a failure outside a run (SPEC A9). */
  readonly errorMessage: string | undefined;
  /** Tool calls waiting for `approve()` or `deny()` (SPEC R1), in the order they asked. */
  readonly pendingApprovals: readonly ToolApprovalRequest[];
  /** What the runs of this Agent (with a session: of the session) used, summed (SPEC R5). */
  readonly usage: Usage;
  /** The limit that ended the last run, if one did (SPEC R2). */
  readonly limit: LimitReached | undefined;
  /** What became of the calls of the last run's batch when it was aborted (SPEC R4). */
  readonly cancellation: readonly CallCancellation[] | undefined;
  /**
   * How the last run ended (SPEC A9): `agent_end.outcome`, or `failed` when the Agent could not
   * end it cleanly (or a stream given to it failed while no run went). Absent before the first
   * run; cleared when a run begins and set when its `agent_end` is reduced, so `agent_end`'s
   * listeners read it already. Tells a Stop (`aborted`) from a failure, which `errorMessage`
   * alone does not.
   */
  readonly outcome: RunOutcome | undefined;
}

/** A frozen copy of the state at one moment, as `state$` emits it. */
export interface AgentStateSnapshot {
  readonly systemPrompt: string;
  readonly model: Model;
  readonly thinkingLevel: ThinkingLevel;
  readonly tools: readonly AgentTool[];
  readonly messages: readonly AgentMessage[];
  readonly isStreaming: boolean;
  readonly streamingMessage: AgentMessage | undefined;
  readonly pendingToolCalls: ReadonlySet<string>;
  readonly errorMessage: string | undefined;
  readonly pendingApprovals: readonly ToolApprovalRequest[];
  readonly usage: Usage;
  readonly limit: LimitReached | undefined;
  readonly cancellation: readonly CallCancellation[] | undefined;
  readonly outcome: RunOutcome | undefined;
}

/** The initial state an `Agent` is created with. */
export interface AgentInitialState {
  systemPrompt?: string | undefined;
  /** Without one, pi's placeholder `"unknown"` (SPEC A8): a provider that needs a real id fails the request saying so. */
  model?: Model | undefined;
  thinkingLevel?: ThinkingLevel | undefined;
  tools?: AgentTool[] | undefined;
  messages?: AgentMessage[] | undefined;
}
