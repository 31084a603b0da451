/**
 * The protocol events of a scripted reply of `fauxProvider`: its content split into
 * deltas, each event's `partial` a snapshot of the message so far.
 *
 * @internal
 * @module
 */
import { emptyUsage } from "../model/assistant-message.js";
import type { AssistantMessage, AssistantMessageEvent, Model, StopReason, TextContent, ThinkingContent, ToolCall } from "../model/messages.js";
import type { FauxReply } from "./faux-reply.js";

/** A content block of a scripted reply. */
type Block = TextContent | ThinkingContent | ToolCall;

/** Marks the point where a `hang` fault stops emitting. */
export const HANG = Symbol("hang");
function* hang(): Generator<never> {
  yield HANG as never;
}

/** `text` in pieces of `size` characters; none for the empty string. */
function chunks(text: string, size: number): string[] {
  if (text.length === 0) return [];
  const parts: string[] = [];
  for (let i = 0; i < text.length; i += size) parts.push(text.slice(i, i + size));
  return parts;
}

/** The object in partial JSON, or `{}` while it does not parse yet. */
function tryParse(json: string): Record<string, unknown> {
  try {
    const value = JSON.parse(json);
    return value && typeof value === "object" ? value : {};
  } catch {
    return {};
  }
}

/**
 * The message as it streams. Every change makes a new object, so the `partial` of an event
 * already emitted stays as it was.
 */
class MessageSnapshots {
  constructor(public message: AssistantMessage) {}

  /** A new snapshot with the block at `index` set to `block`. */
  withBlock(index: number, block: Block): AssistantMessage {
    const content = this.message.content.slice();
    content[index] = block;
    this.message = { ...this.message, content };
    return this.message;
  }
}

/** The protocol events that stream `reply`, each `partial` a snapshot of the message so far. */
export function* replyEvents(reply: FauxReply, model: Model, timestamp: number, chunkSize: number): Generator<AssistantMessageEvent> {
  const blocks: Block[] = typeof reply.content === "string" ? [{ type: "text", text: reply.content }] : reply.content;
  const hasToolCalls = blocks.some((block) => block.type === "toolCall");
  const stopReason = reply.stopReason ?? (hasToolCalls ? "toolUse" : "stop");
  const snapshots = new MessageSnapshots({
    role: "assistant",
    content: [],
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: { ...emptyUsage(), ...reply.usage },
    stopReason: "stop",
    timestamp,
  });
  yield { type: "start", partial: snapshots.message };
  for (const block of blocks) yield* blockEvents(block, snapshots.message.content.length, snapshots, chunkSize);
  yield* endEvents(reply, snapshots.message, stopReason);
}

/** The start, delta and end events of one content block at `index`. */
function* blockEvents(block: Block, index: number, snapshots: MessageSnapshots, chunkSize: number): Generator<AssistantMessageEvent> {
  if (block.type === "text") {
    yield { type: "text_start", contentIndex: index, partial: snapshots.withBlock(index, { ...block, text: "" }) };
    let text = "";
    for (const delta of chunks(block.text, chunkSize)) {
      text += delta;
      yield { type: "text_delta", contentIndex: index, delta, partial: snapshots.withBlock(index, { ...block, text }) };
    }
    yield { type: "text_end", contentIndex: index, content: block.text, partial: snapshots.withBlock(index, block) };
  } else if (block.type === "thinking") {
    yield { type: "thinking_start", contentIndex: index, partial: snapshots.withBlock(index, { ...block, thinking: "" }) };
    let thinking = "";
    for (const delta of chunks(block.thinking, chunkSize)) {
      thinking += delta;
      yield { type: "thinking_delta", contentIndex: index, delta, partial: snapshots.withBlock(index, { ...block, thinking }) };
    }
    yield { type: "thinking_end", contentIndex: index, content: block.thinking, partial: snapshots.withBlock(index, block) };
  } else {
    yield { type: "toolcall_start", contentIndex: index, partial: snapshots.withBlock(index, { ...block, arguments: {} }) };
    let json = "";
    for (const delta of chunks(JSON.stringify(block.arguments), chunkSize)) {
      json += delta;
      yield { type: "toolcall_delta", contentIndex: index, delta, partial: snapshots.withBlock(index, { ...block, arguments: tryParse(json) }) };
    }
    yield { type: "toolcall_end", contentIndex: index, toolCall: block, partial: snapshots.withBlock(index, block) };
  }
}

/** How the stream ends: the final `done` or `error` event, or the scripted fault instead. */
function* endEvents(reply: FauxReply, message: AssistantMessage, stopReason: StopReason): Generator<AssistantMessageEvent> {
  if (reply.fault === "error") throw new Error("fauxProvider: scripted stream error");
  if (reply.fault === "incomplete") return;
  if (reply.fault === "hang") {
    yield* hang();
    return;
  }
  const final: AssistantMessage = { ...message, stopReason };
  if (stopReason === "error" || stopReason === "aborted") {
    final.errorMessage = reply.errorMessage ?? (stopReason === "error" ? "Scripted error" : "Request was aborted");
    yield { type: "error", reason: stopReason, error: final };
  } else {
    yield { type: "done", reason: stopReason, message: final };
  }
}
