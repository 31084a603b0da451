/**
 * AI SDK stream parts (`LanguageModelV4StreamPart`) → provider protocol events (SPEC M4).
 *
 * Text, reasoning and tool-input parts name their block by `id`, so interleaved blocks stay
 * apart; a delta whose block never started opens it. A tool call ends at its `tool-call` part,
 * whose `input` is the authoritative JSON (the deltas are only shown); tool calls the provider
 * executed itself (web search, code execution) are not rxagent's to run and are left out, with
 * their results. The `finish` part gives the usage and the stop reason; the closing events
 * follow when the stream ends.
 *
 * @internal
 * @module
 */
import { describeError } from "../../model/describe-error.js";
import type { AssistantMessage, AssistantMessageEvent, Model, ToolCall } from "../../model/messages.js";
import type { AssistantMessageBuilder } from "../shared/message-builder.js";
import { StreamFailure, truncate } from "../shared/stream-failure.js";
import { parseFinalArguments } from "../shared/tool-arguments.js";
import { describeAiSdkFailure } from "./ai-sdk-failure.js";
import { toStopReason } from "./ai-sdk-finish-reason.js";
import type { AiSdkFinishReason, AiSdkKnownStreamPart, AiSdkProviderMetadata, AiSdkStreamPart, AiSdkWarning } from "./ai-sdk-types.js";
import { fromAiSdkUsage } from "./ai-sdk-usage.js";
import { encodeProviderMetadata, mergeProviderMetadata } from "./provider-metadata.js";

type Kind = "text" | "reasoning" | "tool";

/** A block that started and has not ended. */
interface OpenBlock {
  index: number;
  metadata: AiSdkProviderMetadata | undefined;
  /** A tool call's input text so far. */
  input: string;
  /**
   * A tool call whose input deltas are raw text (`inputEncoding: "text"`), not JSON: they are
   * not parsed as they stream; the `tool-call` part's JSON `input` gives the arguments.
   */
  textInput: boolean;
}

/**
 * Feeds stream parts into an `AssistantMessageBuilder` (the one `rxagent/openai` uses). `part`
 * returns the events one part produced; `finish` closes the open blocks and returns the final
 * `done` event. An `error` part, a failing finish reason, a stream without `finish` or an
 * `onWarnings` that throws throw a `StreamFailure`.
 *
 * @example
 * ```ts
 * const reader = new AiSdkStreamReader(builder, model, Date.now);
 * for await (const part of result.stream) for (const event of reader.part(part)) emit(event);
 * for (const event of reader.finish()) emit(event);
 * ```
 */
export class AiSdkStreamReader {
  private readonly open = new Map<string, OpenBlock>();
  private readonly providerExecuted = new Set<string>();
  private toolCalls = 0;
  private finishReason: AiSdkFinishReason | undefined;
  private finished = false;

  constructor(
    private readonly builder: AssistantMessageBuilder,
    private readonly model: Model,
    private readonly now: () => number,
    private readonly onWarnings?: (warnings: AiSdkWarning[], model: Model) => void,
  ) {}

  /** The events of one stream part. */
  part(received: AiSdkStreamPart): AssistantMessageEvent[] {
    // A part of another type falls through to `default`, whatever its fields.
    const part = received as AiSdkKnownStreamPart;
    switch (part.type) {
      case "stream-start":
        if (part.warnings.length > 0) this.warn(part.warnings);
        return [];
      case "response-metadata":
        this.responseMetadata(part.id, part.modelId);
        return [];
      case "text-start":
      case "reasoning-start":
        return this.start(part.type === "text-start" ? "text" : "reasoning", part.id, part.providerMetadata);
      case "text-delta":
      case "reasoning-delta":
        return this.delta(part.type === "text-delta" ? "text" : "reasoning", part.id, part.delta, part.providerMetadata);
      case "text-end":
      case "reasoning-end":
        return this.end(part.type === "text-end" ? "text" : "reasoning", part.id, part.providerMetadata);
      case "tool-input-start":
        if (part.providerExecuted) {
          this.providerExecuted.add(part.id);
          return [];
        }
        return this.start("tool", part.id, part.providerMetadata, part.toolName, part.inputEncoding === "text");
      case "tool-input-delta":
        if (this.providerExecuted.has(part.id)) return [];
        return this.delta("tool", part.id, part.delta, part.providerMetadata);
      case "tool-input-end": {
        const block = this.open.get(key("tool", part.id));
        if (block) block.metadata = mergeProviderMetadata(block.metadata, part.providerMetadata);
        return [];
      }
      case "tool-call":
        if (part.providerExecuted || this.providerExecuted.has(part.toolCallId)) return [];
        return this.toolCall(part.toolCallId, part.toolName, part.input, part.providerMetadata);
      case "finish":
        this.finished = true;
        this.finishReason = part.finishReason;
        this.builder.setUsage(fromAiSdkUsage(part.usage, this.model));
        return [];
      case "error": {
        const { message, failure } = describeAiSdkFailure(part.error, "part", this.now());
        throw new StreamFailure(message, failure ?? { kind: "stream", retryable: false });
      }
      default:
        // raw, ping, sources, files, custom content, provider-executed tool results and
        // approvals: nothing an rxagent message holds.
        return [];
    }
  }

  /** The closing events once the stream ended: every open block's end, then `done`. */
  finish(): AssistantMessageEvent[] {
    if (!this.finished) {
      throw new StreamFailure("The stream ended before the response was finished (no finish part): the connection was closed early", { kind: "network", retryable: true });
    }
    const reason = toStopReason(this.finishReason, this.toolCalls + this.unfinishedToolCalls());
    const events: AssistantMessageEvent[] = [];
    const open = [...this.open.values()].sort((a, b) => a.index - b.index);
    for (const block of open) events.push(this.close(block));
    this.open.clear();
    events.push(this.builder.done(reason));
    return events;
  }

  private unfinishedToolCalls(): number {
    let count = 0;
    for (const name of this.open.keys()) if (name.startsWith("tool:")) count++;
    return count;
  }

  /** The app's `onWarnings`: a throw there is the app's failure, never the provider's (not retried). */
  private warn(warnings: AiSdkWarning[]): void {
    try {
      this.onWarnings?.(warnings, this.model);
    } catch (error) {
      throw new StreamFailure(`fromAiSdk's onWarnings threw: ${truncate(describeError(error), 1000)}`, { kind: "protocol", retryable: false });
    }
  }

  /**
   * The first response id; and the model that served the request as `responseModel` when it is
   * not the requested id. `model` stays the requested id: it is what the next request compares
   * to decide whether the message's signatures and reasoning are replayed (SPEC V2).
   */
  private responseMetadata(id: string | undefined, modelId: string | undefined): void {
    const partial = this.builder.partial as AssistantMessage & { responseModel?: string };
    const fields: Partial<AssistantMessage> & { responseModel?: string } = {};
    if (id && partial.responseId === undefined) fields.responseId = id;
    if (modelId && modelId !== this.model.id && partial.responseModel === undefined) fields.responseModel = modelId;
    if (Object.keys(fields).length > 0) this.builder.update(fields);
  }

  private start(kind: Kind, id: string, metadata: AiSdkProviderMetadata | undefined, toolName = "", textInput = false): AssistantMessageEvent[] {
    const name = key(kind, id);
    const existing = this.open.get(name);
    if (existing) {
      existing.metadata = mergeProviderMetadata(existing.metadata, metadata);
      return [];
    }
    const started = kind === "text" ? this.builder.startText() : kind === "reasoning" ? this.builder.startThinking() : this.builder.startToolCall(id, toolName);
    this.open.set(name, { index: started.index, metadata: mergeProviderMetadata(undefined, metadata), input: "", textInput });
    return [started.event];
  }

  private delta(kind: Kind, id: string, delta: string, metadata: AiSdkProviderMetadata | undefined): AssistantMessageEvent[] {
    const events = this.open.has(key(kind, id)) ? [] : this.start(kind, id, undefined);
    const block = this.open.get(key(kind, id))!;
    block.metadata = mergeProviderMetadata(block.metadata, metadata);
    // Empty deltas carry only metadata (Anthropic's thinking signature arrives as one).
    if (delta.length === 0) return events;
    if (kind === "text") events.push(this.builder.appendText(block.index, delta));
    else if (kind === "reasoning") events.push(this.builder.appendThinking(block.index, delta));
    else {
      block.input += delta;
      // Raw text is no JSON document to read arguments from: the partial keeps its `{}` until the tool-call part.
      if (block.textInput) events.push({ type: "toolcall_delta", contentIndex: block.index, delta, partial: this.builder.partial });
      else events.push(this.builder.appendToolArguments(block.index, delta));
    }
    return events;
  }

  private end(kind: Exclude<Kind, "tool">, id: string, metadata: AiSdkProviderMetadata | undefined): AssistantMessageEvent[] {
    const name = key(kind, id);
    const block = this.open.get(name);
    if (!block) return [];
    block.metadata = mergeProviderMetadata(block.metadata, metadata);
    this.open.delete(name);
    return [this.close(block)];
  }

  private toolCall(id: string, toolName: string, input: string, metadata: AiSdkProviderMetadata | undefined): AssistantMessageEvent[] {
    const name = key("tool", id);
    const events: AssistantMessageEvent[] = [];
    if (!this.open.has(name)) {
      // A provider that does not stream tool input sends the call whole.
      events.push(...this.start("tool", id, undefined, toolName));
      if (input.length > 0) events.push(...this.delta("tool", id, input, undefined));
    }
    const block = this.open.get(name)!;
    this.open.delete(name);
    block.metadata = mergeProviderMetadata(block.metadata, metadata);
    this.toolCalls++;
    events.push(this.builder.endBlock(block.index, finalToolCall(id, toolName, input, block.metadata)));
    return events;
  }

  /** Ends a block, with its metadata in the block's signature field so the end event shows it. */
  private close(block: OpenBlock): AssistantMessageEvent {
    const current = this.builder.partial.content[block.index];
    const signature = encodeProviderMetadata(block.metadata);
    if (current?.type === "toolCall") {
      // A text-encoded call cut off before its tool-call part: its text stands as the JSON string the part would have carried.
      const input = block.textInput ? JSON.stringify(block.input) : block.input;
      return this.builder.endBlock(block.index, finalToolCall(current.id, current.name, input, block.metadata));
    }
    if (signature !== undefined && current?.type === "text") this.builder.signText(block.index, signature);
    if (signature !== undefined && current?.type === "thinking") this.builder.signThinking(block.index, signature);
    return this.builder.endBlock(block.index);
  }
}

/** A finished tool call: its input parsed strictly (`argumentsError` when it is not a JSON object), its metadata as the signature. */
function finalToolCall(id: string, name: string, input: string, metadata: AiSdkProviderMetadata | undefined): ToolCall {
  const parsed = parseFinalArguments(input);
  const call: ToolCall = { type: "toolCall", id, name, arguments: parsed.arguments };
  if (parsed.error !== undefined) call.argumentsError = parsed.error;
  const signature = encodeProviderMetadata(metadata);
  if (signature !== undefined) call.thoughtSignature = signature;
  return call;
}

function key(kind: Kind, id: string): string {
  return `${kind}:${id}`;
}
