/**
 * From the app transcript to what the model is sent (SPEC M2, L4b).
 *
 * @module
 */
import type { Message } from "./messages.js";
import { TranscriptCursor } from "./transcript-cursor.js";
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
 * 10 does (SPEC L4b). A replaced, shortened or rewritten array starts over (see
 * {@link TranscriptCursor}).
 * The returned array is reused and grows; callers must not mutate it.
 *
 * @internal
 */
export class IncrementalLlmMessages {
  private readonly cursor = new TranscriptCursor();
  private converted: Message[] = [];

  /** `writes`: the transcript's count of writes by hooks (see `WatchedTranscript`); a new count starts over. */
  convert(messages: readonly AgentMessage[], writes = 0): Message[] {
    const from = this.cursor.advance(messages, writes);
    if (from === 0) this.converted = [];
    for (let i = from; i < messages.length; i++) {
      const message = messages[i]!;
      if (isLlmMessage(message)) this.converted.push(message);
    }
    return this.converted;
  }
}
