/**
 * The reliability invariants of a finished session's transcript, for transcripts that crossed a
 * process boundary (compared by content, not identity): every answerable tool call answered
 * exactly once, in source order, right after its assistant message; nothing committed twice.
 */
import type { AgentMessage, AssistantMessage, Message, ToolCall, ToolResultMessage } from "../../src/index.js";

const isAssistant = (m: AgentMessage): m is AssistantMessage => (m as Message).role === "assistant";
const isToolResult = (m: AgentMessage): m is ToolResultMessage => (m as Message).role === "toolResult";
const callsOf = (m: AssistantMessage): ToolCall[] => (m.stopReason === "error" || m.stopReason === "aborted" ? [] : m.content.filter((b): b is ToolCall => b.type === "toolCall"));

/** Violations as sentences; empty when the transcript keeps every promise. */
export function checkTranscript(messages: readonly AgentMessage[]): string[] {
  const v: string[] = [];
  const seen = new Set<string>();
  const answered = new Set<string>();
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    const key = JSON.stringify(message);
    if ((message as Message).role !== "system" && seen.has(key)) v.push(`message ${i} is committed twice: ${key.slice(0, 100)}`);
    seen.add(key);
    if (isToolResult(message)) {
      v.push(`tool result ${message.toolCallId} at ${i} is not part of its assistant's batch`);
      continue;
    }
    if (!isAssistant(message)) continue;
    const calls = callsOf(message);
    for (let k = 0; k < calls.length; k++) {
      const result = messages[i + 1 + k];
      if (!result || !isToolResult(result) || result.toolCallId !== calls[k]!.id) {
        v.push(`tool call ${calls[k]!.id} (${calls[k]!.name}) at ${i} has no result right after its message`);
        break;
      }
      if (answered.has(result.toolCallId)) v.push(`tool call ${result.toolCallId} answered twice`);
      answered.add(result.toolCallId);
    }
    i += calls.length;
  }
  return v;
}
