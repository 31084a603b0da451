/**
 * Calling a `StreamFn` (SPEC M3, M4): whatever it returns — an Observable, an async iterable
 * such as pi-ai's `streamSimple` result, an array, a promise of any of these or of one event —
 * is read as one stream of provider events that ends at its final `done` or `error` event. Every
 * way the call can fail is one {@link StreamFnFailure}. The loop, `withRetry` and the proxy
 * server all call providers through here.
 *
 * @module
 */
import { Observable, type Subscription, type Unsubscribable } from "rxjs";
import { describeError } from "../model/describe-error.js";
import type { AssistantMessageEvent, LlmContext, Model, StreamFn, StreamOptions } from "../model/messages.js";
import { fromAsyncIterable, isPlainAsyncIterable } from "../rx/from-async-iterable.js";
import { type LinkedHandlers, LinkedObserver } from "../engine/linked-observer.js";
import { fromInput } from "../rx/observable-input.js";
import { isThenable } from "../rx/maybe-async.js";
import { ignoreOutcome, insideTestSchedulerRun, promiseInVirtualRunError, stallsVirtualRun } from "../rx/virtual-run.js";

/**
 * How a provider call failed: the function `threw`, its promise `rejected`, it returned something
 * that is not a stream (`invalid`), the stream `errored`, or it ended without a final `done` or
 * `error` event (`incomplete`).
 */
export type StreamFnFailureKind = "threw" | "rejected" | "invalid" | "errored" | "incomplete";

/** A failed provider call. `message` is written for the final assistant message; `cause` is what was thrown, if anything. */
export class StreamFnFailure extends Error {
  constructor(
    readonly kind: StreamFnFailureKind,
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = "StreamFnFailure";
  }
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  return `a ${typeof value}`;
}

function failureOf(kind: Exclude<StreamFnFailureKind, "invalid" | "incomplete">, cause: unknown): StreamFnFailure {
  // A failure that already went through here (a wrapper such as `withRetry` passing it on) keeps its words.
  if (cause instanceof StreamFnFailure) return cause;
  // The error's own words, as pi-agent-core reports them; `kind` tells how it failed.
  return new StreamFnFailure(kind, describeError(cause), cause);
}

/** Receives one provider call: its events up to and including the final one, or its failure. Exactly one of `final` / `failure` ends it. */
export interface StreamFnObserver {
  /** Every event before the final one. */
  event(event: AssistantMessageEvent): void;
  /** The final `done` or `error` event. */
  final(event: AssistantMessageEvent): void;
  failure(failure: StreamFnFailure): void;
}

function isEvent(value: unknown): value is AssistantMessageEvent {
  return value !== null && typeof value === "object" && typeof (value as { type?: unknown }).type === "string" && !isThenable(value);
}

/**
 * Calls `streamFn` and reports to `observer`, without an Observable layer of its own between
 * the provider and the observer (this is the per-event hot path). Returns what stops it:
 * unsubscribing the provider's stream and ignoring whatever it still sends. The provider's
 * subscription is added to `parent` before it is subscribed, so unsubscribing `parent` stops a
 * synchronous provider at once.
 */
export function observeStreamFn(streamFn: StreamFn, model: Model, context: LlmContext, options: StreamOptions, observer: StreamFnObserver, parent: Subscription): Unsubscribable {
  // Stopped, or the end reported: nothing reaches the observer after this.
  let done = false;
  let upstream: Subscription | undefined;
  const stop: Unsubscribable = {
    unsubscribe: () => {
      done = true;
      upstream?.unsubscribe();
    },
  };
  const fail = (failure: StreamFnFailure): void => {
    if (done) return;
    stop.unsubscribe();
    observer.failure(failure);
  };
  const read = (input: unknown): void => {
    if (done) return;
    const events = isPlainAsyncIterable(input) ? fromAsyncIterable(input as AsyncIterable<AssistantMessageEvent>) : fromInput<AssistantMessageEvent>(input);
    if (!events) {
      return fail(new StreamFnFailure("invalid", `The stream function returned ${describeValue(input)}, not an Observable, async iterable, array or promise of provider events.`));
    }
    // Linked before it is subscribed: stopping it stops a synchronous provider in the middle of its events.
    const linked = new ProviderEvents(observer, stop, {
      error: (error: unknown) => fail(failureOf("errored", error)),
      complete: () => fail(new StreamFnFailure("incomplete", `Provider stream ended without a final "done" or "error" event.`)),
    });
    upstream = linked;
    parent.add(linked);
    events.subscribe(linked);
  };

  let result: unknown;
  try {
    result = streamFn(model, context, options);
  } catch (error) {
    fail(failureOf("threw", error));
    return stop;
  }
  // A promise or an async iterator settles in a microtask: inside TestScheduler.run(), after the clock stopped.
  if ((isThenable(result) && stallsVirtualRun(result)) || (isPlainAsyncIterable(result) && insideTestSchedulerRun())) {
    if (isThenable(result)) ignoreOutcome(result);
    fail(new StreamFnFailure("invalid", promiseInVirtualRunError().message));
    return stop;
  }
  if (isThenable(result) && !(Symbol.asyncIterator in (result as object))) {
    result.then(
      (input) => read(isEvent(input) ? [input] : input),
      (error: unknown) => fail(failureOf("rejected", error)),
    );
  } else {
    read(result);
  }
  return stop;
}

/**
 * The provider's events as a cold Observable: the call is made on subscribe, the stream
 * completes after its final `done` or `error` event (anything sent after it is dropped), and
 * every failure errors it with a {@link StreamFnFailure}. Unsubscribing unsubscribes the
 * provider's stream.
 *
 * ```text
 * provider:  -s-t-d-x     (start, text, done, then an event too many)
 * result:    -s-t-(d|)
 * provider:  -s-t-|
 * result:    -s-t-#       (StreamFnFailure "incomplete")
 * ```
 *
 * @example
 * ```ts
 * callStreamFn(streamSimple, model, context, { signal }).subscribe(console.log);
 * ```
 */
export function callStreamFn(streamFn: StreamFn, model: Model, context: LlmContext, options: StreamOptions): Observable<AssistantMessageEvent> {
  return new Observable<AssistantMessageEvent>((subscriber) =>
    observeStreamFn(
      streamFn,
      model,
      context,
      options,
      {
        event: (event) => subscriber.next(event),
        final: (event) => {
          subscriber.next(event);
          subscriber.complete();
        },
        failure: (failure) => subscriber.error(failure),
      },
      subscriber,
    ),
  );
}

/**
 * The provider's events, linked to the call: `next` is a method of its own class, not a
 * `LinkedObserver` handler, because it runs once per delta and a call site shared with every
 * other linked observer cannot be inlined.
 */
class ProviderEvents extends LinkedObserver<AssistantMessageEvent> {
  constructor(
    private readonly observer: StreamFnObserver,
    private readonly stop: Unsubscribable,
    handlers: LinkedHandlers<AssistantMessageEvent>,
  ) {
    super(handlers);
  }

  override next(event: AssistantMessageEvent): void {
    // Closed once stopped (the call's `stop` unsubscribes it before anything is reported): it
    // passes nothing on.
    if (this.closed) return;
    const type = (event as { type?: unknown } | null)?.type;
    if (type !== "done" && type !== "error") this.observer.event(event);
    else this.final(event);
  }

  private final(event: AssistantMessageEvent): void {
    this.stop.unsubscribe();
    this.observer.final(event);
  }
}
