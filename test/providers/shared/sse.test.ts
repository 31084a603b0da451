/**
 * readServerSentEvents (SSE parsed incrementally with eventsource-parser): every byte
 * boundary, CRLF, multi-byte characters, and cancellation of the body.
 */
import { describe, expect, it } from "vitest";
import { readServerSentEvents, type EventSourceMessage } from "../../../src/providers/shared/sse.js";
import { fixture } from "../support/http-server.js";

function streamOf(pieces: Uint8Array[], onCancel?: () => void): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < pieces.length) controller.enqueue(pieces[i++]!);
      else controller.close();
    },
    cancel() {
      onCancel?.();
    },
  });
}

async function readAll(body: ReadableStream<Uint8Array>): Promise<EventSourceMessage[]> {
  const out: EventSourceMessage[] = [];
  for await (const event of readServerSentEvents(body)) out.push(event);
  return out;
}

const bytes = (text: string) => new TextEncoder().encode(text);

describe("readServerSentEvents", () => {
  it("a recorded CRLF stream read one byte at a time gives the same events as read whole", async () => {
    const recorded = fixture("text-crlf.sse");
    const whole = await readAll(streamOf([recorded]));
    const byByte = await readAll(streamOf([...recorded].map((b) => Uint8Array.of(b))));
    expect(whole).toHaveLength(10);
    expect(byByte).toEqual(whole);
    expect(whole[whole.length - 1]!.data).toBe("[DONE]");
    expect(JSON.parse(whole[5]!.data).choices[0].delta.content).toBe("café 🌍");
  });

  it("every split point of an LF stream (two pieces) gives the same events", async () => {
    const recorded = fixture("reasoning.sse");
    const whole = await readAll(streamOf([recorded]));
    for (let cut = 1; cut < recorded.length; cut += 7) {
      expect(await readAll(streamOf([recorded.subarray(0, cut), recorded.subarray(cut)]))).toEqual(whole);
    }
  });

  it("comments, event names, multi-line data; an unterminated last event is dropped", async () => {
    const events = await readAll(streamOf([bytes(": keep-alive\n\nevent: ping\ndata: a\ndata: b\n\ndata: {\"x\":1}\n\ndata: cut off")]));
    expect(events).toEqual([
      { event: "ping", data: "a\nb", id: undefined },
      { event: undefined, data: '{"x":1}', id: undefined },
    ]);
  });

  it("stopping the iteration early cancels the body", async () => {
    let cancelled = false;
    const body = streamOf([bytes("data: 1\n\n"), bytes("data: 2\n\n"), bytes("data: 3\n\n")], () => (cancelled = true));
    for await (const event of readServerSentEvents(body)) {
      if (event.data === "1") break;
    }
    expect(cancelled).toBe(true);
  });
});
