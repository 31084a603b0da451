/**
 * `withRetry`: retries a model request that failed before any content was streamed.
 *
 * Rate limits (429), server errors (5xx), "overloaded" and network failures are transient, and
 * retrying them is safe as long as the user has seen nothing of the failed attempt. Once a
 * content event has been passed on, a failure is final: retrying would duplicate output.
 * Waits use exponential backoff with jitter on the loop's scheduler (so marble tests control
 * them), honour `Retry-After`, are capped in number and length, and end at once with an
 * `aborted` message when the signal fires. Each retry is announced on `retries$` and through
 * `onRetry`, so an app can show "rate limited, retrying in 4 s".
 *
 * @module
 */
import { asyncScheduler, Observable, Subject, Subscription, type SchedulerLike } from "rxjs";
import { describeError, failedAssistantMessage } from "../assistant-message.js";
import type { AssistantMessage, AssistantMessageEvent, Model, StreamFn } from "../messages.js";
import { getProviderFailure, type ProviderFailure } from "./provider-failure.js";
import { callStreamFn } from "./stream-result.js";

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
  maxRetries?: number;
  /** Wait before the first retry, in ms. Default 1000. */
  initialDelayMs?: number;
  /** Growth of the wait per retry. Default 2. */
  backoffFactor?: number;
  /**
   * Longest wait, in ms. A computed backoff is cut to it; a `Retry-After` longer than it ends
   * the retries (the failure is passed on). Default 60 000.
   */
  maxDelayMs?: number;
  /** Fraction of each backoff taken off at random, 0 to 1, so clients spread out. Default 0.25. */
  jitter?: number;
  /** The random source for jitter, in [0, 1). Default `Math.random`. */
  random?: () => number;
  /** Decides whether a failure is worth retrying. Default {@link isRetryableFailure}. */
  shouldRetry?: (message: AssistantMessage, failure: ProviderFailure | undefined) => boolean;
  /** Called with each retry before its wait. */
  onRetry?: (event: RetryEvent) => void;
  /** Clock for the waits. Default: the request's `options.scheduler`, else `asyncScheduler`. */
  scheduler?: SchedulerLike;
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

  const retrying: StreamFn = (model, context, streamOptions) =>
    new Observable<AssistantMessageEvent>((subscriber) => {
      const scheduler = options.scheduler ?? streamOptions.scheduler ?? asyncScheduler;
      const signal = streamOptions.signal;
      let current: Subscription | undefined;
      let wait: Subscription | undefined;
      let onAbort: (() => void) | undefined;

      const stopWaiting = () => {
        wait?.unsubscribe();
        wait = undefined;
        if (onAbort) signal?.removeEventListener("abort", onAbort);
        onAbort = undefined;
      };

      /** Starts the wait before retry `attempt` when the failure allows it; false to give up. */
      const scheduleRetry = (attempt: number, message: AssistantMessage): boolean => {
        if (attempt > maxRetries || signal?.aborted) return false;
        const failure = getProviderFailure(message);
        if (!shouldRetry(message, failure)) return false;
        const delayMs = delayFor(attempt, failure);
        if (delayMs === undefined) return false;
        const event: RetryEvent = { attempt, maxRetries, delayMs, errorMessage: message.errorMessage ?? "", model };
        if (failure) event.failure = failure;
        options.onRetry?.(event);
        retries.next(event);
        onAbort = () => {
          stopWaiting();
          current?.unsubscribe();
          subscriber.next({ type: "error", reason: "aborted", error: failedAssistantMessage(model, "Request was aborted", "aborted", scheduler.now()) });
          subscriber.complete();
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        wait = scheduler.schedule(() => {
          stopWaiting();
          current?.unsubscribe();
          run(attempt + 1);
        }, delayMs);
        return true;
      };

      const run = (attempt: number) => {
        let heldStart: AssistantMessageEvent | undefined;
        let committed = false;
        let retried = false;
        const pass = (event: AssistantMessageEvent) => {
          if (!committed) {
            committed = true;
            if (heldStart) subscriber.next(heldStart);
            heldStart = undefined;
          }
          subscriber.next(event);
        };
        // `current` is set before subscribing: a retry scheduled synchronously (delay 0 on a
        // synchronous scheduler) replaces it during `subscribe` and must not be overwritten.
        const attemptSubscription = new Subscription();
        current = attemptSubscription;
        attemptSubscription.add(callStreamFn(streamFn, model, context, streamOptions).subscribe({
          next: (event) => {
            if (committed || retried) {
              if (!retried) subscriber.next(event);
              return;
            }
            if (event.type === "start") {
              heldStart = event;
              return;
            }
            if (event.type === "error" && event.reason === "error") {
              try {
                retried = scheduleRetry(attempt, event.error);
              } catch (error) {
                subscriber.error(error);
                return;
              }
              if (retried) return;
            }
            // Content, `done`, `aborted` or a failure not worth retrying: this attempt is the answer.
            pass(event);
          },
          error: (error: unknown) => {
            if (retried) return;
            if (!committed) {
              const message = failedAssistantMessage(model, describeError(error), "error", scheduler.now());
              try {
                retried = scheduleRetry(attempt, message);
              } catch (callbackError) {
                subscriber.error(callbackError);
                return;
              }
              if (retried) return;
              if (heldStart) subscriber.next(heldStart);
            }
            subscriber.error(error);
          },
          complete: () => {
            if (retried) return;
            if (!committed && heldStart) subscriber.next(heldStart);
            subscriber.complete();
          },
        }));
      };

      run(1);
      return () => {
        stopWaiting();
        current?.unsubscribe();
      };
    });

  return Object.assign(retrying, { retries$: retries.asObservable() });
}
