/**
 * withRetry: retries before content only, exponential backoff with jitter on
 * the scheduler, Retry-After, caps, abort during the wait, observable retry events.
 */
import { afterEach, describe, expect, it } from "vitest";
import { map, of, queueScheduler, throwError, timer, type ObservableInput } from "rxjs";
import { TestScheduler } from "rxjs/testing";
import { settleVirtualTime } from "../../../src/testing/index.js";
import { emptyAssistantMessage, failedAssistantMessage } from "../../../src/model/assistant-message.js";
import type { AssistantMessageEvent, StreamFn } from "../../../src/model/messages.js";
import { openaiCompatible } from "../../../src/providers/openai/index.js";
import { recordProviderFailure, type ProviderFailure } from "../../../src/providers/shared/provider-failure.js";
import { isRetryableFailure, withRetry, type RetryEvent } from "../../../src/providers/retry/index.js";
import { collect, events$, finalMessage, model, shape, weatherContext } from "../support/collect.js";
import { errorResponse, sseResponse, startTestServer, type TestServer } from "../support/http-server.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const start = (): AssistantMessageEvent => ({ type: "start", partial: emptyAssistantMessage(model, 0) });
const failure = (text: string, details?: ProviderFailure): AssistantMessageEvent => {
  const error = failedAssistantMessage(model, text, "error", 0);
  if (details) recordProviderFailure(error, details);
  return { type: "error", reason: "error", error };
};
const done = (): AssistantMessageEvent => ({ type: "done", reason: "stop", message: { ...emptyAssistantMessage(model, 0), content: [{ type: "text", text: "ok" }] } });
const textStart = (): AssistantMessageEvent => ({ type: "text_start", contentIndex: 0, partial: emptyAssistantMessage(model, 0) });
const overloaded = () => failure("HTTP 503 Service Unavailable: overloaded", { kind: "http", status: 503, retryable: true });

/** A StreamFn that answers call i with attempts[i]. */
function scripted(attempts: (() => ObservableInput<AssistantMessageEvent>)[]): StreamFn & { calls: number } {
  const fn = Object.assign(
    () => {
      const attempt = attempts[Math.min(fn.calls, attempts.length - 1)]!;
      fn.calls++;
      return attempt();
    },
    { calls: 0 },
  );
  return fn;
}

describe("withRetry over real HTTP", () => {
  it("429 with Retry-After is retried after the requested wait, then succeeds", async () => {
    server = await startTestServer((_r, index) => (index === 0 ? errorResponse(429, "error-429.json", { "retry-after": "1" }) : sseResponse("text.sse")));
    // The wait runs on a virtual clock (the HTTP in real time): each attempt notes its frame.
    const scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    const http = openaiCompatible({ baseUrl: `${server.url}/v1`, apiKey: "sk-test" });
    const attemptsAt: number[] = [];
    const streamFn = withRetry((m, context, options) => (attemptsAt.push(scheduler.now()), http(m, context, options)), { scheduler });
    const announced: RetryEvent[] = [];
    const subscription = streamFn.retries$.subscribe((event) => announced.push(event));
    const collected = collect(streamFn, weatherContext());
    await settleVirtualTime(scheduler, { until: collected });
    const events = await collected;
    subscription.unsubscribe();

    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.body).toBe(server.requests[0]!.body);
    expect(attemptsAt).toEqual([0, 1000]);
    expect(shape(events)).toEqual(["start", "text_start", "text_delta×6", "text_end", "done"]);
    expect(finalMessage(events).content).toEqual([{ type: "text", text: "Hello, wörld — café 🌍!" }]);
    expect(announced).toHaveLength(1);
    expect(announced[0]).toMatchObject({ attempt: 1, maxRetries: 3, delayMs: 1000, failure: { status: 429, retryAfterMs: 1000 } });
    expect(announced[0]!.errorMessage).toMatch(/^HTTP 429 Too Many Requests: Rate limit reached/);
  });

  it("a network failure (connection dropped) and a 500 are retried; onRetry sees both", async () => {
    server = await startTestServer((_r, index) =>
      index === 0 ? { dropConnection: true } : index === 1 ? errorResponse(500, "error-500.json") : sseResponse("text.sse"),
    );
    const seen: RetryEvent[] = [];
    const scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    const streamFn = withRetry(openaiCompatible({ baseUrl: `${server.url}/v1` }), { initialDelayMs: 20, random: () => 0, onRetry: (e) => seen.push(e), scheduler });
    const collected = collect(streamFn, weatherContext());
    await settleVirtualTime(scheduler, { until: collected });
    const events = await collected;
    expect(finalMessage(events).stopReason).toBe("stop");
    expect(server.requests).toHaveLength(3);
    expect(seen.map((e) => [e.attempt, e.delayMs, e.failure?.kind])).toEqual([
      [1, 20, "network"],
      [2, 40, "http"],
    ]);
  });

  it("a 401 is not retried", async () => {
    server = await startTestServer(() => errorResponse(401, "error-401.json"));
    const events = await collect(withRetry(openaiCompatible({ baseUrl: `${server.url}/v1` }), { initialDelayMs: 1 }), weatherContext());
    expect(server.requests).toHaveLength(1);
    expect(finalMessage(events).errorMessage).toMatch(/^HTTP 401/);
  });

  it("never retries after content began: a mid-stream error object is final", async () => {
    server = await startTestServer(() => sseResponse("mid-stream-error.sse"));
    const events = await collect(withRetry(openaiCompatible({ baseUrl: `${server.url}/v1` }), { initialDelayMs: 1 }), weatherContext());
    expect(server.requests).toHaveLength(1);
    expect(shape(events)).toEqual(["start", "text_start", "text_delta", "error"]);
  });
});

describe("withRetry in virtual time (SPEC L12)", () => {
  const newScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

  it("exponential backoff with jitter on options.scheduler; the held start is shown once", () => {
    newScheduler().run(({ expectObservable, cold }) => {
      const streamFn = scripted([
        () => cold("-(se|)", { s: start(), e: overloaded() }),
        () => cold("-(se|)", { s: start(), e: overloaded() }),
        () => cold("-s-(d|)", { s: start(), d: done() }),
      ]);
      // random() = 0.5 and jitter 0.5: each backoff loses a quarter.
      const retrying = withRetry(streamFn, { initialDelayMs: 100, backoffFactor: 2, jitter: 0.5, random: () => 0.5 });
      const delays: number[] = [];
      retrying.retries$.subscribe((e) => delays.push(e.delayMs));
      // attempt 1 fails at 1; wait 75 → attempt 2 starts at 76, fails at 77; wait 150 → attempt 3
      // at 227 sends start at 228 (held back) and done at 230: one start, shown with the content.
      const result = events$(retrying, weatherContext()).pipe(map((e) => e.type));
      expectObservable(result).toBe("230ms (sd|)", { s: "start", d: "done" });
    });
    
  });

  it("the wait runs on the request's options.scheduler (the loop's), not on a timer of its own", () => {
    const loopScheduler = newScheduler(); // a virtual clock that only moves when flushed
    const streamFn = scripted([() => of(overloaded()), () => of(done())]);
    const seen: string[] = [];
    events$(withRetry(streamFn, { initialDelayMs: 500, random: () => 0 }), weatherContext(), { scheduler: loopScheduler }).subscribe((e) => seen.push(e.type));
    expect(streamFn.calls).toBe(1);
    expect(seen).toEqual([]);
    loopScheduler.flush();
    expect(loopScheduler.now()).toBe(500);
    expect(streamFn.calls).toBe(2);
    expect(seen).toEqual(["done"]);
  });

  it("a zero wait on a synchronous scheduler retries synchronously and still ends cleanly", () => {
    const now0 = failure("HTTP 503: busy", { kind: "http", status: 503, retryAfterMs: 0, retryable: true });
    const streamFn = scripted([() => of(start(), now0), () => of(start(), done())]);
    const seen: string[] = [];
    let completed = false;
    events$(withRetry(streamFn, { scheduler: queueScheduler }), weatherContext()).subscribe({ next: (e) => seen.push(e.type), complete: () => (completed = true) });
    expect(seen).toEqual(["start", "done"]);
    expect(completed).toBe(true);
    expect(streamFn.calls).toBe(2);
  });

  it("capped attempts: after maxRetries the last failure passes through", () => {
    newScheduler().run(({ expectObservable, cold }) => {
      const streamFn = scripted([() => cold("(e|)", { e: overloaded() })]);
      const result = events$(withRetry(streamFn, { maxRetries: 2, initialDelayMs: 10, random: () => 0 }), weatherContext()).pipe(map((e) => e.type));
      // waits of 10 and 20 frames, then the third failure is final.
      expectObservable(result).toBe("30ms (e|)", { e: "error" });
    });
  });

  it("capped delay: backoff is cut to maxDelayMs; a Retry-After beyond it ends the retries", () => {
    newScheduler().run(({ expectObservable, cold }) => {
      const slow = failure("HTTP 429: slow down", { kind: "http", status: 429, retryAfterMs: 5000, retryable: true });
      const a = scripted([() => cold("(e|)", { e: overloaded() }), () => cold("(e|)", { e: overloaded() }), () => cold("(d|)", { d: done() })]);
      const b = scripted([() => cold("(e|)", { e: slow })]);
      const capped = events$(withRetry(a, { initialDelayMs: 300, maxDelayMs: 400, random: () => 0 }), weatherContext()).pipe(map((e) => e.type));
      const refused = events$(withRetry(b, { maxDelayMs: 1000 }), weatherContext()).pipe(map((e) => e.type));
      expectObservable(capped).toBe("700ms (d|)", { d: "done" });
      expectObservable(refused).toBe("(e|)", { e: "error" });
    });
  });

  it("Retry-After decides the wait instead of the backoff", () => {
    newScheduler().run(({ expectObservable, cold }) => {
      const limited = failure("HTTP 429: limited", { kind: "http", status: 429, retryAfterMs: 42, retryable: true });
      const streamFn = scripted([() => cold("(e|)", { e: limited }), () => cold("(d|)", { d: done() })]);
      const result = events$(withRetry(streamFn, { initialDelayMs: 1000 }), weatherContext()).pipe(map((e) => e.type));
      expectObservable(result).toBe("42ms (d|)", { d: "done" });
    });
  });

  it("never retries after content began", () => {
    newScheduler().run(({ expectObservable, cold }) => {
      const streamFn = scripted([() => cold("s-t---(e|)", { s: start(), t: textStart(), e: overloaded() }), () => cold("(d|)", { d: done() })]);
      const result = events$(withRetry(streamFn, { initialDelayMs: 1 }), weatherContext()).pipe(map((e) => e.type));
      expectObservable(result).toBe("--(st)(e|)", { s: "start", t: "text_start", e: "error" });
    });
  });

  it("abortable during the wait: the signal ends it at once with an aborted message", () => {
    newScheduler().run(({ expectObservable, cold }) => {
      const controller = new AbortController();
      const streamFn = scripted([() => cold("(e|)", { e: overloaded() }), () => cold("(d|)", { d: done() })]);
      const result = events$(withRetry(streamFn, { initialDelayMs: 1000, random: () => 0 }), weatherContext(), { signal: controller.signal }).pipe(
        map((e) => (e.type === "error" ? `${e.type}:${e.reason}` : e.type)),
      );
      timer(300).subscribe(() => controller.abort());
      expectObservable(result).toBe("300ms (a|)", { a: "error:aborted" });
    });
  });

  it("a thrown error or errored Observable before content is retried when it looks transient", () => {
    newScheduler().run(({ expectObservable, cold }) => {
      const streamFn = scripted([
        () => {
          throw new TypeError("fetch failed");
        },
        () => throwError(() => new Error("529 overloaded_error")),
        () => cold("(d|)", { d: done() }),
      ]);
      const result = events$(withRetry(streamFn, { initialDelayMs: 10, random: () => 0 }), weatherContext()).pipe(map((e) => e.type));
      expectObservable(result).toBe("30ms (d|)", { d: "done" });
    });
  });

  it("unsubscribing during the wait cancels the retry", () => {
    newScheduler().run(({ expectObservable, cold, flush }) => {
      const streamFn = scripted([() => cold("(e|)", { e: overloaded() }), () => cold("(d|)", { d: done() })]);
      const result = events$(withRetry(streamFn, { initialDelayMs: 100, random: () => 0 }), weatherContext());
      expectObservable(result, "^ 50ms !").toBe("");
      flush();
      expect(streamFn.calls).toBe(1);
    });
  });
});

describe("isRetryableFailure", () => {
  it("classifies pi-ai style messages by their wording when no details were recorded", () => {
    const text = (errorMessage: string) => failedAssistantMessage(model, errorMessage, "error", 0);
    expect(isRetryableFailure(text("429 status code (no body)"))).toBe(true);
    expect(isRetryableFailure(text('529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'))).toBe(true);
    expect(isRetryableFailure(text("Connection error."))).toBe(true);
    expect(isRetryableFailure(text("fetch failed"))).toBe(true);
    expect(isRetryableFailure(text("401 Incorrect API key provided"))).toBe(false);
    expect(isRetryableFailure(text("400 Invalid schema for function"))).toBe(false);
  });
});
