/**
 * The provider boundary (SPEC M3, M4, L5): a `StreamFn` result becomes `message_start`,
 * `message_update` (one growing partial, replaced, never copied) and `message_end`. Whatever
 * the provider does — throw, reject, error, complete without `done`, break the protocol, ignore
 * an abort — the response ends in exactly one final assistant message.
 *
 * @module
 */
import { Observable, type Subscriber, type TeardownLogic, type Unsubscribable } from "rxjs";
import { normalizedFailureMessage } from "../model/assistant-message.js";
import { carryProviderFailure } from "../model/provider-failure.js";
import { redactErrorMessage } from "../model/redact-secrets.js";
import { boundToolCalls } from "../model/tool-call-bounds.js";
import type { AssistantMessage, AssistantMessageEvent, Message, Model, StreamFn, StreamOptions } from "../model/messages.js";
import type { AgentEvent } from "../model/types.js";
import { observeStreamFn, type StreamFnFailure, type StreamFnObserver } from "./stream-fn-call.js";
import { WaitGate } from "../engine/wait-gate.js";

/** One provider request. */
export interface AssistantRequest<T = never> {
  model: Model;
  messages: Message[];
  options: StreamOptions & { signal: AbortSignal };
  streamFn: StreamFn;
  now: () => number;
  /**
   * Called with each event before it goes out; the next event waits for what it returns (the
   * `Agent`'s listeners, SPEC L11). The response does the waiting itself (the per-delta path):
   * no operator and no inner subscription per event.
   */
  wait?: (event: AgentEvent) => Observable<unknown> | undefined;
  /**
   * The last value, after `message_end` (once it was waited for), made from the final message:
   * the loop's next step, so the response needs no operator after it to hand its message on
   * (as the tool batch's `finish` does).
   */
  finish?: (message: AssistantMessage) => T;
}

/** The errorMessage of a response cut off by an abort the provider did not answer itself. */
export const ABORTED_RESPONSE_TEXT = "Request was aborted";

function isAssistantMessage(value: unknown): value is AssistantMessage {
  return value !== null && typeof value === "object" && (value as AssistantMessage).role === "assistant" && Array.isArray((value as AssistantMessage).content);
}

/**
 * Calls the provider and turns its events into the assistant message's lifecycle events. The
 * last event is always `message_end` with the final message. The provider is unsubscribed on
 * the final event, on abort, and when the result is unsubscribed. Never errors, unless the
 * request's `wait` does (a listener's failure: the run's failure recovery takes over).
 *
 * ```text
 * provider:  -s-t-t-d|
 * result:    -S-U-U-(E|)     (message_start, message_update ×2, message_end)
 * provider:  -s-t-#
 * result:    -S-U-(E|)       (E: the partial, stopReason "error", errorMessage: the provider error's own message)
 * ```
 *
 * @example
 * ```ts
 * streamAssistantResponse({ model, messages, options: { signal }, streamFn, now: Date.now }).subscribe((e) => console.log(e.type));
 * ```
 */
export function streamAssistantResponse<T = never>(request: AssistantRequest<T>): Observable<AgentEvent | T> {
  return new Observable<AgentEvent | T>((subscriber) => new AssistantResponse(request, subscriber).start());
}

/** A provider event that updates the message being streamed. */
type ContentEvent = Exclude<Extract<AssistantMessageEvent, { partial: unknown }>, { type: "start" }>;

/**
 * Whether `event` updates the message being streamed (`null` and unknown types do not). A switch,
 * deltas first, not a set: nearly every event is a delta, and comparing its type with a constant
 * costs less than a set's hash lookup, on the path every delta takes.
 */
function isContentEvent(event: AssistantMessageEvent | null | undefined): event is ContentEvent {
  switch (event?.type) {
    case "text_delta":
    case "thinking_delta":
    case "toolcall_delta":
    case "text_start":
    case "text_end":
    case "thinking_start":
    case "thinking_end":
    case "toolcall_start":
    case "toolcall_end":
      return true;
  }
  return false;
}

/** One response being assembled: the provider's events in, the message's lifecycle events out. */
class AssistantResponse<T> implements StreamFnObserver {
  private partial: AssistantMessage | undefined;
  /** The final message, once the response ended. */
  private finalMessage: AssistantMessage | undefined;
  private finished = false;
  private provider: Unsubscribable | undefined;
  private readonly signal: AbortSignal;
  /** The events in order, each after the previous one's wait: only when something waits on them. */
  private readonly gate: WaitGate<AgentEvent> | undefined;

  constructor(
    private readonly request: AssistantRequest<T>,
    private readonly subscriber: Subscriber<AgentEvent | T>,
  ) {
    this.signal = request.options.signal;
    const wait = request.wait;
    if (wait) this.gate = new WaitGate(wait, subscriber, (event) => subscriber.next(event), () => this.complete());
  }

  /** The response is over: its `finish` value, if any, then completion. */
  private complete(): void {
    const finish = this.request.finish;
    if (finish) this.subscriber.next(finish(this.finalMessage!));
    this.subscriber.complete();
  }

  /** An event out, through the gate when something waits on events. */
  private emit(event: AgentEvent): void {
    if (this.gate) this.gate.push(event);
    else this.subscriber.next(event);
  }

  /** Calls the provider, unless the signal already fired. Returns the teardown. */
  start(): TeardownLogic {
    const { request, signal } = this;
    if (signal.aborted) {
      this.onAbort();
      return undefined;
    }
    signal.addEventListener("abort", this.onAbort);
    const provider = (this.provider = observeStreamFn(request.streamFn, request.model, { messages: request.messages }, request.options, this, this.subscriber));
    // Ended while the provider was called (a protocol violation, a synchronous abort): `end` could
    // not stop it yet, and a held event keeps the subscriber open.
    if (this.finished) provider.unsubscribe();
    return () => {
      signal.removeEventListener("abort", this.onAbort);
      // Also stops a provider whose promise has not resolved yet: it is never subscribed.
      provider.unsubscribe();
    };
  }

  /**
   * Every provider event before the final one. A content event is one `message_update` with the
   * partial (replaced, never copied: SPEC L5). Unknown event types are extensions we do not
   * understand; they change nothing.
   */
  event(event: AssistantMessageEvent): void {
    // A provider called synchronously goes on after the response ended, until `start` stops it.
    if (this.finished) return;
    if (!isContentEvent(event)) {
      if (event?.type === "start") this.started(event);
      return;
    }
    // Inline, not a method of its own: this is the per-delta path. The rare cases are methods of
    // their own, so it stays small enough for V8 to inline what it calls.
    let partial = this.partial;
    if (!partial) return this.beforeStart(event);
    if (isAssistantMessage(event.partial)) partial = this.partial = event.partial;
    const update: AgentEvent = { type: "message_update", message: partial, assistantMessageEvent: event };
    if (this.gate) this.gate.push(update);
    else this.subscriber.next(update);
  }

  /** The provider's `start`: the partial message from here on. */
  private started(event: Extract<AssistantMessageEvent, { type: "start" }>): void {
    if (this.partial) return this.fail(`Provider protocol violation: a second "start" event arrived.`);
    if (!isAssistantMessage(event.partial)) return this.fail(`Provider protocol violation: "start" carried no assistant message.`);
    this.partial = event.partial;
    this.emit({ type: "message_start", message: this.partial });
  }

  /** A content event before `start`: the provider broke the protocol. */
  private beforeStart(event: AssistantMessageEvent): void {
    this.fail(`Provider protocol violation: "${event.type}" arrived before "start".`);
  }

  /** The provider's `done` or `error` event (`observeStreamFn` calls this for no other type). */
  final(event: AssistantMessageEvent): void {
    if (event.type === "done") {
      if (!isAssistantMessage(event.message)) return this.fail(`Provider protocol violation: "done" carried no assistant message.`);
      return this.end(event.message);
    }
    const { error: message, reason } = event as Extract<AssistantMessageEvent, { type: "error" }>;
    if (!isAssistantMessage(message)) return this.fail(`Provider reported an error without a final message.`);
    const stopReason = message.stopReason === "aborted" || reason === "aborted" ? "aborted" : "error";
    this.end(message.stopReason === stopReason && message.errorMessage ? message : { ...message, stopReason, errorMessage: message.errorMessage || "Provider reported an error" });
  }

  /** The call failed (threw, rejected, errored, ended without a final event). */
  failure(failure: StreamFnFailure): void {
    this.fail(failure.message);
  }

  /** An abort the provider did not answer itself ends the response with what streamed so far. */
  private readonly onAbort = (): void => {
    this.end(normalizedFailureMessage(this.request.model, ABORTED_RESPONSE_TEXT, "aborted", this.request.now(), this.partial));
  };

  private fail(errorMessage: string): void {
    const { request, signal } = this;
    this.end(normalizedFailureMessage(request.model, errorMessage, signal.aborted ? "aborted" : "error", request.now(), this.partial));
  }

  private end(final: AssistantMessage): void {
    if (this.finished) return;
    this.finished = true;
    // Before anything clones, sends or journals the message: over-deep arguments would overflow
    // them all, and an upstream may have echoed the key into the error text.
    const message = carryProviderFailure(final, redactErrorMessage(boundToolCalls(final), [this.request.options.apiKey]));
    this.signal.removeEventListener("abort", this.onAbort);
    this.provider?.unsubscribe();
    if (!this.partial) this.emit({ type: "message_start", message });
    this.emit({ type: "message_end", message });
    this.finalMessage = message;
    if (this.gate) this.gate.end();
    else this.complete();
  }
}
