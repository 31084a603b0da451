/**
 * The text a view draws for a message.
 *
 * @module
 */
import type { AgentMessage } from "../model/types.js";

/**
 * The text blocks of `message`, joined: `""` for none, for a message without text (a tool call
 * alone) and for a custom message without `content`. A user message's `content` may be a plain
 * string; so is it returned.
 *
 * @example
 * ```ts
 * readonly bubbles = computed(() => chat.messages().map((message) => ({ role: message.role, text: messageText(message) })));
 * ```
 */
export function messageText(message: AgentMessage | undefined): string {
  const content = (message as { content?: unknown } | undefined)?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let text = "";
  for (const block of content as Array<{ type?: unknown; text?: unknown }>) if (block.type === "text" && typeof block.text === "string") text += block.text;
  return text;
}
