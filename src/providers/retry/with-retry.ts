/**
 * `withRetry` on rxjs's `retry({ count, delay })`: an attempt that fails before any content
 * errors with a {@link PreContentFailure}; `delay` decides whether and how long to wait; what is
 * not retried is passed on as it came.
 *
 * @module
 */
import { asyncScheduler, catchError, concat, EMPTY, fromEvent, mergeMap, Observable, of, race, retry, Subject, type SchedulerLike, throwError, timer } from "rxjs";
import { failedAssistantMessage } from "../../model/assistant-message.js";
import { describeError } from "../../model/describe-error.js";
import type { AssistantMessage, AssistantMessageEvent, LlmContext, Model, StreamFn, StreamOptions } from "../../model/messages.js";
import { callStreamFn, StreamFnFailure } from "../../stream/stream-fn-call.js";
import { getProviderFailure, type ProviderFailure } from "../shared/provider-failure.js";

/** One retry, announced before its wait starts. */
export interface RetryEvent {
  /** Which retry this is: 1 for the first. */
  attempt: number;
  /** The most retries that will be made. */
  maxRetries: number;
  /** How long the wrapper waits before the retry, in milliseconds. */
  delayMs: number;
  /** The failure being retried. */
  errorMessage: string;
  /** Details of the failure, when an rxagent provider reported it. */
  failure?: ProviderFailure;
  /** The model of the request. */
  model: Model;
}

/** Configuration of {@link withRetry}. */
export interface RetryOptions {
  /** Retries after the first attempt. Default 3. */
  maxRetries?: number | undefined;
  /** Wait before the first retry, in ms. Default 1000. */
  initialDelayMs?: number | undefined;
  /** Growth of the wait per retry. Default 2. */
  backoffFactor?: number | undefined;
  /**
   * Longest wait, in ms. A computed backoff is cut to it; a `Retry-After` longer than it ends
   * the retries (the failure is passed on). Default 60 000.
   */
  maxDelayMs?: number | undefined;
  /** Fraction of each backoff taken off at random, 0 to 1, so clients spread out. Default 0.25. */
  jitter?: number | undefined;
  /** The random source for jitter, in [0, 1). Default `Math.random`. */
  random?: (() => number) | undefined;
  /** Decides whether a failure is worth retrying. Default {@link isRetryableFailure}. */
  shouldRetry?: ((message: AssistantMessage, failure: ProviderFailure | undefined) => boolean) | undefined;
  /** Called with each retry before its wait. */
  onRetry?: ((event: RetryEvent) => void) | undefined;
  /** Clock for the waits. Default: the request's `options.scheduler`, else `asyncScheduler`. */
  scheduler?: SchedulerLike | undefined;
}

/** A `StreamFn` with retries, and the stream of its retry announcements. */
export interface RetryingStreamFn extends StreamFn {
  /** Every retry of every request made through this function (hot; subscribe before use). */
  readonly retries$: Observable<RetryEvent>;
}

const TRANSIENT_TEXT =
  /\b(408|409|425|429|500|502|503|504|520|522|524|529)\b|rate.?limit|too many requests|overloaded|server.?error|service unavailable|bad gateway|gateway time-?out|temporarily|network|connection error|fetch failed|socket hang up|ECONNRESET|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN|connection (was )?(closed|reset)|terminated/i;

/**
 * The default retry decision: what an rxagent provider recorded (429, 408, 409, 5xx,
 * overloaded, network), else — for pi-ai and other providers — the usual wording of those
 * failures in `errorMessage`.
 */
export function isRetryableFailure(message: AssistantMessage, failure: ProviderFailure | undefined = getProviderFailure(message)): boolean {
  if (failure) return failure.retryable;
  return TRANSIENT_TEXT.test(message.errorMessage ?? "");
}

/**
 * An attempt that failed before any content was passed on: retrying it is safe. Carries what to
 * pass on if it is not retried — the held `start`, then the `error` event or the stream's error.
 */
class PreContentFailure {
  constructor(
    readonly message: AssistantMessage,
    readonly heldStart: AssistantMessageEvent | undefined,
    readonly passOn: { event: AssistantMessageEvent } | { error: unknown },
  ) {}
}

/** The signal fired while waiting for a retry. */
const ABORTED_WHILE_WAITING = Symbol("aborted while waiting");

/**
 * One attempt. The `start` event is held back until content arrives, so a retried attempt never
 * shows two starts; a failure before content errors with a {@link PreContentFailure}.
 */
function attempt(streamFn: StreamFn, model: Model, context: LlmContext, options: StreamOptions, now: () => number): Observable<AssistantMessageEvent> {
  return new Observable<AssistantMessageEvent>((subscriber) => {
    let heldStart: AssistantMessageEvent | undefined;
    let committed = false;
    return callStreamFn(streamFn, model, context, options).subscribe({
      next: (event) => {
        if (committed) return subscriber.next(event);
        if (event.type === "start") {
          heldStart = event;
          return;
        }
        if (event.type === "error" && event.reason === "error") return subscriber.error(new PreContentFailure(event.error, heldStart, { event }));
        // Content, `done` or an `aborted` result: this attempt is the answer.
        committed = true;
        if (heldStart) subscriber.next(heldStart);
        subscriber.next(event);
      },
      error: (error: unknown) => {
        if (committed) return subscriber.error(error);
        // Judged by what was thrown, not by how the call failed (`StreamFnFailure` keeps that for the loop).
        const cause = error instanceof StreamFnFailure && error.cause !== undefined ? error.cause : error;
        subscriber.error(new PreContentFailure(failedAssistantMessage(model, describeError(cause), "error", now()), heldStart, { error }));
      },
      complete: () => {
        if (!committed && heldStart) subscriber.next(heldStart);
        subscriber.complete();
      },
    });
  });
}

/**
 * Wraps `streamFn` so requests that fail before streaming any content are retried.
 *
 * The first attempt's `start` is held back until content arrives, so a retried attempt never
 * shows two starts. `done`, content, an `aborted` result or a failure that is not retryable
 * pass through unchanged.
 *
 * @example
 * ```ts
 * import { openaiCompatible } from "rxagent/openai";
 * import { withRetry } from "rxagent/retry";
 *
 * const streamFn = withRetry(openaiCompatible({ apiKey }), { maxRetries: 4 });
 * streamFn.retries$.subscribe((r) => showToast(`${r.errorMessage} — retrying in ${r.delayMs} ms`));
 * ```
 * @param streamFn - The provider to call.
 * @param options - Limits, backoff and the retry callback.
 * @return A `StreamFn` that retries, with `retries$`.
 */
export function withRetry(streamFn: StreamFn, options: RetryOptions = {}): RetryingStreamFn {
  const maxRetries = options.maxRetries ?? 3;
  const initialDelayMs = options.initialDelayMs ?? 1000;
  const factor = options.backoffFactor ?? 2;
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  const jitter = Math.min(1, Math.max(0, options.jitter ?? 0.25));
  const random = options.random ?? Math.random;
  const shouldRetry = options.shouldRetry ?? isRetryableFailure;
  const retries = new Subject<RetryEvent>();

  /** The wait before retry number `attempt`, or `undefined` to give up. */
  const delayFor = (attempt: number, failure: ProviderFailure | undefined): number | undefined => {
    if (failure?.retryAfterMs !== undefined) return failure.retryAfterMs <= maxDelayMs ? failure.retryAfterMs : undefined;
    const backoff = Math.min(maxDelayMs, initialDelayMs * factor ** (attempt - 1));
    return Math.round(backoff * (1 - jitter * random()));
  };

  const retrying: StreamFn = (model, context, streamOptions) => {
    const scheduler = options.scheduler ?? streamOptions.scheduler ?? asyncScheduler;
    const signal = streamOptions.signal;
    const now = (): number => scheduler.now();

    /** The wait before retry number `attempt`, or an error to give up with. */
    const waitBeforeRetry = (error: unknown, attempt: number): Observable<unknown> => {
      if (!(error instanceof PreContentFailure) || signal?.aborted) return throwError(() => error);
      const failure = getProviderFailure(error.message);
      if (!shouldRetry(error.message, failure)) return throwError(() => error);
      const delayMs = delayFor(attempt, failure);
      if (delayMs === undefined) return throwError(() => error);
      const event: RetryEvent = { attempt, maxRetries, delayMs, errorMessage: error.message.errorMessage ?? "", model };
      if (failure) event.failure = failure;
      options.onRetry?.(event);
      retries.next(event);
      const wait = timer(delayMs, scheduler);
      if (!signal) return wait;
      return race(wait, fromEvent(signal, "abort").pipe(mergeMap(() => throwError(() => ABORTED_WHILE_WAITING))));
    };

    /** What is not retried goes on as it came; an abort during a wait ends with an `aborted` result. */
    const passOn = (error: unknown): Observable<AssistantMessageEvent> => {
      if (error === ABORTED_WHILE_WAITING) {
        return of({ type: "error", reason: "aborted", error: failedAssistantMessage(model, "Request was aborted", "aborted", now()) });
      }
      if (!(error instanceof PreContentFailure)) return throwError(() => error);
      const start = error.heldStart ? of(error.heldStart) : EMPTY;
      const { passOn: rest } = error;
      return concat(start, "event" in rest ? of(rest.event) : throwError(() => rest.error));
    };

    return attempt(streamFn, model, context, streamOptions, now).pipe(retry({ count: maxRetries, delay: waitBeforeRetry }), catchError(passOn));
  };

  return Object.assign(retrying, { retries$: retries.asObservable() });
}
