/**
 * The agent-level vocabulary: app messages, the context a run reads, and the lifecycle events
 * (SPEC M2, L2).
 *
 * @module
 */
import type { AssistantMessageEvent, Message, ToolResultMessage } from "./messages.js";
import type { AgentTool, AgentToolResult } from "../tools/tool-types.js";

/**
 * App message types, added by declaration merging (SPEC M2).
 *
 * @example
 * ```ts
 * declare module "rxagent" {
 *   interface CustomAgentMessages {
 *     notice: { role: "notice"; text: string; timestamp: number };
 *   }
 * }
 * ```
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface CustomAgentMessages {}

/** A transcript entry: a model message or an app message from {@link CustomAgentMessages}. */
export type AgentMessage = Message | CustomAgentMessages[keyof CustomAgentMessages];

/** What the loop reads and appends to. `tools` are the executable tools of this run. */
export interface AgentContext {
  messages: AgentMessage[];
  tools?: AgentTool[];
}

/** Lifecycle events of a run (SPEC L2). */
export type AgentEvent =
  | { type: "agent_start" }
  | { type: "agent_end"; messages: AgentMessage[]; untaken?: UntakenMessages }
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
    };

/** The type of an {@link AgentEvent}. */
export type AgentEventType = AgentEvent["type"];

/**
 * Messages a run received from its `steering$` or `followUp$` stream but did not take, because
 * it ended first (an error or aborted answer, `finishTurn` ending it, a failure). `agent_end`
 * carries them so nothing that reached the run is lost (Q3).
 */
export interface UntakenMessages {
  steering: AgentMessage[];
  followUp: AgentMessage[];
}
