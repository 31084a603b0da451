/**
 * An agent's events as they travel from a session server to the pages that follow it. Every
 * `message_update` carries the whole message streamed so far, so sending events as they are
 * would make a streamed answer quadratic in its length: the update travels as the proxy's wire
 * event (`partial` stripped), and the follower rebuilds the partial from the deltas, one decoder
 * per streamed assistant message. Every other event travels as it is.
 *
 * @module
 */
import type { AssistantMessage } from "../model/messages.js";
import type { AgentEvent, AgentMessage } from "../model/types.js";
import { ProxyEventDecoder, ProxyEventEncoder, type ProxyEvent } from "../providers/proxy/proxy-events.js";

/** One event on the wire: a `message_update` with the delta only, or any other event as it is. */
export type WireEvent = Exclude<AgentEvent, { type: "message_update" }> | { readonly type: "message_update"; readonly event: ProxyEvent };

function isAssistant(message: AgentMessage): message is AssistantMessage {
  return (message as { role?: string }).role === "assistant";
}

/**
 * The server's side: one per event stream, in the order the agent emits.
 *
 * @example
 * ```ts
 * const encoder = new WireEventEncoder();
 * agent.events$.subscribe((event) => send(JSON.stringify(encoder.encode(event))));
 * ```
 */
export class WireEventEncoder {
  private encoder = new ProxyEventEncoder();

  /** The wire form of `event`. */
  encode(event: AgentEvent): WireEvent {
    if (event.type === "message_start" && isAssistant(event.message)) this.encoder = new ProxyEventEncoder();
    if (event.type !== "message_update") return event;
    return { type: "message_update", event: this.encoder.encode(event.assistantMessageEvent) };
  }
}

/**
 * The follower's side: the agent's events again, `message_update` with its rebuilt partial. A
 * decoder starts over with every assistant `message_start`; an update before one fails.
 *
 * @example
 * ```ts
 * const decoder = new WireEventDecoder();
 * const event = decoder.decode(JSON.parse(data) as WireEvent);
 * ```
 */
export class WireEventDecoder {
  private decoder: ProxyEventDecoder | undefined;

  /** The event `wire` stands for. Throws on an update that has no assistant message to belong to. */
  decode(wire: WireEvent): AgentEvent {
    if (wire.type === "message_start" && isAssistant(wire.message)) {
      const { model, api, provider, timestamp } = wire.message;
      this.decoder = new ProxyEventDecoder({ id: model, api, provider }, timestamp);
      return wire;
    }
    if (wire.type === "message_end") {
      this.decoder = undefined;
      return wire;
    }
    if (wire.type !== "message_update") return wire;
    if (!this.decoder) throw new Error("A message_update arrived without an assistant message_start before it.");
    const assistantMessageEvent = this.decoder.decode(wire.event);
    return { type: "message_update", message: this.decoder.partial, assistantMessageEvent };
  }
}
