/**
 * readServerSentEvents (SSE parsed incrementally with eventsource-parser): every byte
 * boundary, CRLF, multi-byte characters, and cancellation of the body.
 */
import { describe, expect, it } from "vitest";
import { readServerSentEvents, SseLimitExceeded, type EventSourceMessage, type SseLimits } from "../../../src/providers/shared/sse.js";
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

describe("readServerSentEvents: caps on one line, one event and the whole body", () => {
  /** An endless body of `piece`, after `head`; counts the bytes pulled and sees the cancel. */
  function endless(piece: string, head = ""): { body: ReadableStream<Uint8Array>; pulled: () => number; cancelled: () => boolean } {
    let pulled = 0;
    let cancelled = false;
    const first = bytes(head);
    const chunk = bytes(piece);
    let started = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = started || first.length === 0 ? chunk : first;
        started = true;
        pulled += next.length;
        controller.enqueue(next);
      },
      cancel() {
        cancelled = true;
      },
    });
    return { body, pulled: () => pulled, cancelled: () => cancelled };
  }

  async function failure(body: ReadableStream<Uint8Array>, limits: SseLimits): Promise<{ error: SseLimitExceeded; events: EventSourceMessage[] }> {
    const events: EventSourceMessage[] = [];
    try {
      for await (const event of readServerSentEvents(body, limits)) events.push(event);
    } catch (error) {
      return { error: error as SseLimitExceeded, events };
    }
    throw new Error("the read ended without exceeding a limit");
  }

  it("a line that never ends stops just past maxLineBytes and cancels the body", async () => {
    const source = endless("x".repeat(1000), "data: ");
    const { error } = await failure(source.body, { maxLineBytes: 10_000 });
    expect(error).toBeInstanceOf(SseLimitExceeded);
    expect(error).toMatchObject({ limit: "maxLineBytes", max: 10_000 });
    expect(source.cancelled()).toBe(true);
    expect(source.pulled()).toBeLessThan(12_000);
  });

  it("the line length restarts after each line end (\\n, \\r\\n or \\r), so long streams of short lines pass", async () => {
    const lines = [bytes("data: 1\n\n"), bytes("data: 2\r\n\r\n"), bytes("data: 3\r\r")];
    const pieces: Uint8Array[] = [];
    for (let i = 0; i < 301; i++) pieces.push(lines[i % 3]!);
    const events: EventSourceMessage[] = [];
    for await (const event of readServerSentEvents(streamOf(pieces), { maxLineBytes: 12, maxEventBytes: 12 })) events.push(event);
    expect(events).toHaveLength(301);
  });

  it("one event of endless short data: lines stops at maxEventBytes; earlier events are delivered first", async () => {
    const source = endless("data: x\n".repeat(100), "data: first\n\n");
    const { error, events } = await failure(source.body, { maxLineBytes: 100, maxEventBytes: 5_000 });
    expect(error).toMatchObject({ limit: "maxEventBytes", max: 5_000 });
    expect(events.map((e) => e.data)).toEqual(["first"]);
    expect(source.cancelled()).toBe(true);
    expect(source.pulled()).toBeLessThan(25_000);
  });

  it("complete events forever stop at maxResponseBytes, counted on the raw bytes", async () => {
    const source = endless("data: 0123456789\n\n");
    const { error, events } = await failure(source.body, { maxResponseBytes: 18 * 100 });
    expect(error).toMatchObject({ limit: "maxResponseBytes", max: 1800 });
    expect(events).toHaveLength(100);
    expect(source.cancelled()).toBe(true);
  });

  it("a body exactly at every cap is read whole", async () => {
    const text = "data: 12345\n\n";
    const events = await readAll2(streamOf([bytes(text)]), { maxLineBytes: 11, maxEventBytes: 11, maxResponseBytes: text.length });
    expect(events.map((e) => e.data)).toEqual(["12345"]);
  });

  async function readAll2(body: ReadableStream<Uint8Array>, limits: SseLimits): Promise<EventSourceMessage[]> {
    const out: EventSourceMessage[] = [];
    for await (const event of readServerSentEvents(body, limits)) out.push(event);
    return out;
  }
});
