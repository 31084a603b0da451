/**
 * Reading an append-only transcript incrementally (SPEC L4b, I2): what is new since the last read,
 * or that the reader must start over because the array was replaced, shrank or was rewritten.
 *
 * @module
 */
import type { AgentMessage } from "./types.js";

/**
 * Remembers how far a reader got in a transcript. A different array, or one shorter than what
 * was read, means starting over. A rewrite in place (a hook that replaces `messages[0]` or
 * splices the array) is caught in one of two ways: by default only the last message read is
 * checked, O(1); with `verify`, every message read so far is compared by identity, O(read) but
 * without allocating, for runs whose hooks are handed the live transcript.
 *
 * @example
 * ```ts
 * const from = cursor.advance(messages);
 * if (from === 0) folded.clear();
 * for (let i = from; i < messages.length; i++) fold(messages[i]);
 * ```
 */
export class TranscriptCursor {
  private source: readonly AgentMessage[] | undefined;
  private read = 0;
  private lastRead: AgentMessage | undefined;
  /** With `verify`: the messages read so far, in order. */
  private readonly seen: AgentMessage[] | undefined;

  constructor(verify = false) {
    this.seen = verify ? [] : undefined;
  }

  /**
   * The index of the first message the reader has not folded: 0 when it must start over. Marks
   * the whole array as read.
   */
  advance(messages: readonly AgentMessage[]): number {
    const from = this.unchanged(messages) ? this.read : 0;
    if (this.seen) {
      this.seen.length = from;
      for (let i = from; i < messages.length; i++) this.seen.push(messages[i]!);
    }
    this.source = messages;
    this.read = messages.length;
    this.lastRead = messages[messages.length - 1];
    return from;
  }

  private unchanged(messages: readonly AgentMessage[]): boolean {
    if (messages !== this.source || messages.length < this.read) return false;
    if (this.read === 0) return true;
    if (messages[this.read - 1] !== this.lastRead) return false;
    const seen = this.seen;
    if (seen) for (let i = 0; i < this.read; i++) if (messages[i] !== seen[i]) return false;
    return true;
  }
}
