/**
 * The provider boundary (SPEC M3, M4, L5): a `StreamFn` result becomes `message_start`,
 * `message_update` (one growing partial, replaced, never copied) and `message_end`. Whatever
 * the provider does — throw, reject, error, complete without `done`, break the protocol, ignore
 * an abort — the response ends in exactly one final assistant message.
 *
 * @module
 */
import { from, Observable, type ObservableInput } from "rxjs";
import { describeError, failedAssistantMessage } from "./assistant-message.js";
import type { AssistantMessage, AssistantMessageEvent, Message, Model, StreamFn, StreamOptions } from "./messages.js";
import { isThenable } from "./internal/maybe-async.js";
import type { AgentEvent } from "./types.js";

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
 */
export function streamAssistantResponse(request: AssistantRequest): Observable<AgentEvent> {
  return new Observable<AgentEvent>((subscriber) => {
    const { model, options, now, onUpdate } = request;
    const { signal } = options;
    let partial: AssistantMessage | undefined;
    let finished = false;
    let upstream: { unsubscribe(): void } | undefined;

    const end = (message: AssistantMessage): void => {
      if (finished) return;
      finished = true;
      signal.removeEventListener("abort", onAbort);
      upstream?.unsubscribe();
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
        case "done":
          if (!isAssistantMessage(event.message)) return fail(`Provider protocol violation: "done" carried no assistant message.`);
          return end(event.message);
        case "error": {
          if (!isAssistantMessage(event.error)) return fail(`Provider reported an error without a final message.`);
          const message = event.error;
          const stopReason = message.stopReason === "aborted" || event.reason === "aborted" ? "aborted" : "error";
          return end(message.stopReason === stopReason && message.errorMessage ? message : { ...message, stopReason, errorMessage: message.errorMessage || "Provider reported an error" });
        }
        default:
          // Unknown event types are extensions we do not understand; they change nothing.
          return;
      }
    };

    if (signal.aborted) {
      onAbort();
      return undefined;
    }
    signal.addEventListener("abort", onAbort);

    const subscribeTo = (input: ObservableInput<AssistantMessageEvent>): void => {
      let events: Observable<AssistantMessageEvent>;
      try {
        events = isPlainAsyncIterable(input) ? fromAsyncIterable(input) : from(input);
      } catch {
        return fail(`The stream function returned ${describeValue(input)}, not an Observable, async iterable, array or promise of provider events.`);
      }
      upstream = events.subscribe({
        next: onEvent,
        error: (error) => fail(`Provider stream failed: ${describeError(error)}`),
        complete: () => fail(`Provider stream ended without a final "done" or "error" event.`),
      });
      if (finished) upstream.unsubscribe();
    };

    let result: unknown;
    try {
      result = request.streamFn(model, { messages: request.messages }, options);
    } catch (error) {
      fail(`The stream function threw: ${describeError(error)}`);
      return undefined;
    }
    if (isThenable(result) && !(Symbol.asyncIterator in (result as object))) {
      result.then(
        (input) => {
          if (!finished) subscribeTo(input as ObservableInput<AssistantMessageEvent>);
        },
        (error) => fail(`The stream function rejected: ${describeError(error)}`),
      );
    } else {
      subscribeTo(result as ObservableInput<AssistantMessageEvent>);
    }
    return () => {
      finished = true;
      signal.removeEventListener("abort", onAbort);
      upstream?.unsubscribe();
    };
  });
}

/** An async iterable that rxjs would not read another way first (it prefers interop Observables, arrays, promises). */
function isPlainAsyncIterable(value: unknown): value is AsyncIterable<AssistantMessageEvent> {
  return (
    value !== null &&
    typeof value === "object" &&
    typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] === "function" &&
    typeof (value as Record<PropertyKey, unknown>)[(Symbol as { observable?: symbol }).observable ?? "@@observable"] !== "function" &&
    typeof (value as PromiseLike<unknown>).then !== "function" &&
    !Array.isArray(value)
  );
}

/**
 * `from(asyncIterable)` with the same semantics (next, stop after a closed subscriber, complete,
 * error), read with native `for await`: rxjs 7 ships down-levelled generator helpers that cost
 * more per event than the rest of the loop (issue 6 benchmarks: pi-ai's stream, 100 000 deltas).
 */
function fromAsyncIterable<T>(iterable: AsyncIterable<T>): Observable<T> {
  return new Observable<T>((subscriber) => {
    (async () => {
      for await (const value of iterable) {
        subscriber.next(value);
        if (subscriber.closed) return;
      }
      subscriber.complete();
    })().catch((error: unknown) => subscriber.error(error));
  });
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  return `a ${typeof value}`;
}
