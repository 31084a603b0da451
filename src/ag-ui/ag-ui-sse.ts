/**
 * AG-UI events as a server-sent event stream, the encoding `@ag-ui/client` reads by default:
 * one `data:` line of JSON per event, a blank line after it.
 *
 * @module
 */
import type { Observable, Subscription } from "rxjs";
import type { AgUiEvent } from "./ag-ui-types.js";

const encoder = new TextEncoder();

/**
 * One event as SSE text. JSON has no raw line break, so one `data:` line holds it all.
 *
 * @example
 * ```ts
 * encodeAgUiEvent({ type: "TEXT_MESSAGE_END", messageId: "m1" }); // 'data: {"type":"TEXT_MESSAGE_END","messageId":"m1"}\n\n'
 * ```
 */
export function encodeAgUiEvent(event: AgUiEvent): string {
  return `data: ${JSON.stringify(event)}\n\n`;
}

/**
 * A response body that streams `events` as SSE. Making it subscribes; cancelling it, or `signal`
 * firing (the client went away), unsubscribes. An error of `events` ends the body with that error: map failures to
 * events first (`toAgUiEvents` never errors).
 *
 * ```text
 * events: -a--b--|
 * body:   -a--b--|   (each as "data: {…}\n\n")
 * ```
 *
 * @example
 * ```ts
 * return new Response(agUiEventStream(events$), { headers: { "content-type": "text/event-stream" } });
 * ```
 */
export function agUiEventStream(events: Observable<AgUiEvent>, signal?: AbortSignal): ReadableStream<Uint8Array> {
  let subscription: Subscription | undefined;
  let onAbort: (() => void) | undefined;
  const stop = () => {
    if (onAbort) signal?.removeEventListener("abort", onAbort);
    subscription?.unsubscribe();
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      // Some runtimes only fire the request's signal when the client leaves, and never cancel the body.
      if (signal) {
        onAbort = () => {
          stop();
          try {
            controller.close();
          } catch {
            // Already closed or cancelled: nothing left to end.
          }
        };
        if (signal.aborted) return onAbort();
        signal.addEventListener("abort", onAbort, { once: true });
      }
      subscription = events.subscribe({
        next: (event) => controller.enqueue(encoder.encode(encodeAgUiEvent(event))),
        error: (error: unknown) => {
          stop();
          controller.error(error);
        },
        complete: () => {
          stop();
          controller.close();
        },
      });
    },
    cancel() {
      stop();
    },
  });
}
