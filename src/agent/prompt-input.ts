/**
 * What `prompt()`, `steer()` and `followUp()` accept, turned into messages (SPEC A2).
 *
 * @module
 */
import type { ImageContent, TextContent, UserMessage } from "../model/messages.js";
import type { AgentMessage } from "../model/types.js";

/** What `prompt()` accepts: text (with images), one message, or several. */
export type PromptInput = string | AgentMessage | AgentMessage[];

/** A user message with `text`, then the images. */
export function userMessage(text: string, timestamp: number, images: ImageContent[] = []): UserMessage {
  const content: (TextContent | ImageContent)[] = [{ type: "text", text }, ...images];
  return { role: "user", content, timestamp };
}

/** A message, or text as a user message. */
export function toMessage(message: AgentMessage | string, timestamp: number): AgentMessage {
  return typeof message === "string" ? userMessage(message, timestamp) : message;
}

/** The messages of a prompt. Throws on input that is neither text, a message nor an array. */
export function promptMessages(input: PromptInput, timestamp: number, images?: ImageContent[]): AgentMessage[] {
  if (typeof input === "string") return [userMessage(input, timestamp, images)];
  // The loop copies the prompts when the run starts.
  if (Array.isArray(input)) return input;
  if (input === null || typeof input !== "object") throw new TypeError("prompt() takes text, a message, or an array of messages.");
  return [input];
}
