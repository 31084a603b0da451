/**
 * Server-sent events read from a fetch response body, as an Observable: `id`, `event` and
 * `data` per message; comments (heartbeats) are left out. Read with `fetch`, not `EventSource`,
 * so the page can send its own headers and resume with `Last-Event-ID` itself.
 *
 * @module
 */
import { Observable } from "rxjs";

/** One server-sent event. */
export interface SseMessage {
  readonly id: string | undefined;
  readonly event: string;
  readonly data: string;
}

/**
 * The messages of `body`. Errors when one line grows past `maxLineBytes` (a server that never
 * ends a line cannot grow the page's memory without bound). Unsubscribing cancels the read.
 *
 * ```text
 * body:      -"id: 1\nevent: agent\ndata: {…}\n\n"-": heartbeat\n\n"-|
 * messages:  -m----------------------------------------------------|
 * ```
 */
export function sseMessages(body: ReadableStream<Uint8Array>, maxLineBytes: number): Observable<SseMessage> {
  return new Observable<SseMessage>((subscriber) => {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    let scanned = 0;
    let id: string | undefined;
    let event = "message";
    let data: string[] = [];
    let dataLength = 0;
    const line = (text: string): void => {
      if (text === "") {
        if (data.length > 0) subscriber.next({ id, event, data: data.join("\n") });
        event = "message";
        data = [];
        dataLength = 0;
        return;
      }
      if (text.startsWith(":")) return;
      const colon = text.indexOf(":");
      const field = colon < 0 ? text : text.slice(0, colon);
      const value = colon < 0 ? "" : text.slice(colon + (text[colon + 1] === " " ? 2 : 1));
      if (field === "id") id = value;
      else if (field === "event") event = value;
      else if (field === "data") {
        data.push(value);
        dataLength += value.length + 1;
        if (dataLength > maxLineBytes) throw new Error(`A server-sent event's data is longer than ${maxLineBytes} characters.`);
      }
    };
    const pump = async (): Promise<void> => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        // One pass over what is new; a line's text is cut out once.
        let start = 0;
        for (let i = scanned; i < buffer.length; i++) {
          const code = buffer.charCodeAt(i);
          if (code !== 10 && code !== 13) continue;
          // A CR that ends the chunk may be the first half of a CRLF: wait for the next chunk.
          if (code === 13 && i === buffer.length - 1) break;
          line(buffer.slice(start, i));
          if (code === 13 && buffer.charCodeAt(i + 1) === 10) i++;
          start = i + 1;
          if (subscriber.closed) return;
        }
        buffer = buffer.slice(start);
        scanned = buffer.endsWith("\r") ? buffer.length - 1 : buffer.length;
        if (buffer.length > maxLineBytes) throw new Error(`A server-sent event line is longer than ${maxLineBytes} characters.`);
      }
      subscriber.complete();
    };
    pump().catch((error: unknown) => subscriber.error(error));
    return () => void reader.cancel().catch(() => undefined);
  });
}
