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
export { isRetryableFailure, type RetryEvent, type RetryingStreamFn, type RetryOptions, withRetry } from "./with-retry.js";
