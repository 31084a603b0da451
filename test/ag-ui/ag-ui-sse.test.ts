/**
 * The SSE body: one `data:` line of JSON per event, read by the AG-UI client's own SSE parser;
 * the events' subscription taken when the body is made and given back when it ends, when the
 * reader cancels it, and when the request's signal fires.
 */
import { parseSSEStream, type BaseEvent } from "@ag-ui/client";
import { lastValueFrom, Observable, of, Subject, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { encodeAgUiEvent, type AgUiEvent } from "../../src/ag-ui/index.js";
import { agUiEventStream } from "../../src/ag-ui/ag-ui-sse.js";

const events: AgUiEvent[] = [
  { type: "RUN_STARTED", threadId: "t", runId: "r" },
  { type: "TEXT_MESSAGE_START", messageId: "m", role: "assistant" },
  { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "line one\nline two: \"quoted\" ✓" },
  { type: "TEXT_MESSAGE_END", messageId: "m" },
  { type: "RUN_FINISHED", threadId: "t", runId: "r" },
];

/** What the AG-UI client's SSE parser reads from a body. */
async function parsed(body: ReadableStream<Uint8Array>): Promise<BaseEvent[]> {
  const http = new Observable<{ type: "data"; data: Uint8Array }>((subscriber) => {
    const reader = body.getReader();
    const pump = (): Promise<void> => reader.read().then(({ done, value }) => (done ? subscriber.complete() : (subscriber.next({ type: "data", data: value }), pump())));
    pump().catch((error: unknown) => subscriber.error(error));
  });
  type ClientHttp = Parameters<typeof parseSSEStream>[0];
  return lastValueFrom((parseSSEStream(http as unknown as ClientHttp) as unknown as Observable<BaseEvent>).pipe(toArray()));
}

describe("the AG-UI event stream", () => {
  it("encodes each event as one data line the client's parser reads back unchanged", async () => {
    expect(encodeAgUiEvent(events[3]!)).toBe('data: {"type":"TEXT_MESSAGE_END","messageId":"m"}\n\n');
    expect(await parsed(agUiEventStream(of(...events)))).toEqual(events);
  });

  it("subscribes when made; a cancelled body, or the request's signal, unsubscribes", async () => {
    let subscribed = 0;
    let unsubscribed = 0;
    const source = new Subject<AgUiEvent>();
    const counted = new Observable<AgUiEvent>((subscriber) => {
      subscribed++;
      const inner = source.subscribe(subscriber);
      return () => (unsubscribed++, inner.unsubscribe());
    });
    const cancelled = agUiEventStream(counted);
    expect([subscribed, unsubscribed]).toEqual([1, 0]);
    await cancelled.cancel();
    expect(unsubscribed).toBe(1);

    const gone = new AbortController();
    const body = agUiEventStream(counted, gone.signal);
    source.next(events[0]!);
    gone.abort();
    expect([subscribed, unsubscribed]).toEqual([2, 2]);
    // What was sent before the client left is still in the body, which then ends.
    expect(await parsed(body)).toEqual([events[0]]);
  });
});
