/**
 * `callStreamFn`, the one reading of what a `StreamFn` returns (SPEC M3, M4): every form, every
 * failure as one `StreamFnFailure`, and the same words whether a wrapper (`withRetry`, the proxy
 * server) sits in between or not.
 */
import { lastValueFrom, Observable, of, Subscription, take, toArray } from "rxjs";
import { TestScheduler } from "rxjs/testing";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../../src/loop/agent-loop.js";
import { withRetry } from "../../src/providers/retry/index.js";
import type { AssistantMessageEvent, StreamFn } from "../../src/index.js";
import { callStreamFn, observeStreamFn, StreamFnFailure, type StreamFnObserver } from "../../src/stream/stream-fn-call.js";
import { promiseInVirtualRunError } from "../../src/rx/virtual-run.js";
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

describe("callStreamFn: the words and forms of a failure", () => {
  it("M4: a failure is named StreamFnFailure; undefined and a promise of null are invalid, worded as such", async () => {
    const failure = (await read(() => undefined as never)) as StreamFnFailure;
    expect(failure.name).toBe("StreamFnFailure");
    expect(failure).toMatchObject({ kind: "invalid", message: "The stream function returned undefined, not an Observable, async iterable, array or promise of provider events." });
    expect(String(failure)).toBe(`StreamFnFailure: ${failure.message}`);
    const resolvedNull = (await read((() => Promise.resolve(null)) as unknown as StreamFn)) as StreamFnFailure;
    expect(resolvedNull).toMatchObject({ kind: "invalid", message: expect.stringContaining("returned null, not an Observable") });
  });

  it("M3: a promise of a function is not a promise of one event, though the function has a type", async () => {
    const shaped = Object.assign(() => undefined, { type: "done" });
    const failure = (await read((() => Promise.resolve(shaped)) as unknown as StreamFn)) as StreamFnFailure;
    expect(failure).toMatchObject({ kind: "invalid", message: expect.stringContaining("returned a function") });
  });

  it("M4: a StreamFnFailure a wrapper throws or rejects with is passed on as it is, kind and words", async () => {
    const passed = new StreamFnFailure("incomplete", "the upstream provider stopped early");
    expect(await read(() => { throw passed; })).toBe(passed);
    expect(await read(() => Promise.reject<AssistantMessageEvent[]>(passed))).toBe(passed);
    const errored = await read(() => new Observable<AssistantMessageEvent>((subscriber) => subscriber.error(passed)));
    expect(errored).toBe(passed);
  });

  it("M3: a null event before the final one is passed on, not a failure", async () => {
    expect(await read(() => [null as unknown as AssistantMessageEvent, done])).toEqual([null, done]);
  });

  it("L12: a promise inside TestScheduler.run() fails at once with the virtual-run words, and its rejection is handled", async () => {
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown): void => void rejections.push(reason);
    process.on("unhandledRejection", onRejection);
    try {
      let failure: unknown;
      // run() itself throws the words too, once the virtual clock has nothing left before them.
      expect(() =>
        new TestScheduler((a, b) => expect(a).toEqual(b)).run(() => {
          callStreamFn(() => Promise.reject<AssistantMessageEvent[]>(new Error("late")), model, { messages: [] }, {}).subscribe({ error: (error) => (failure = error) });
        }),
      ).toThrow(promiseInVirtualRunError().message);
      expect(failure).toMatchObject({ kind: "invalid", message: promiseInVirtualRunError().message });
      await new Promise((settled) => setTimeout(settled, 10));
      expect(rejections).toEqual([]);
    } finally {
      process.off("unhandledRejection", onRejection);
    }
  });
});

describe("observeStreamFn: nothing reaches the observer after it was stopped", () => {
  function recorder(): StreamFnObserver & { calls: string[] } {
    const calls: string[] = [];
    return { calls, event: (e) => calls.push(`event ${e?.type}`), final: (e) => calls.push(`final ${e.type}`), failure: (f) => calls.push(`failure ${f.kind}`) };
  }

  it("L10: a rejection after stop is not reported", async () => {
    const observer = recorder();
    let reject!: (error: unknown) => void;
    const stop = observeStreamFn(() => new Promise<never>((_, r) => (reject = r)), model, { messages: [] }, {}, observer, new Subscription());
    stop.unsubscribe();
    reject(new Error("late"));
    await new Promise((settled) => setTimeout(settled, 0));
    expect(observer.calls).toEqual([]);
  });

  it("L10: a provider whose promise resolves after stop is never subscribed; one stopped midway sends nothing more", async () => {
    let subscribed = false;
    let resolve!: (events: Observable<AssistantMessageEvent>) => void;
    const observer = recorder();
    const stop = observeStreamFn((() => new Promise((r) => (resolve = r))) as unknown as StreamFn, model, { messages: [] }, {}, observer, new Subscription());
    stop.unsubscribe();
    resolve(new Observable<AssistantMessageEvent>(() => void (subscribed = true)));
    await new Promise((settled) => setTimeout(settled, 0));
    expect(subscribed).toBe(false);

    const midway = recorder();
    let provider!: { next: (e: AssistantMessageEvent) => void; complete: () => void };
    const running = observeStreamFn(() => new Observable<AssistantMessageEvent>((subscriber) => void (provider = subscriber)), model, { messages: [] }, {}, midway, new Subscription());
    provider.next(events[0]!);
    running.unsubscribe();
    provider.next(events[1]!);
    provider.complete();
    expect(midway.calls).toEqual(["event start"]);
  });
});
