/**
 * The proxy's wire format: provider events without the bulky `partial` message.
 *
 * Every protocol event but the last carries the whole message streamed so far, so sending them
 * as they are would make a response quadratic in its length. The server strips `partial`
 * ({@link toProxyEvent}); the client rebuilds it from the deltas ({@link ProxyEventDecoder}).
 * `start`, `done` and `error` carry the message's fields except `content`, so the rebuilt
 * message keeps everything the upstream provider set (usage, responseId, errorMessage, ...).
 *
 * @module
 */
import type { AssistantMessage, AssistantMessageEvent, Model, StopReason, ToolCall } from "../../model/messages.js";
import { AssistantMessageBuilder } from "../shared/message-builder.js";
import { getProviderFailure, recordProviderFailure, type ProviderFailure } from "../shared/provider-failure.js";
import { StreamFailure } from "../shared/stream-failure.js";

/** An assistant message without its content. */
export type MessageHead = Omit<AssistantMessage, "content">;

/**
 * One event on the proxy wire (one SSE `data:` line each). Block events carry `message` only
 * when the message's other fields changed since the last event (a response id, usage).
 */
export type ProxyEvent =
  | { type: "start"; message: MessageHead }
  | ({ type: "text_start"; contentIndex: number } & HeadUpdate)
  | ({ type: "text_delta"; contentIndex: number; delta: string } & HeadUpdate)
  | ({ type: "text_end"; contentIndex: number; signature?: string } & HeadUpdate)
  | ({ type: "thinking_start"; contentIndex: number; signature?: string } & HeadUpdate)
  | ({ type: "thinking_delta"; contentIndex: number; delta: string } & HeadUpdate)
  | ({ type: "thinking_end"; contentIndex: number; signature?: string; redacted?: boolean } & HeadUpdate)
  | ({ type: "toolcall_start"; contentIndex: number; id: string; name: string } & HeadUpdate)
  | ({ type: "toolcall_delta"; contentIndex: number; delta: string } & HeadUpdate)
  | ({ type: "toolcall_end"; contentIndex: number; toolCall: ToolCall } & HeadUpdate)
  | { type: "done"; reason: Exclude<StopReason, "error" | "aborted">; message: MessageHead }
  | { type: "error"; reason: "error" | "aborted"; message: MessageHead; failure?: ProviderFailure };

/** The message's fields other than `content`, sent when they changed. */
export interface HeadUpdate {
  message?: MessageHead;
}

function head(message: AssistantMessage): MessageHead {
  const { content: _content, ...rest } = message;
  return rest;
}

/**
 * Strips `partial` from a stream of events, keeping the message's other fields in sync: a
 * block event carries them when they differ from what was last sent. One encoder per stream.
 */
export class ProxyEventEncoder {
  private sent = "";

  /** The wire form of `event`. */
  encode(event: AssistantMessageEvent): ProxyEvent {
    const wire = toProxyEvent(event);
    const message = head("partial" in event ? event.partial : event.type === "done" ? event.message : event.error);
    const key = JSON.stringify(message);
    if (wire.type !== "start" && wire.type !== "done" && wire.type !== "error" && key !== this.sent) {
      (wire as HeadUpdate).message = message;
    }
    this.sent = key;
    return wire;
  }
}

/** A provider event as sent by the proxy server: `partial` stripped (see {@link ProxyEventEncoder}). */
export function toProxyEvent(event: AssistantMessageEvent): ProxyEvent {
  switch (event.type) {
    case "start":
      return { type: "start", message: head(event.partial) };
    case "text_start":
      return { type: "text_start", contentIndex: event.contentIndex };
    case "text_delta":
    case "thinking_delta":
    case "toolcall_delta":
      return { type: event.type, contentIndex: event.contentIndex, delta: event.delta };
    case "text_end": {
      const block = event.partial.content[event.contentIndex];
      const signature = block?.type === "text" ? block.textSignature : undefined;
      return signature === undefined ? { type: "text_end", contentIndex: event.contentIndex } : { type: "text_end", contentIndex: event.contentIndex, signature };
    }
    case "thinking_start": {
      const block = event.partial.content[event.contentIndex];
      const signature = block?.type === "thinking" ? block.thinkingSignature : undefined;
      return signature === undefined ? { type: "thinking_start", contentIndex: event.contentIndex } : { type: "thinking_start", contentIndex: event.contentIndex, signature };
    }
    case "thinking_end": {
      const block = event.partial.content[event.contentIndex];
      const wire: ProxyEvent & { type: "thinking_end" } = { type: "thinking_end", contentIndex: event.contentIndex };
      if (block?.type === "thinking") {
        if (block.thinkingSignature !== undefined) wire.signature = block.thinkingSignature;
        if (block.redacted) wire.redacted = true;
      }
      return wire;
    }
    case "toolcall_start": {
      const block = event.partial.content[event.contentIndex];
      return {
        type: "toolcall_start",
        contentIndex: event.contentIndex,
        id: block?.type === "toolCall" ? block.id : "",
        name: block?.type === "toolCall" ? block.name : "",
      };
    }
    case "toolcall_end":
      return { type: "toolcall_end", contentIndex: event.contentIndex, toolCall: event.toolCall };
    case "done":
      return { type: "done", reason: event.reason, message: head(event.message) };
    case "error": {
      const failure = getProviderFailure(event.error);
      return failure ? { type: "error", reason: event.reason, message: head(event.error), failure } : { type: "error", reason: event.reason, message: head(event.error) };
    }
  }
}

/**
 * Rebuilds full provider events, `partial` included, from proxy wire events.
 *
 * @example
 * ```ts
 * const decoder = new ProxyEventDecoder(model, Date.now());
 * const event = decoder.decode({ type: "text_delta", contentIndex: 0, delta: "Hi" });
 * ```
 */
export class ProxyEventDecoder {
  private readonly builder: AssistantMessageBuilder;

  constructor(model: Pick<Model, "id" | "api" | "provider">, timestamp: number) {
    this.builder = new AssistantMessageBuilder(model, timestamp);
  }

  /** The message rebuilt so far. */
  get partial(): AssistantMessage {
    return this.builder.partial;
  }

  /** The builder, to produce a final failure with the content rebuilt so far. */
  get message(): AssistantMessageBuilder {
    return this.builder;
  }

  /** The full event for one wire event. Throws `StreamFailure` on events that do not fit. */
  decode(wire: ProxyEvent): AssistantMessageEvent {
    const b = this.builder;
    if (wire.type !== "start" && wire.type !== "done" && wire.type !== "error" && wire.message) b.update(fields(wire.message));
    switch (wire.type) {
      case "start":
        b.update(fields(wire.message));
        return b.start();
      case "text_start":
        return this.at(wire.contentIndex, b.startText());
      case "thinking_start":
        return this.at(wire.contentIndex, b.startThinking(wire.signature));
      case "toolcall_start":
        return this.at(wire.contentIndex, b.startToolCall(wire.id, wire.name));
      case "text_delta":
        return b.appendText(wire.contentIndex, wire.delta);
      case "thinking_delta":
        return b.appendThinking(wire.contentIndex, wire.delta);
      case "toolcall_delta":
        return b.appendToolArguments(wire.contentIndex, wire.delta);
      case "text_end":
        if (wire.signature !== undefined) b.signText(wire.contentIndex, wire.signature);
        return b.endBlock(wire.contentIndex);
      case "thinking_end":
        if (wire.signature !== undefined) b.signThinking(wire.contentIndex, wire.signature);
        return b.endBlock(wire.contentIndex);
      case "toolcall_end":
        return b.endBlock(wire.contentIndex, wire.toolCall);
      case "done":
        b.update(fields(wire.message));
        return b.done(wire.reason);
      case "error": {
        b.update(fields(wire.message));
        const event = b.fail(wire.reason, wire.message.errorMessage ?? "The proxied request failed");
        if (wire.failure) recordProviderFailure(event.error, wire.failure);
        return event;
      }
      default:
        throw new StreamFailure(`Unknown proxy event: ${JSON.stringify(wire).slice(0, 200)}`, { kind: "protocol", retryable: false });
    }
  }

  private at(expected: number, started: { index: number; event: AssistantMessageEvent }): AssistantMessageEvent {
    if (started.index !== expected) {
      throw new StreamFailure(`Proxy event out of order: block ${expected} started as block ${started.index}`, { kind: "protocol", retryable: false });
    }
    return started.event;
  }
}

function fields(message: MessageHead): Partial<Omit<AssistantMessage, "content" | "role">> {
  const { role: _role, stopReason: _stopReason, errorMessage: _errorMessage, ...rest } = message as MessageHead & { content?: unknown };
  delete (rest as { content?: unknown }).content;
  return rest;
}
