/**
 * Server-sent events from a web `ReadableStream` of bytes.
 *
 * Parsing is delegated to `eventsource-parser` (a small, dependency-free, spec-conformant
 * parser used by the Vercel AI SDK and others): it handles `\r\n`, `\r` and `\n` line ends
 * split across reads, multi-line `data:` fields, comments and `retry:`. UTF-8 characters split
 * across reads are reassembled by a streaming `TextDecoder`.
 *
 * Optional caps bound what one response can make this process hold: a line that never ends,
 * an event that never ends, a body that never ends. Each is checked once per read, in O(read).
 *
 * @module
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";

export type { EventSourceMessage } from "eventsource-parser";

/** Caps on what one event stream may make the reader buffer. Unset caps are not checked. */
export interface SseLimits {
  /** Bytes of one line (from the last line end), counted on the raw bytes. */
  maxLineBytes?: number;
  /** Characters one event buffers (its `data:` lines so far and the line being read). */
  maxEventBytes?: number;
  /** Raw bytes of the whole body. */
  maxResponseBytes?: number;
}

/** Thrown by {@link readServerSentEvents} when a cap of {@link SseLimits} is exceeded; the body is cancelled. */
export class SseLimitExceeded extends Error {
  constructor(
    readonly limit: keyof SseLimits,
    readonly max: number,
  ) {
    super(`The event stream exceeded ${limit} (${max})`);
    this.name = "SseLimitExceeded";
  }
}

const LF = 10;
const CR = 13;

/**
 * Reads `body` and yields each complete event as soon as its terminating blank line arrives.
 * An event the stream ends in the middle of is dropped, as the SSE spec says. Stopping the
 * iteration early (`break`, `return`) cancels the body; so does exceeding a cap, which throws
 * {@link SseLimitExceeded} after the events completed before it (a cap may be overrun by at
 * most the read that crossed it).
 *
 * @example
 * ```ts
 * const response = await fetch(url, { method: "POST", body, signal });
 * for await (const event of readServerSentEvents(response.body!, { maxLineBytes: 4 << 20 })) {
 *   if (event.data === "[DONE]") break;
 *   console.log(JSON.parse(event.data));
 * }
 * ```
 * @param body - The response body.
 * @param limits - Caps on one line, one event and the whole body.
 * @return The events, in order.
 */
export async function* readServerSentEvents(body: ReadableStream<Uint8Array>, limits: SseLimits = {}): AsyncGenerator<EventSourceMessage, void, undefined> {
  const { maxLineBytes = Infinity, maxResponseBytes = Infinity } = limits;
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let queue: EventSourceMessage[] = [];
  let exceeded: SseLimitExceeded | undefined;
  const parser = createParser({
    onEvent: (event) => queue.push(event),
    // The parser measures its own buffer (the pending line plus the event's data) per feed.
    onError: (error) => {
      if (error.type === "max-buffer-size-exceeded") exceeded ??= new SseLimitExceeded("maxEventBytes", limits.maxEventBytes!);
    },
    ...(limits.maxEventBytes !== undefined && Number.isFinite(limits.maxEventBytes) ? { maxBufferSize: limits.maxEventBytes } : {}),
  });
  let lineBytes = 0;
  let totalBytes = 0;
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        parser.feed(decoder.decode());
      } else {
        totalBytes += value.byteLength;
        // Only this read is scanned: the bytes after its last line end continue the open line.
        const lastEnd = lastLineEnd(value);
        lineBytes = lastEnd < 0 ? lineBytes + value.byteLength : value.byteLength - lastEnd - 1;
        if (totalBytes > maxResponseBytes) exceeded = new SseLimitExceeded("maxResponseBytes", maxResponseBytes);
        else if (lineBytes > maxLineBytes) exceeded = new SseLimitExceeded("maxLineBytes", maxLineBytes);
        else parser.feed(decoder.decode(value, { stream: true }));
      }
      if (queue.length > 0) {
        const ready = queue;
        queue = [];
        yield* ready;
      }
      if (exceeded) throw exceeded;
      if (finished) return;
    }
  } finally {
    if (!finished) void reader.cancel().catch(() => undefined);
  }
}

/** The index of the last `\n` or `\r` in `bytes`, or -1; scans only past the last `\n` for a `\r`. */
function lastLineEnd(bytes: Uint8Array): number {
  const lf = bytes.lastIndexOf(LF);
  if (lf < 0) return bytes.lastIndexOf(CR);
  for (let i = bytes.length - 1; i > lf; i--) if (bytes[i] === CR) return i;
  return lf;
}
