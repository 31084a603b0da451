/**
 * The part of the AG-UI protocol (1.0) this entry speaks, declared here rather than imported:
 * `@ag-ui/core` validates with zod at run time, and an app serving an agent needs none of it.
 * The shapes are the protocol's own; `test/ag-ui/types.test.ts` holds them assignable to
 * `@ag-ui/core`'s types, so a drift in either shows as a type error.
 *
 * @module
 */

/** The JSON Patch operation (RFC 6902) `STATE_DELTA` carries here: only `add` is emitted. */
export interface AgUiPatchOperation {
  op: "add";
  path: string;
  value: unknown;
}

/** Where a media part's bytes are: inline (base64, with its type), at a URL, or a provider's file id. */
export type AgUiPartSource = { type: "data"; value: string; mimeType: string } | { type: "url"; value: string; mimeType?: string } | { type: "file"; value: string; provider?: string; mimeType?: string };

/** A text or media part of a user or tool message. */
export type AgUiContentPart = { type: "text"; text: string } | { type: "image" | "audio" | "video" | "document"; source: AgUiPartSource };

/** A tool call on an assistant message: `arguments` is JSON text. */
export interface AgUiToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** A message of an AG-UI conversation (`RunAgentInput.messages`). */
export type AgUiMessage =
  | { id: string; role: "user"; content: string | AgUiContentPart[]; name?: string }
  | { id: string; role: "assistant"; content?: string; toolCalls?: AgUiToolCall[]; name?: string }
  | { id: string; role: "tool"; toolCallId: string; content: string | AgUiContentPart[]; error?: string }
  | { id: string; role: "system" | "developer"; content: string; name?: string }
  | { id: string; role: "reasoning"; content: string }
  | { id: string; role: "activity"; activityType: string; content: Record<string, unknown> };

/** A tool the client declares in `RunAgentInput.tools`. */
export interface AgUiTool {
  name: string;
  description: string;
  parameters?: unknown;
}

/** The answer to one interrupt, sent on the run that continues from it. */
export interface AgUiResumeEntry {
  interruptId: string;
  status: "resolved" | "cancelled";
  payload?: unknown;
}

/** What an AG-UI client POSTs to run an agent. */
export interface RunAgentInput {
  threadId: string;
  runId: string;
  protocolVersion?: string;
  parentRunId?: string;
  state?: unknown;
  messages: AgUiMessage[];
  tools: AgUiTool[];
  context: { description: string; value: string }[];
  forwardedProps?: unknown;
  resume?: AgUiResumeEntry[];
}

/** Something a run waits for before it can go on: here, always a tool call's approval. */
export interface AgUiInterrupt {
  id: string;
  reason: string;
  message?: string;
  toolCallId?: string;
  responseSchema?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}

/** How a finished run ended. */
export type AgUiRunOutcome = { type: "success"; pendingToolCallIds?: string[] } | { type: "interrupt"; interrupts: AgUiInterrupt[] } | { type: "cancelled" };

/** Token counts of one provider and model, in AG-UI's accounting (input counts cache reads and writes). */
export interface AgUiTokenUsage {
  provider?: string;
  model?: string;
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  cachedInputTokens?: number;
  cacheWriteInputTokens?: number;
}

/** The AG-UI events this entry emits. */
export type AgUiEvent =
  | { type: "RUN_STARTED"; threadId: string; runId: string; protocolVersion?: string; parentRunId?: string }
  | { type: "RUN_FINISHED"; threadId: string; runId: string; outcome?: AgUiRunOutcome; usage?: AgUiTokenUsage[] }
  | { type: "RUN_ERROR"; message: string; code?: string; usage?: AgUiTokenUsage[] }
  | { type: "STEP_STARTED"; stepName: string }
  | { type: "STEP_FINISHED"; stepName: string }
  | { type: "TEXT_MESSAGE_START"; messageId: string; role?: "assistant" }
  | { type: "TEXT_MESSAGE_CONTENT"; messageId: string; delta: string }
  | { type: "TEXT_MESSAGE_END"; messageId: string }
  | { type: "REASONING_START"; messageId: string }
  | { type: "REASONING_MESSAGE_START"; messageId: string; role: "reasoning" }
  | { type: "REASONING_MESSAGE_CONTENT"; messageId: string; delta: string }
  | { type: "REASONING_MESSAGE_END"; messageId: string }
  | { type: "REASONING_END"; messageId: string }
  | { type: "TOOL_CALL_START"; toolCallId: string; toolCallName: string; parentMessageId?: string }
  | { type: "TOOL_CALL_ARGS"; toolCallId: string; delta: string }
  | { type: "TOOL_CALL_END"; toolCallId: string }
  | { type: "TOOL_CALL_RESULT"; messageId: string; toolCallId: string; content: string | AgUiContentPart[]; role?: "tool" }
  | { type: "STATE_DELTA"; delta: AgUiPatchOperation[] }
  | { type: "CUSTOM"; name: string; value: unknown };

/** The type of an {@link AgUiEvent}. */
export type AgUiEventType = AgUiEvent["type"];

/**
 * The protocol version this entry speaks, declared on `RUN_STARTED`.
 *
 * @example
 * ```ts
 * if (input.protocolVersion !== undefined && input.protocolVersion !== AG_UI_PROTOCOL_VERSION) console.warn("another protocol version");
 * ```
 */
export const AG_UI_PROTOCOL_VERSION = "1.0";
