/**
 * A response labelled JSON where an event stream was requested: either a server that ignored
 * `stream: true` and sent one document, or an event stream under the wrong label. Only the
 * start is read to tell them apart, so a huge (or endless) reply is never buffered.
 *
 * @internal
 * @module
 */
import { headText, readHead, replayHead } from "../shared/bounded-body.js";
import { StreamFailure, truncate } from "../shared/stream-failure.js";

/** Bytes read to tell the two apart and to quote the reply's start. */
const PEEK_BYTES = 1024;
/** Characters of the reply quoted in the error. */
const SHOWN_CHARS = 300;

/**
 * The body as an event stream when it is one (read on from where the peek stopped, under the
 * same caps as any stream); otherwise throws the "non-streaming JSON reply" failure, quoting
 * the start of it, and cancels the rest.
 *
 * @example
 * ```ts
 * const events = /\bjson\b/i.test(type) ? await jsonOrMislabelledStream(response.body!, response.status, type) : response.body!;
 * ```
 */
export async function jsonOrMislabelledStream(body: ReadableStream<Uint8Array>, status: number, contentType: string): Promise<ReadableStream<Uint8Array>> {
  const reader = body.getReader();
  const head = await readHead(reader, PEEK_BYTES);
  const text = headText(head);
  if (/^\s*(data|event|id|retry)?:/.test(text)) return replayHead(head, reader);
  if (!head.complete) void reader.cancel().catch(() => undefined);
  throw jsonInsteadOfStream(status, contentType, text);
}

/**
 * A server that ignored `stream: true` answers with one JSON document: say so (with the start of
 * what it sent) instead of reading it as an event stream that "closed early".
 */
function jsonInsteadOfStream(status: number, contentType: string, text: string): StreamFailure {
  const shown = truncate(text, SHOWN_CHARS);
  return new StreamFailure(
    `HTTP ${status}: the server sent a non-streaming JSON reply (content-type ${contentType}) where a text/event-stream was requested; check that the endpoint supports "stream": true.${shown ? ` The reply began: ${shown}` : ""}`,
    { kind: "protocol", retryable: false },
  );
}
