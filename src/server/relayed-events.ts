/**
 * The event stream of a session another instance hosts: its entries as the relay reads them,
 * with the hosting instance's ids, so a follower moving between instances resumes without a gap
 * or a repeat. The relay's first batch (the replay) and each later one pass as one chunk each,
 * held to the follower's buffer bound as one entry is.
 *
 * @module
 */
import { catchError, EMPTY, filter, type Observable, takeUntil } from "rxjs";
import { eventStreamBody, type EventStreamOptions } from "./event-stream.js";
import type { RelayEntry, SessionRelay } from "./session-relay.js";

/**
 * The `text/event-stream` body of session `sessionId` read from `relay`, for a follower whose
 * last entry was `lastId`. Cancelling it (the follower left) unsubscribes from the relay; so does
 * `closed` (the server closes: the follower resumes on another instance). A relay that fails
 * (the database gone, a gap) is reported to `onError` and ends the stream cleanly: the follower
 * resumes from its last entry.
 *
 * @example
 * ```ts
 * const body = relayedEventStream(relay, "chat-1", request.headers.get("last-event-id"), settings, closing, report);
 * return new Response(body, { headers: { "content-type": "text/event-stream" } });
 * ```
 */
export function relayedEventStream(relay: SessionRelay, sessionId: string, lastId: string | null, options: EventStreamOptions, closed: Observable<unknown>, onError: (error: unknown, sessionId: string) => void): ReadableStream<Uint8Array> {
  const batches = relay.follow(sessionId, lastId).pipe(
    filter((batch) => batch.length > 0),
    takeUntil(closed),
    catchError((error: unknown) => {
      onError(error, sessionId);
      return EMPTY;
    }),
  );
  return eventStreamBody<RelayEntry>([], batches, (entry) => entry.id, options);
}
