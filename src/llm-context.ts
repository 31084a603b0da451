/**
 * From the app transcript to what the model is sent (SPEC M2, L4b).
 *
 * @module
 */
import type { Message } from "./messages.js";
import type { AgentMessage } from "./types.js";

const LLM_ROLES = new Set(["system", "user", "assistant", "toolResult"]);

/** Whether a transcript entry is a model message (as opposed to an app message). */
export function isLlmMessage(message: AgentMessage): message is Message {
  return LLM_ROLES.has((message as { role?: string }).role ?? "");
}

/**
 * The default `convertToLlm`: keeps the four model roles and drops app messages.
 *
 * @example
 * ```ts
 * defaultConvertToLlm([{ role: "user", content: "hi", timestamp: 0 }, myNotice]); // [the user message]
 * ```
 */
export function defaultConvertToLlm(messages: readonly AgentMessage[]): Message[] {
  return messages.filter(isLlmMessage);
}

/**
 * The default conversion, memoized over an append-only transcript: each call converts only the
 * messages appended since the previous one, so a request at turn 10 000 costs what one at turn
 * 10 does (SPEC L4b). A different array, or one that shrank or whose last seen entry changed,
 * starts over. The returned array is reused and grows; callers must not mutate it.
 *
 * @internal
 */
export class IncrementalLlmMessages {
  private source: readonly AgentMessage[] | undefined;
  private seen = 0;
  private lastSeen: AgentMessage | undefined;
  private converted: Message[] = [];

  convert(messages: readonly AgentMessage[]): Message[] {
    const sameHistory = messages === this.source && messages.length >= this.seen && (this.seen === 0 || messages[this.seen - 1] === this.lastSeen);
    if (!sameHistory) {
      this.source = messages;
      this.seen = 0;
      this.converted = [];
    }
    for (; this.seen < messages.length; this.seen++) {
      const message = messages[this.seen]!;
      if (isLlmMessage(message)) this.converted.push(message);
    }
    this.lastSeen = messages[this.seen - 1];
    return this.converted;
  }
}
