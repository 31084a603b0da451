/**
 * Server-sent events from a web `ReadableStream` of bytes.
 *
 * Parsing is delegated to `eventsource-parser` (a small, dependency-free, spec-conformant
 * parser used by the Vercel AI SDK and others): it handles `\r\n`, `\r` and `\n` line ends
 * split across reads, multi-line `data:` fields, comments and `retry:`. UTF-8 characters split
 * across reads are reassembled by a streaming `TextDecoder`.
 *
 * @module
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";

export type { EventSourceMessage } from "eventsource-parser";

/**
 * Reads `body` and yields each complete event as soon as its terminating blank line arrives.
 * An event the stream ends in the middle of is dropped, as the SSE spec says. Stopping the
 * iteration early (`break`, `return`) cancels the body.
 *
 * @example
 * ```ts
 * const response = await fetch(url, { method: "POST", body, signal });
 * for await (const event of readServerSentEvents(response.body!)) {
 *   if (event.data === "[DONE]") break;
 *   console.log(JSON.parse(event.data));
 * }
 * ```
 * @param body - The response body.
 * @return The events, in order.
 */
export async function* readServerSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<EventSourceMessage, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => queue.push(event) });
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        parser.feed(decoder.decode());
      } else {
        parser.feed(decoder.decode(value, { stream: true }));
      }
      if (queue.length > 0) {
        const ready = queue;
        queue = [];
        yield* ready;
      }
      if (finished) return;
    }
  } finally {
    if (!finished) void reader.cancel().catch(() => undefined);
  }
}
