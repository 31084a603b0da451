/**
 * Tool results as the model reads them: error results, a tool's return value checked and
 * normalized, and the tool-result message of an outcome (SPEC T3, L9).
 *
 * @module
 */
import type { ToolCall, ToolResultMessage } from "../model/messages.js";
import type { AgentToolResult, ToolCallOutcome } from "../model/tool-types.js";

/** The text of a tool result that was stopped by an abort. */
export const ABORTED_TOOL_TEXT = "Operation aborted";

/**
 * A result the model reads as an error.
 *
 * @example
 * ```ts
 * return errorToolResult("The file does not exist."); // from a tool, with isError set by the loop
 * ```
 */
export function errorToolResult(text: string): AgentToolResult {
  return { content: [{ type: "text", text }], details: {} };
}

/** The outcome of a call that did not run, or failed: an error result. */
export function errorOutcome(toolCall: ToolCall, text: string): ToolCallOutcome {
  return { toolCall, result: errorToolResult(text), isError: true };
}

/** The text the model reads for each call of a message cut at the token limit (SPEC L9). */
export function truncatedToolCallText(toolName: string): string {
  return `Tool call "${toolName}" was not executed: the response was cut off at the output token limit, so its arguments may be incomplete. Issue the call again with complete arguments.`;
}

/** A tool's return value as a well-formed result, or a description of what is wrong with it. */
export function normalizeToolResult(toolName: string, value: unknown): { result: AgentToolResult; isError: boolean } {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    const got = value === undefined ? "undefined" : Array.isArray(value) ? "an array" : value === null ? "null" : `a ${typeof value}`;
    return { result: errorToolResult(`Tool "${toolName}" returned ${got} instead of a result object ({ content: [...] }).`), isError: true };
  }
  const result = value as AgentToolResult;
  const content: unknown = result.content;
  if (content === undefined || content === null) return { result: { ...result, content: [] }, isError: result.isError === true };
  if (typeof content === "string") return { result: { ...result, content: [{ type: "text", text: content }] }, isError: result.isError === true };
  if (!Array.isArray(content)) {
    return { result: errorToolResult(`Tool "${toolName}" returned a result whose content is not an array of text or image blocks.`), isError: true };
  }
  return { result, isError: result.isError === true };
}

/** The tool-result message for an outcome. */
export function toolResultMessage(outcome: ToolCallOutcome, timestamp: number): ToolResultMessage {
  const { toolCall, result, isError, durationMs } = outcome;
  const content = result.content ?? [];
  const usage = result.usage;
  // The common shapes (no usage) as one literal each: properties added after creation are stored
  // outside the object, about 20 bytes more per result kept in a long transcript (the memory
  // benchmark). Whatever the shape, the keys come in one order: usage and durationMs last.
  if (usage === undefined) {
    return durationMs === undefined
      ? { role: "toolResult", toolCallId: toolCall.id, toolName: toolCall.name, content, details: result.details, isError, timestamp }
      : { role: "toolResult", toolCallId: toolCall.id, toolName: toolCall.name, content, details: result.details, isError, timestamp, durationMs };
  }
  const message: ToolResultMessage = { role: "toolResult", toolCallId: toolCall.id, toolName: toolCall.name, content, details: result.details, isError, timestamp, usage };
  if (durationMs !== undefined) message.durationMs = durationMs;
  return message;
}
