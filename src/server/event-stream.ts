/**
 * A follower's entries as a server-sent event stream: `id:` the entry's id (what the follower
 * resumes from), `event:` `agent` or `state`, `data:` its JSON; a comment line as a heartbeat.
 * A follower that does not read is never buffered without bound: past `maxBufferBytes` unread,
 * its stream is ended with an error (it reconnects, and resumes from the last id it read).
 *
 * @module
 */
import { asyncScheduler, endWith, interval, map, merge, Subscription, takeWhile, type Observable, type SchedulerLike } from "rxjs";
import type { LoggedEvent } from "./event-log.js";

/** How a follower's stream is paced and bounded. */
export interface EventStreamOptions {
  readonly heartbeatMs: number;
  readonly maxBufferBytes: number;
  readonly scheduler?: SchedulerLike;
}

const encoder = new TextEncoder();

/** One entry as SSE text. The data is JSON, which has no raw newline: one `data:` line. */
export function sseFrame(entry: LoggedEvent, id: string): string {
  return `id: ${id}\nevent: ${entry.kind === "event" ? "agent" : "state"}\ndata: ${entry.data}\n\n`;
}

/**
 * The body of a follower's response: `entries` as SSE, with heartbeats. Cancelling the body
 * (the client went away) unsubscribes from `entries`.
 *
 * ```text
 * entries:  -a--b--------c--|
 * body:     -a--b--h--h--c--|   (h: a heartbeat every heartbeatMs, entries or not; the end with the entries')
 * ```
 */
export function eventStreamBody(entries: Observable<LoggedEvent>, idOf: (n: number) => string, options: EventStreamOptions): ReadableStream<Uint8Array> {
  const heartbeat = interval(options.heartbeatMs, options.scheduler ?? asyncScheduler).pipe(map(() => ": heartbeat\n\n"));
  // The heartbeats end with the entries (the session closed): `undefined` marks that end.
  const text = merge(entries.pipe(map((entry) => sseFrame(entry, idOf(entry.n))), endWith(undefined)), heartbeat).pipe(takeWhile((frame): frame is string => frame !== undefined));
  let unsubscribe: (() => void) | undefined;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        // Made first: the replay arrives synchronously, inside `subscribe`, and may overflow.
        const subscription = new Subscription();
        subscription.add(
          text.subscribe({
            next(frame) {
              controller.enqueue(encoder.encode(frame));
              // Unread past the bound: end this stream; the follower resumes from what it read.
              if ((controller.desiredSize ?? 0) < 0) {
                subscription.unsubscribe();
                controller.error(new Error("The follower read too slowly: its stream was ended to be resumed."));
              }
            },
            error(error: unknown) {
              controller.error(error);
            },
            complete() {
              controller.close();
            },
          }),
        );
        unsubscribe = () => subscription.unsubscribe();
      },
      cancel() {
        unsubscribe?.();
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: options.maxBufferBytes }),
  );
}
