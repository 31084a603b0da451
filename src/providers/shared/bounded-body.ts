/**
 * Reading the start of a response body without trusting its length: an error body or a JSON
 * reply is read up to a cap and the rest is cancelled, so a server that sends a gigabyte (or
 * never stops) costs this process the cap, not the gigabyte.
 *
 * @internal
 * @module
 */

/** The first bytes of a body, and whether they are all of it. */
export interface BodyHead {
  chunks: Uint8Array[];
  bytes: number;
  /** True when the body ended within the head. */
  complete: boolean;
}

/**
 * Reads from `reader` until at least `minBytes` arrived or the body ended. A read that fails
 * ends the head early (`complete` false); the caller decides whether that matters.
 */
export async function readHead(reader: ReadableStreamDefaultReader<Uint8Array>, minBytes: number): Promise<BodyHead> {
  const head: BodyHead = { chunks: [], bytes: 0, complete: false };
  try {
    while (head.bytes < minBytes) {
      const { done, value } = await reader.read();
      if (done) {
        head.complete = true;
        break;
      }
      head.chunks.push(value);
      head.bytes += value.byteLength;
    }
  } catch {
    // What arrived before the failure is still worth showing.
  }
  return head;
}

/** The head's bytes as text, cut at `maxBytes` (a character cut in two becomes U+FFFD). */
export function headText(head: BodyHead, maxBytes = Infinity): string {
  const decoder = new TextDecoder();
  let text = "";
  let left = maxBytes;
  for (const chunk of head.chunks) {
    if (left <= 0) break;
    const part = chunk.byteLength > left ? chunk.subarray(0, left) : chunk;
    left -= part.byteLength;
    text += decoder.decode(part, { stream: true });
  }
  return text + decoder.decode();
}

/**
 * At most `maxBytes` of `body` as text; the rest is cancelled, never read.
 *
 * @example
 * ```ts
 * const text = await readBoundedText(response.body, 64 * 1024);
 * ```
 * @param body - The body (`null` reads as "").
 * @param maxBytes - The most bytes to read.
 * @return The text of the first `maxBytes` bytes.
 */
export async function readBoundedText(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<string> {
  if (!body) return "";
  const reader = body.getReader();
  const head = await readHead(reader, maxBytes);
  if (!head.complete) void reader.cancel().catch(() => undefined);
  return headText(head, maxBytes);
}

/**
 * A stream of the head's chunks, then the rest of `reader`: a body peeked at and then read
 * as if it had not been. Cancelling it cancels `reader`.
 */
export function replayHead(head: BodyHead, reader: ReadableStreamDefaultReader<Uint8Array>): ReadableStream<Uint8Array> {
  const queued = [...head.chunks];
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = queued.shift();
      if (next) return controller.enqueue(next);
      if (head.complete) return controller.close();
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
