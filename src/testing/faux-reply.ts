/**
 * The shape of one scripted reply of `fauxProvider`. A file of its own so that the provider and
 * the event generator both depend on it without depending on each other.
 *
 * @module
 */
import type { StopReason, TextContent, ThinkingContent, ToolCall, Usage } from "../model/messages.js";

/** A scripted reply: the final message's content and how it ends. */
export interface FauxReply {
  /** A string is one text block. */
  content: string | (TextContent | ThinkingContent | ToolCall)[];
  /** Defaults to `toolUse` when the content has tool calls, else `stop`. */
  stopReason?: StopReason | undefined;
  /** For `error` / `aborted` replies. */
  errorMessage?: string | undefined;
  usage?: Partial<Usage> | undefined;
  /**
   * Misbehave instead of answering, to test fault handling (SPEC M4): `throw` synchronously,
   * `reject` the promise, `error` the Observable mid-stream, `incomplete` (end without `done`),
   * `hang` (stream the content, then never finish).
   */
  fault?: "throw" | "reject" | "error" | "incomplete" | "hang" | undefined;
}
