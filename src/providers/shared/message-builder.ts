/**
 * Builds one assistant message from streamed pieces and produces the provider protocol events
 * (SPEC M4) that describe each step.
 *
 * Every event carries a fresh `partial` snapshot: the message object and the changed block are
 * new, unchanged blocks are shared. A reactive UI (Angular `OnPush`, React) sees each change
 * by reference, and no snapshot is mutated after it was emitted. Used by the OpenAI-compatible
 * provider and by the proxy client, which rebuilds `partial` from the stripped wire events.
 *
 * @module
 */
import { emptyAssistantMessage, failedAssistantMessage } from "../../model/assistant-message.js";
import type {
  AssistantMessage,
  AssistantMessageEvent,
  Model,
  StopReason,
  TextContent,
  ThinkingContent,
  ToolCall,
  Usage,
} from "../../model/messages.js";
import { parseFinalArguments, parsePartialArguments } from "./tool-arguments.js";
import { toolArgumentsOutOfBounds } from "../../model/tool-call-bounds.js";

type Block = AssistantMessage["content"][number];

/** Up to this many characters, streamed tool arguments are re-parsed on every fragment. */
export const EAGER_PARSE_CHARS = 8192;

/** The final `done` event's reasons. */
export type DoneReason = Exclude<StopReason, "error" | "aborted">;

/**
 * Accumulates an assistant message and returns the protocol event for each change.
 *
 * @example
 * ```ts
 * const builder = new AssistantMessageBuilder(model, Date.now());
 * const events = [builder.start()];
 * const text = builder.startText();
 * events.push(text.event, builder.appendText(text.index, "Hello"), builder.endBlock(text.index));
 * events.push(builder.done("stop"));
 * ```
 */
export class AssistantMessageBuilder {
  private readonly base: AssistantMessage;
  private readonly content: Block[] = [];
  private readonly argumentText = new Map<number, string>();
  private readonly parsedLength = new Map<number, number>();
  private extra: Partial<AssistantMessage> = {};
  private snapshot: AssistantMessage | undefined;

  /**
   * @param model - Whose message this is (`id`, `api`, `provider`).
   * @param timestamp - When the request started.
   */
  constructor(private readonly model: Pick<Model, "id" | "api" | "provider">, timestamp: number) {
    this.base = emptyAssistantMessage(model, timestamp);
  }

  /** The message as streamed so far (the same object until something changes). */
  get partial(): AssistantMessage {
    this.snapshot ??= { ...this.base, ...this.extra, content: this.content.slice() };
    return this.snapshot;
  }

  /** Whether any content block was started. */
  get hasContent(): boolean {
    return this.content.length > 0;
  }

  /** The `start` event. */
  start(): AssistantMessageEvent {
    return { type: "start", partial: this.partial };
  }

  /** Sets message fields other than `content` (usage, responseId, provider-specific fields). */
  update(fields: Partial<Omit<AssistantMessage, "content" | "role">>): void {
    this.extra = { ...this.extra, ...fields };
    this.snapshot = undefined;
  }

  /** Sets the token usage. */
  setUsage(usage: Usage): void {
    this.update({ usage });
  }

  /** Opens a text block. */
  startText(): { index: number; event: AssistantMessageEvent } {
    const index = this.push({ type: "text", text: "" });
    return { index, event: { type: "text_start", contentIndex: index, partial: this.partial } };
  }

  /** Opens a thinking block; `signature` names the field it came from, for replay. */
  startThinking(signature?: string): { index: number; event: AssistantMessageEvent } {
    const block: ThinkingContent = { type: "thinking", thinking: "" };
    if (signature !== undefined) block.thinkingSignature = signature;
    const index = this.push(block);
    return { index, event: { type: "thinking_start", contentIndex: index, partial: this.partial } };
  }

  /** Opens a tool-call block with empty arguments. */
  startToolCall(id: string, name: string): { index: number; event: AssistantMessageEvent } {
    const index = this.push({ type: "toolCall", id, name, arguments: {} });
    this.argumentText.set(index, "");
    return { index, event: { type: "toolcall_start", contentIndex: index, partial: this.partial } };
  }

  /** Appends to a text block. */
  appendText(index: number, delta: string): AssistantMessageEvent {
    const block = this.block(index, "text") as TextContent;
    this.replace(index, { ...block, text: block.text + delta });
    return { type: "text_delta", contentIndex: index, delta, partial: this.partial };
  }

  /** Appends to a thinking block. */
  appendThinking(index: number, delta: string): AssistantMessageEvent {
    const block = this.block(index, "thinking") as ThinkingContent;
    this.replace(index, { ...block, thinking: block.thinking + delta });
    return { type: "thinking_delta", contentIndex: index, delta, partial: this.partial };
  }

  /**
   * Appends an arguments fragment to a tool call; the block shows the arguments parsed so far.
   * Short arguments are re-parsed on every fragment. Past {@link EAGER_PARSE_CHARS} they are
   * re-parsed once they grew by an eighth, so a tool call that streams a large file costs
   * linear time instead of quadratic, and the shown arguments lag by at most an eighth.
   */
  appendToolArguments(index: number, delta: string): AssistantMessageEvent {
    const block = this.block(index, "toolCall") as ToolCall;
    const text = (this.argumentText.get(index) ?? "") + delta;
    this.argumentText.set(index, text);
    const parsedAt = this.parsedLength.get(index) ?? 0;
    if (text.length <= EAGER_PARSE_CHARS || text.length - parsedAt >= parsedAt / 8) {
      this.parsedLength.set(index, text.length);
      const parsed = parsePartialArguments(text);
      // Partial JSON nests as deep as the text: past the bounds, listeners keep the last good view.
      if (parsed && toolArgumentsOutOfBounds(parsed) === undefined) this.replace(index, { ...block, arguments: parsed });
    }
    return { type: "toolcall_delta", contentIndex: index, delta, partial: this.partial };
  }

  /** Fills in a tool call's id or name when they arrive after its first fragment. */
  patchToolCall(index: number, fields: { id?: string; name?: string }): void {
    const block = this.block(index, "toolCall") as ToolCall;
    this.replace(index, { ...block, ...fields });
  }

  /**
   * Closes a block. A tool call's arguments are parsed strictly (or replaced by `final` when
   * given, as the proxy sends them); invalid JSON sets `argumentsError`.
   */
  endBlock(index: number, final?: ToolCall): AssistantMessageEvent {
    const block = this.content[index];
    if (block === undefined) throw new Error(`No content block at index ${index}`);
    switch (block.type) {
      case "text":
        return { type: "text_end", contentIndex: index, content: block.text, partial: this.partial };
      case "thinking":
        return { type: "thinking_end", contentIndex: index, content: block.thinking, partial: this.partial };
      case "toolCall": {
        let toolCall: ToolCall;
        if (final) {
          // A server's call, parsed by the wire's JSON.parse: bounded as a parsed one would be.
          const outOfBounds = toolArgumentsOutOfBounds(final.arguments);
          toolCall = outOfBounds === undefined ? { ...final } : { ...final, arguments: {}, argumentsError: outOfBounds };
        } else {
          const parsed = parseFinalArguments(this.argumentText.get(index) ?? "");
          toolCall = { ...block, arguments: parsed.arguments };
          if (parsed.error !== undefined) toolCall.argumentsError = parsed.error;
        }
        this.argumentText.delete(index);
        this.parsedLength.delete(index);
        this.replace(index, toolCall);
        return { type: "toolcall_end", contentIndex: index, toolCall, partial: this.partial };
      }
    }
  }

  /** Sets a thinking block's signature (replay data). */
  signThinking(index: number, signature: string | undefined): void {
    const block = this.block(index, "thinking") as ThinkingContent;
    const next: ThinkingContent = { ...block };
    if (signature === undefined) delete next.thinkingSignature;
    else next.thinkingSignature = signature;
    this.replace(index, next);
  }

  /** Sets a text block's signature. */
  signText(index: number, signature: string | undefined): void {
    const block = this.block(index, "text") as TextContent;
    const next: TextContent = { ...block };
    if (signature === undefined) delete next.textSignature;
    else next.textSignature = signature;
    this.replace(index, next);
  }

  /** The final `done` event. */
  done(reason: DoneReason): AssistantMessageEvent {
    const message: AssistantMessage = { ...this.partial, stopReason: reason };
    delete message.errorMessage;
    return { type: "done", reason, message };
  }

  /** The final `error` event; the content streamed so far is kept. */
  fail(reason: "error" | "aborted", errorMessage: string): { type: "error"; reason: "error" | "aborted"; error: AssistantMessage } {
    const error = failedAssistantMessage(this.model, errorMessage, reason, this.base.timestamp, this.partial);
    return { type: "error", reason, error };
  }

  private push(block: Block): number {
    this.content.push(block);
    this.snapshot = undefined;
    return this.content.length - 1;
  }

  private replace(index: number, block: Block): void {
    this.content[index] = block;
    this.snapshot = undefined;
  }

  private block(index: number, type: Block["type"]): Block {
    const block = this.content[index];
    if (block?.type !== type) throw new Error(`Content block ${index} is ${block ? block.type : "missing"}, expected ${type}`);
    return block;
  }
}
