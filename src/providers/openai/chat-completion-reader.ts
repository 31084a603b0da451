/**
 * Chat Completions stream chunks → provider protocol events (SPEC M4).
 *
 * Text and reasoning (`reasoning_content`, `reasoning`, `reasoning_text`) each stream into one
 * block; tool calls are assembled from fragments keyed by their `index` (parallel calls
 * interleave), with the arguments parsed so far on the partial message; usage comes from the
 * final chunk (`stream_options.include_usage`); `finish_reason` becomes the stop reason.
 *
 * @module
 */
import type { AssistantMessageEvent, Model, Usage } from "../../model/messages.js";
import type { AssistantMessageBuilder, DoneReason } from "../shared/message-builder.js";
import { isRetryableCode } from "../shared/provider-failure.js";
import { jsonText, StreamFailure, truncate } from "../shared/stream-failure.js";

const REASONING_FIELDS = ["reasoning_content", "reasoning", "reasoning_text"] as const;

interface ChunkToolCall {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

interface ChunkUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number };
  prompt_cache_hit_tokens?: number;
}

/**
 * Feeds parsed chunks into an {@link AssistantMessageBuilder}. `chunk` returns the events one
 * chunk produced; `finish` closes the blocks and returns the final `done` event. Failures
 * (an `error` object in the stream, a missing or refusing `finish_reason`) are thrown as
 * `StreamFailure`.
 */
export class ChatCompletionReader {
  private textIndex: number | undefined;
  private thinkingIndex: number | undefined;
  private readonly toolCalls = new Map<number, number>();
  private readonly generatedIds = new Set<string>();
  private finishReason: string | undefined;

  constructor(
    private readonly builder: AssistantMessageBuilder,
    private readonly model: Model,
  ) {}

  /** The events for one parsed `data:` payload. */
  chunk(data: unknown): AssistantMessageEvent[] {
    if (data === null || typeof data !== "object" || Array.isArray(data)) {
      throw new StreamFailure(`Unexpected stream chunk (not a JSON object): ${truncate(jsonText(data))}`, { kind: "protocol", retryable: false });
    }
    const chunk = data as Record<string, any>;
    if (chunk.error) throw streamError(chunk.error);

    const events: AssistantMessageEvent[] = [];
    if (typeof chunk.id === "string" && chunk.id && this.builder.partial.responseId === undefined) this.builder.update({ responseId: chunk.id });
    const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
    const usage = chunk.usage ?? choice?.usage;
    if (usage && typeof usage === "object") this.builder.setUsage(parseUsage(usage as ChunkUsage, this.model));
    if (!choice || typeof choice !== "object") return events;

    const delta = (choice.delta ?? {}) as Record<string, unknown>;
    for (const field of REASONING_FIELDS) {
      const value = delta[field];
      if (typeof value === "string" && value.length > 0) {
        if (this.thinkingIndex === undefined) {
          const started = this.builder.startThinking(field);
          this.thinkingIndex = started.index;
          events.push(started.event);
        }
        events.push(this.builder.appendThinking(this.thinkingIndex, value));
        break;
      }
    }
    if (typeof delta.content === "string" && delta.content.length > 0) {
      if (this.textIndex === undefined) {
        const started = this.builder.startText();
        this.textIndex = started.index;
        events.push(started.event);
      }
      events.push(this.builder.appendText(this.textIndex, delta.content));
    }
    if (Array.isArray(delta.tool_calls)) {
      for (const call of delta.tool_calls as ChunkToolCall[]) events.push(...this.toolCallFragment(call));
    }
    if (typeof choice.finish_reason === "string" && choice.finish_reason) this.finishReason = choice.finish_reason;
    return events;
  }

  /** The closing events once the stream ended (`[DONE]` or end of body). */
  finish(): AssistantMessageEvent[] {
    const reason = this.finishReason;
    if (reason === undefined) {
      throw new StreamFailure("The stream ended before the response was finished (no finish_reason): the connection was closed early", {
        kind: "network",
        retryable: true,
      });
    }
    let stopReason: DoneReason;
    switch (reason) {
      case "stop":
      case "end":
        stopReason = this.toolCalls.size > 0 ? "toolUse" : "stop";
        break;
      case "length":
        stopReason = "length";
        break;
      case "tool_calls":
      case "function_call":
        stopReason = "toolUse";
        break;
      case "content_filter":
        throw new StreamFailure("The provider stopped the response: finish_reason content_filter (the output was blocked by its content filter)", {
          kind: "refused",
          code: "content_filter",
          retryable: false,
        });
      default:
        throw new StreamFailure(`The provider ended the response with finish_reason "${reason}"`, { kind: "refused", code: reason, retryable: false });
    }
    const events: AssistantMessageEvent[] = [];
    const count = this.builder.partial.content.length;
    for (let index = 0; index < count; index++) events.push(this.builder.endBlock(index));
    events.push(this.builder.done(stopReason));
    return events;
  }

  private toolCallFragment(call: ChunkToolCall): AssistantMessageEvent[] {
    const events: AssistantMessageEvent[] = [];
    const key = typeof call.index === "number" ? call.index : this.keyForUnindexed(call);
    let index = this.toolCalls.get(key);
    // The server's word: only strings are taken as an id or a name (anything else nests as it likes).
    const name = typeof call.function?.name === "string" ? call.function.name : undefined;
    if (index === undefined) {
      let id = typeof call.id === "string" ? call.id : undefined;
      if (!id) {
        id = `call_${this.builder.partial.responseId ?? "rxagent"}_${this.toolCalls.size}`;
        this.generatedIds.add(id);
      }
      const started = this.builder.startToolCall(id, name ?? "");
      index = started.index;
      this.toolCalls.set(key, index);
      events.push(started.event);
    } else {
      const block = this.builder.partial.content[index];
      if (block?.type === "toolCall") {
        const patch: { id?: string; name?: string } = {};
        if (typeof call.id === "string" && call.id && this.generatedIds.has(block.id)) patch.id = call.id;
        if (name && !block.name) patch.name = name;
        if (patch.id !== undefined || patch.name !== undefined) this.builder.patchToolCall(index, patch);
      }
    }
    const fragment = call.function?.arguments;
    if (typeof fragment === "string" && fragment.length > 0) events.push(this.builder.appendToolArguments(index, fragment));
    return events;
  }

  /** Servers that omit `index` send each call whole; a new id means a new call. */
  private keyForUnindexed(call: ChunkToolCall): number {
    if (call.id) {
      for (const [key, index] of this.toolCalls) {
        const block = this.builder.partial.content[index];
        if (block?.type === "toolCall" && block.id === call.id) return key;
      }
      return -1 - this.toolCalls.size;
    }
    const keys = [...this.toolCalls.keys()];
    return keys.length > 0 ? keys[keys.length - 1]! : -1;
  }
}

function streamError(error: unknown): StreamFailure {
  if (typeof error === "string") return new StreamFailure(`The provider reported an error mid-stream: ${truncate(error, 1000)}`, { kind: "stream", retryable: false });
  const fields = (error ?? {}) as Record<string, unknown>;
  const message = typeof fields.message === "string" ? fields.message : jsonText(error);
  const code = [fields.code, fields.type].find((value): value is string => typeof value === "string");
  const status = typeof fields.code === "number" ? fields.code : undefined;
  const retryable = isRetryableCode(code) || (status !== undefined && (status === 429 || status >= 500)) || /overloaded/i.test(message);
  return new StreamFailure(`The provider reported an error mid-stream: ${truncate(message, 1000)}${code ? ` [${code}]` : ""}`, {
    kind: "stream",
    ...(code !== undefined ? { code } : {}),
    ...(status !== undefined ? { status } : {}),
    retryable,
  });
}

/** A token count the server sent: a finite number, else 0. */
function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/**
 * Token usage from a Chat Completions `usage` object. Cached prompt tokens are reported as
 * `cacheRead` and left out of `input`; cost uses `model.cost` (dollars per million tokens,
 * as pi-ai's catalog states it) when present.
 */
export function parseUsage(usage: ChunkUsage, model: Model): Usage {
  const prompt = count(usage.prompt_tokens);
  const cacheRead = count(usage.prompt_tokens_details?.cached_tokens ?? usage.prompt_cache_hit_tokens);
  const input = Math.max(0, prompt - cacheRead);
  const output = count(usage.completion_tokens);
  const rates = (model.cost ?? {}) as { input?: number; output?: number; cacheRead?: number; cacheWrite?: number };
  const cost = {
    input: ((rates.input ?? 0) * input) / 1e6,
    output: ((rates.output ?? 0) * output) / 1e6,
    cacheRead: ((rates.cacheRead ?? 0) * cacheRead) / 1e6,
    cacheWrite: 0,
    total: 0,
  };
  cost.total = cost.input + cost.output + cost.cacheRead;
  return { input, output, cacheRead, cacheWrite: 0, totalTokens: input + output + cacheRead, cost };
}
