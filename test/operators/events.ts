/** Events for the operators' marble specs: small, complete values of the public union. */
import type { AgentEvent, AssistantMessage, AssistantMessageEvent, Message } from "../../src/index.js";

const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

export function answer(text: string, thinking = ""): AssistantMessage {
  const content: AssistantMessage["content"] = [];
  if (thinking) content.push({ type: "thinking", thinking });
  content.push({ type: "text", text });
  return { role: "assistant", content, api: "faux", provider: "faux", model: "m", usage, stopReason: "stop", timestamp: 0 };
}

export const prompt: Message = { role: "user", content: "hi", timestamp: 0 };

export function update(message: AssistantMessage, delta: AssistantMessageEvent): AgentEvent {
  return { type: "message_update", message, assistantMessageEvent: delta };
}

export const textDelta = (message: AssistantMessage, delta: string): AssistantMessageEvent => ({ type: "text_delta", contentIndex: 0, delta, partial: message });
export const thinkingDelta = (message: AssistantMessage, delta: string): AssistantMessageEvent => ({ type: "thinking_delta", contentIndex: 0, delta, partial: message });

export const ok = { content: [{ type: "text" as const, text: "done" }] };
