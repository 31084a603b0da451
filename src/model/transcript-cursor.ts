/**
 * Reading an append-only transcript incrementally (SPEC L4b, I2): what is new since the last read,
 * or that the reader must start over because the array was replaced, shrank or was written to.
 *
 * @module
 */
import type { AgentMessage } from "./types.js";

/**
 * Remembers how far a reader got in a transcript. A different array, one shorter than what was
 * read, another message where the last read one was, or a new count of writes (see
 * `WatchedTranscript`: a hook wrote to the transcript in place) means starting over. Each check
 * is O(1).
 *
 * @example
 * ```ts
 * const from = cursor.advance(messages, watched.writes);
 * if (from === 0) folded.clear();
 * for (let i = from; i < messages.length; i++) fold(messages[i]);
 * ```
 */
export class TranscriptCursor {
  private source: readonly AgentMessage[] | undefined;
  private read = 0;
  private lastRead: AgentMessage | undefined;
  private writes = 0;

  /**
   * The index of the first message the reader has not folded: 0 when it must start over. Marks
   * the whole array as read.
   */
  advance(messages: readonly AgentMessage[], writes = 0): number {
    const unchanged = messages === this.source && messages.length >= this.read && writes === this.writes && (this.read === 0 || messages[this.read - 1] === this.lastRead);
    const from = unchanged ? this.read : 0;
    this.source = messages;
    this.read = messages.length;
    this.lastRead = messages[messages.length - 1];
    this.writes = writes;
    return from;
  }
}
