/**
 * `callStreamFn`, the one reading of what a `StreamFn` returns (SPEC M3, M4): every form, every
 * failure as one `StreamFnFailure`, and the same words whether a wrapper (`withRetry`, the proxy
 * server) sits in between or not.
 */
import { lastValueFrom, Observable, of, take, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../../src/loop/agent-loop.js";
import { withRetry } from "../../src/providers/retry/index.js";
import { callStreamFn, StreamFnFailure, type AssistantMessageEvent, type StreamFn } from "../../src/index.js";
import { agentEnd, assistantMessage, collectSync, model, protocolEvents, user } from "../helpers/fixtures.js";

const done: AssistantMessageEvent = { type: "done", reason: "stop", message: assistantMessage("hi") };
const events = protocolEvents(assistantMessage("hi"));

async function read(streamFn: StreamFn): Promise<AssistantMessageEvent[] | StreamFnFailure> {
  try {
    return await lastValueFrom(callStreamFn(streamFn, model, { messages: [] }, {}).pipe(toArray()));
  } catch (error) {
    return error as StreamFnFailure;
  }
}

async function* iterate(items: AssistantMessageEvent[]): AsyncGenerator<AssistantMessageEvent> {
  yield* items;
}

describe("callStreamFn", () => {
  it("M3: an Observable, an array, an async iterable, a promise of any of them, a promise of one event", async () => {
    const forms: StreamFn[] = [() => of(...events), () => events, () => iterate(events), () => Promise.resolve(events), () => Promise.resolve(of(...events))];
    for (const streamFn of forms) {
      expect(await read(streamFn)).toEqual(events);
    }
    expect(await read((() => Promise.resolve(done)) as unknown as StreamFn)).toEqual([done]);
  });

  it("M4: the stream ends at the final event; what comes after it is dropped and the provider unsubscribed", async () => {
    let unsubscribed = false;
    const streamFn: StreamFn = () =>
      new Observable<AssistantMessageEvent>((subscriber) => {
        subscriber.next(done);
        subscriber.next({ type: "text_delta", contentIndex: 0, delta: "late", partial: assistantMessage("late") });
        return () => (unsubscribed = true);
      });
    expect(await read(streamFn)).toEqual([done]);
    expect(unsubscribed).toBe(true);
  });

  it("M4: every failure is one StreamFnFailure with its kind and its cause", async () => {
    const boom = new Error("boom");
    const cases: [StreamFn, StreamFnFailure["kind"], string][] = [
      [() => { throw boom; }, "threw", "boom"],
      [() => Promise.reject<AssistantMessageEvent[]>(boom), "rejected", "boom"],
      [() => 42 as never, "invalid", "The stream function returned a number, not an Observable, async iterable, array or promise of provider events."],
      [() => new Observable<AssistantMessageEvent>((s) => s.error(boom)), "errored", "boom"],
      [() => of(events[0]!), "incomplete", 'Provider stream ended without a final "done" or "error" event.'],
    ];
    for (const [streamFn, kind, message] of cases) {
      const failure = await read(streamFn);
      expect(failure).toBeInstanceOf(StreamFnFailure);
      expect(failure).toMatchObject({ kind, message });
      if (kind !== "invalid" && kind !== "incomplete") expect((failure as StreamFnFailure).cause).toBe(boom);
    }
  });

  it("M4: a synchronous throw is worded the same with and without withRetry in between", () => {
    const throwing: StreamFn = () => {
      throw new Error("no key");
    };
    const direct = agentEnd(collectSync(agentLoop([user("go")], { messages: [] }, { model }, undefined, throwing))).messages.at(-1);
    const wrapped = agentEnd(collectSync(agentLoop([user("go")], { messages: [] }, { model }, undefined, withRetry(throwing, { maxRetries: 0 })))).messages.at(-1);
    expect(direct).toMatchObject({ stopReason: "error", errorMessage: "no key" });
    expect(wrapped).toMatchObject({ stopReason: "error", errorMessage: "no key" });
  });

  it("M3: a promise of one event works through withRetry and directly alike", () => {
    const single = (() => Promise.resolve(done)) as unknown as StreamFn;
    return Promise.all(
      [single, withRetry(single)].map(async (streamFn) => {
        const seen = await lastValueFrom(agentLoop([user("go")], { messages: [] }, { model }, undefined, streamFn).pipe(toArray()));
        expect(agentEnd(seen).messages.at(-1)).toMatchObject({ stopReason: "stop" });
      }),
    );
  });
});

describe("callStreamFn and cancellation", () => {
  it("L10: unsubscribing stops a synchronous provider in the middle of its events", () => {
    let produced = 0;
    const many: StreamFn = () =>
      new Observable<AssistantMessageEvent>((subscriber) => {
        for (let i = 0; i < 1000 && !subscriber.closed; i++) {
          produced++;
          subscriber.next(events[i % 3]!);
        }
      });
    const seen: AssistantMessageEvent[] = [];
    callStreamFn(many, model, { messages: [] }, {})
      .pipe(take(3))
      .subscribe((e) => seen.push(e));
    expect(seen).toHaveLength(3);
    expect(produced).toBe(3);
  });
});
