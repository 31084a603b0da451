/**
 * The provider boundary (SPEC M3, M4, L5): a `StreamFn` result becomes `message_start`,
 * `message_update` (one growing partial, replaced, never copied) and `message_end`. Whatever
 * the provider does — throw, reject, error, complete without `done`, break the protocol, ignore
 * an abort — the response ends in exactly one final assistant message.
 *
 * @module
 */
import { Observable, type Unsubscribable } from "rxjs";
import { failedAssistantMessage } from "../model/assistant-message.js";
import type { AssistantMessage, AssistantMessageEvent, Message, Model, StreamFn, StreamOptions } from "../model/messages.js";
import type { AgentEvent } from "../model/types.js";
import { observeStreamFn } from "./stream-fn-call.js";

/** One provider request. */
export interface AssistantRequest {
  model: Model;
  messages: Message[];
  options: StreamOptions & { signal: AbortSignal };
  streamFn: StreamFn;
  now: () => number;
  /**
   * Where `message_update` events go instead of the returned Observable: the loop's short path
   * to its subscriber when nothing waits on events (start and end still come through here).
   */
  onUpdate?: (event: AgentEvent) => void;
}

/** The errorMessage of a response cut off by an abort the provider did not answer itself. */
export const ABORTED_RESPONSE_TEXT = "Request was aborted";

function isAssistantMessage(value: unknown): value is AssistantMessage {
  return value !== null && typeof value === "object" && (value as AssistantMessage).role === "assistant" && Array.isArray((value as AssistantMessage).content);
}

/**
 * Calls the provider and turns its events into the assistant message's lifecycle events. The
 * last event is always `message_end` with the final message. The provider is unsubscribed on
 * the final event, on abort, and when the result is unsubscribed. Never errors.
 *
 * ```text
 * provider:  -s-t-t-d|
 * result:    -S-U-U-(E|)     (message_start, message_update ×2, message_end)
 * provider:  -s-t-#
 * result:    -S-U-(E|)       (E: the partial, stopReason "error", errorMessage "Provider stream failed: …")
 * ```
 *
 * @example
 * ```ts
 * streamAssistantResponse({ model, messages, options: { signal }, streamFn, now: Date.now }).subscribe((e) => console.log(e.type));
 * ```
 */
export function streamAssistantResponse(request: AssistantRequest): Observable<AgentEvent> {
  return new Observable<AgentEvent>((subscriber) => {
    const { model, options, now, onUpdate } = request;
    const { signal } = options;
    let partial: AssistantMessage | undefined;
    let finished = false;
    let provider: Unsubscribable | undefined;

    const end = (message: AssistantMessage): void => {
      if (finished) return;
      finished = true;
      signal.removeEventListener("abort", onAbort);
      provider?.unsubscribe();
      if (!partial) subscriber.next({ type: "message_start", message });
      subscriber.next({ type: "message_end", message });
      subscriber.complete();
    };
    // Checked before building the message: a synchronous provider still completes after `done`.
    const fail = (errorMessage: string): void => {
      if (!finished) end(failedAssistantMessage(model, errorMessage, signal.aborted ? "aborted" : "error", now(), partial));
    };
    function onAbort(): void {
      end(failedAssistantMessage(model, ABORTED_RESPONSE_TEXT, "aborted", now(), partial));
    }

    const onEvent = (event: AssistantMessageEvent): void => {
      if (finished) return;
      switch (event?.type) {
        case "start":
          if (partial) return fail(`Provider protocol violation: a second "start" event arrived.`);
          if (!isAssistantMessage(event.partial)) return fail(`Provider protocol violation: "start" carried no assistant message.`);
          partial = event.partial;
          subscriber.next({ type: "message_start", message: partial });
          return;
        case "text_start":
        case "text_delta":
        case "text_end":
        case "thinking_start":
        case "thinking_delta":
        case "thinking_end":
        case "toolcall_start":
        case "toolcall_delta":
        case "toolcall_end":
          if (!partial) return fail(`Provider protocol violation: "${event.type}" arrived before "start".`);
          // pi-ai providers mutate one message in place: the same object needs no re-check.
          if (event.partial !== partial && isAssistantMessage(event.partial)) partial = event.partial;
          if (onUpdate) onUpdate({ type: "message_update", message: partial, assistantMessageEvent: event });
          else subscriber.next({ type: "message_update", message: partial, assistantMessageEvent: event });
          return;
        default:
          // Unknown event types are extensions we do not understand; they change nothing.
          return;
      }
    };
    const onFinal = (event: AssistantMessageEvent): void => {
      if (event.type === "done") {
        if (!isAssistantMessage(event.message)) return fail(`Provider protocol violation: "done" carried no assistant message.`);
        return end(event.message);
      }
      if (event.type !== "error") return;
      if (!isAssistantMessage(event.error)) return fail(`Provider reported an error without a final message.`);
      const message = event.error;
      const stopReason = message.stopReason === "aborted" || event.reason === "aborted" ? "aborted" : "error";
      end(message.stopReason === stopReason && message.errorMessage ? message : { ...message, stopReason, errorMessage: message.errorMessage || "Provider reported an error" });
    };

    if (signal.aborted) {
      onAbort();
      return undefined;
    }
    signal.addEventListener("abort", onAbort);
    provider = observeStreamFn(request.streamFn, model, { messages: request.messages }, options, {
      event: onEvent,
      final: onFinal,
      failure: (failure) => fail(failure.message),
    });
    if (finished) provider.unsubscribe();
    return () => {
      finished = true;
      signal.removeEventListener("abort", onAbort);
      provider?.unsubscribe();
    };
  });
}
