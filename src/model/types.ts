/**
 * The agent-level vocabulary: the lifecycle events (SPEC L2), with the app messages
 * (`agent-message.ts`) and the tools and the context a run reads (`tool-types.ts`).
 *
 * @module
 */
import type { AssistantMessageEvent, ToolResultMessage, Usage } from "./messages.js";
import type { AgentMessage } from "./agent-message.js";
import type { AgentToolResult, ToolCancellation } from "./tool-types.js";

export type { AgentMessage, CustomAgentMessages } from "./agent-message.js";
export type { AgentContext } from "./tool-types.js";

/**
 * Lifecycle events of a run (SPEC L2). `tool_approval_request` and `tool_approval_end` are
 * rxagent's own (SPEC R1): they occur only for calls that need approval.
 */
export type AgentEvent =
  | { type: "agent_start" }
  | {
      type: "agent_end";
      messages: AgentMessage[];
      untaken?: UntakenMessages;
      /** What this run's assistant messages used, summed (SPEC R5). */
      usage: Usage;
      /** The limit that ended the run, when one did (SPEC R2). */
      limit?: LimitReached;
      /** When the run was aborted with calls of a batch open: what became of each (SPEC R4). */
      cancellation?: CallCancellation[];
      /** How the run ended: completed, aborted by the user, failed, or ended by a limit (SPEC L15). */
      outcome: RunOutcome;
    }
  | { type: "turn_start" }
  | { type: "turn_end"; message: AgentMessage; toolResults: ToolResultMessage[] }
  | { type: "message_start"; message: AgentMessage }
  | { type: "message_update"; message: AgentMessage; assistantMessageEvent: AssistantMessageEvent }
  | { type: "message_end"; message: AgentMessage }
  | { type: "tool_execution_start"; toolCallId: string; toolName: string; args: any }
  | { type: "tool_execution_update"; toolCallId: string; toolName: string; args: any; partialResult: AgentToolResult }
  | {
      type: "tool_execution_end";
      toolCallId: string;
      toolName: string;
      result: AgentToolResult;
      isError: boolean;
      durationMs?: number;
      /** Set when the run was aborted before this call ended (SPEC R4). */
      cancellation?: ToolCancellation;
    }
  | { type: "tool_approval_request"; toolCallId: string; toolName: string; args: any }
  | {
      type: "tool_approval_end";
      toolCallId: string;
      toolName: string;
      approved: boolean;
      /** Why it was denied (the denial's reason, or "aborted" when the run was). */
      reason?: string;
      /** The arguments the approval came with, when it edited them (the call runs with these). */
      args?: unknown;
    };

/** The type of an {@link AgentEvent}. */
export type AgentEventType = AgentEvent["type"];

/**
 * How a run ended (SPEC L15), on `agent_end` and in the Agent's `state.outcome`: `completed`, the
 * run ended as it would on its own; `aborted`, a user's abort stopped it (`agent.abort()`, the
 * loop's signal, an unsubscribed `prompt$()`); `failed`, an error ended it (a provider's error
 * answer, a hook or listener that threw, a queue stream that errored); `limit`, a run limit ended
 * it (`agent_end.limit` says which). `errorMessage` is pi's, the error of the last `error` or
 * `aborted` answer: set after a failure, and after an abort (or the time limit) that cut an answer
 * short, but not after an abort that came after the last answer. Read this to tell a Stop from a
 * failure.
 *
 * @example
 * ```ts
 * await agent.prompt("Summarise the logs");
 * if (agent.state.outcome === "failed") console.error(`The run failed: ${agent.state.errorMessage}`);
 * else if (agent.state.outcome === "aborted") console.log("Stopped.");
 * ```
 */
export type RunOutcome = "completed" | "aborted" | "failed" | "limit";

/**
 * Messages a run received from its `steering$` or `followUp$` stream but did not take, because
 * it ended first (an error or aborted answer, `finishTurn` ending it, a failure). `agent_end`
 * carries them so nothing that reached the run is lost (Q3).
 */
export interface UntakenMessages {
  steering: AgentMessage[];
  followUp: AgentMessage[];
}

/** The run limits (SPEC R2) by name: see `RunLimits`. */
export type RunLimitName = "maxTurns" | "maxToolCalls" | "maxTokens" | "maxCost" | "timeoutMs" | "maxRepeatedCalls";

/** A limit that ended a run (SPEC R2): which one, its value, and what the run had used. */
export interface LimitReached {
  limit: RunLimitName;
  value: number;
  used: number;
  /** A sentence for logs and UIs. */
  message: string;
}

/** What became of one call of an aborted batch (SPEC R4). */
export interface CallCancellation {
  toolCallId: string;
  toolName: string;
  status: ToolCancellation;
}
