/**
 * Server-sent events read from a fetch response body, as an Observable: `id`, `event` and
 * `data` per message; comments (heartbeats) are left out. Read with `fetch`, not `EventSource`,
 * so the page can send its own headers and resume with `Last-Event-ID` itself.
 *
 * @module
 */
import { catchError, map, Observable, throwError } from "rxjs";
import { readServerSentEvents, SseLimitExceeded } from "../providers/shared/sse.js";
import { fromAsyncIterable } from "../rx/from-async-iterable.js";

/** One server-sent event. */
export interface SseMessage {
  readonly id: string | undefined;
  readonly event: string;
  readonly data: string;
}

/** The remote agent's words for a cap the reader crossed. */
function limitError(error: unknown, max: number): unknown {
  if (!(error instanceof SseLimitExceeded)) return error;
  return new Error(error.limit === "maxLineBytes" ? `A server-sent event line is longer than ${max} characters.` : `A server-sent event's data is longer than ${max} characters.`);
}

/**
 * The messages of `body`, read by the providers' event-stream reader (`readServerSentEvents`,
 * on `eventsource-parser`). Errors when one line, or one message's data, grows past
 * `maxLineBytes` (a server that never ends a line cannot grow the page's memory without bound).
 * `onBytes` hears of every chunk read, comments included (a heartbeat says the link is alive).
 * Unsubscribing cancels the body, even while a read waits.
 *
 * ```text
 * body:      -"id: 1\nevent: agent\ndata: {…}\n\n"-": heartbeat\n\n"-|
 * messages:  -m----------------------------------------------------|
 * ```
 */
export function sseMessages(body: ReadableStream<Uint8Array>, maxLineBytes: number, onBytes?: () => void): Observable<SseMessage> {
  return new Observable<SseMessage>((subscriber) => {
    // Piped through a stream of our own, so unsubscribing can cancel the body while the reader
    // holds it; it tells `onBytes` of every chunk, a heartbeat's too (the parser leaves those out).
    const stop = new AbortController();
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        onBytes?.();
        controller.enqueue(chunk);
      },
    });
    body.pipeTo(writable, { signal: stop.signal }).catch(() => undefined);
    const reading = fromAsyncIterable(readServerSentEvents(readable, { maxLineBytes, maxEventBytes: maxLineBytes }))
      .pipe(
        map((message): SseMessage => {
          // The parser bounds what it buffers per read; a whole message's data is bounded here.
          if (message.data.length > maxLineBytes) throw new SseLimitExceeded("maxEventBytes", maxLineBytes);
          return { id: message.id, event: message.event ?? "message", data: message.data };
        }),
        catchError((error: unknown) => throwError(() => limitError(error, maxLineBytes))),
      )
      .subscribe(subscriber);
    return () => {
      reading.unsubscribe();
      stop.abort();
    };
  });
}
