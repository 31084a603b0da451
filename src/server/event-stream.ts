/**
 * A follower's entries as a server-sent event stream: `id:` the entry's id (what the follower
 * resumes from), `event:` `agent` or `state`, `data:` its JSON; a comment line as a heartbeat.
 *
 * The replay is read lazily, as the follower reads (a resume far behind costs the log's own
 * entries, not a copy). Live entries wait beside the stream's queue; a follower that leaves more
 * than `maxBufferBytes` of them unread is dropped — its stream ends with an error, and it resumes
 * from the last entry it read. One entry larger than the bound still passes to a reading follower.
 *
 * @module
 */
import { asyncScheduler, endWith, interval, map, merge, takeWhile, type Observable, type SchedulerLike, type Subscription } from "rxjs";


/** How a follower's stream is paced and bounded. */
export interface EventStreamOptions {
  readonly heartbeatMs: number;
  readonly maxBufferBytes: number;
  readonly scheduler?: SchedulerLike;
}

const encoder = new TextEncoder();
const HEARTBEAT: Uint8Array = encoder.encode(": heartbeat\n\n");

/** What a stream sends of an entry: its kind and serialized data (its id comes from `idOf`). */
export interface StreamedEntry {
  readonly kind: "event" | "state";
  readonly data: string;
}

/** One entry as SSE text. The data is JSON, which has no raw newline: one `data:` line. */
export function sseFrame(entry: StreamedEntry, id: string): string {
  return `id: ${id}\nevent: ${entry.kind === "event" ? "agent" : "state"}\ndata: ${entry.data}\n\n`;
}

/**
 * The body of a follower's response: the `head` (the replay), then the `live` entries, as SSE,
 * with heartbeats. `live` is subscribed at once, so nothing between the two is lost; cancelling
 * the body (the client went away) unsubscribes. A batch of live entries (an array: what a relay
 * read at once) is one chunk, held to the bound as one entry is.
 *
 * ```text
 * live:  -a--b--------c--|
 * body:  Ha--b--h--h--c--|   (H: the head, as read; h: a heartbeat every heartbeatMs; the end with live's)
 * ```
 */
export function eventStreamBody<T extends StreamedEntry>(head: readonly T[], live: Observable<T | readonly T[]>, idOf: (entry: T) => string, options: EventStreamOptions): ReadableStream<Uint8Array> {
  const frame = (entry: T | readonly T[]): Uint8Array => encoder.encode(isBatch(entry) ? entry.map((one) => sseFrame(one, idOf(one))).join("") : sseFrame(entry, idOf(entry)));
  const heartbeat = interval(options.heartbeatMs, options.scheduler ?? asyncScheduler).pipe(map(() => HEARTBEAT));
  // The heartbeats end with the live entries (the session closed): `undefined` marks that end.
  const frames = merge(live.pipe(map(frame), endWith<Uint8Array | undefined>(undefined)), heartbeat).pipe(takeWhile((bytes): bytes is Uint8Array => bytes !== undefined));
  let read = 0;
  const waiting: Uint8Array[] = [];
  let waitingBytes = 0;
  let ended = false;
  let stopped = false;
  let subscription: Subscription | undefined;

  // Moves what the stream's queue has room for: the head first, then the live frames in order.
  const flush = (controller: ReadableStreamDefaultController<Uint8Array>): void => {
    while (!stopped && (controller.desiredSize ?? 0) > 0) {
      if (read < head.length) controller.enqueue(frame(head[read++]!));
      else if (waiting.length > 0) {
        const bytes = waiting.shift()!;
        waitingBytes -= bytes.byteLength;
        controller.enqueue(bytes);
      } else break;
    }
    if (!stopped && ended && read === head.length && waiting.length === 0) {
      stopped = true;
      controller.close();
    }
  };

  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        subscription = frames.subscribe({
          next(bytes) {
            if (stopped) return;
            // Over the bound before this frame: the follower is not reading. Drop it.
            if (waitingBytes > options.maxBufferBytes) {
              stopped = true;
              subscription?.unsubscribe();
              controller.error(new Error("The follower read too slowly: its stream was ended to be resumed."));
              return;
            }
            waiting.push(bytes);
            waitingBytes += bytes.byteLength;
            flush(controller);
          },
          error(error: unknown) {
            if (stopped) return;
            stopped = true;
            controller.error(error);
          },
          complete() {
            ended = true;
            flush(controller);
          },
        });
        if (stopped) subscription.unsubscribe();
      },
      pull(controller) {
        flush(controller);
      },
      cancel() {
        stopped = true;
        subscription?.unsubscribe();
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: options.maxBufferBytes }),
  );
}

function isBatch<T extends StreamedEntry>(entry: T | readonly T[]): entry is readonly T[] {
  return Array.isArray(entry);
}
