/**
 * A provider failure on its way to becoming the final `error` message: the readable text and
 * the structured details ({@link ProviderFailure}) `withRetry` reads.
 *
 * @internal
 * @module
 */
import type { ProviderFailure } from "./provider-failure.js";

/** Thrown inside a provider's request code and turned into the `error` event by its caller. */
export class StreamFailure extends Error {
  constructor(
    message: string,
    readonly failure: ProviderFailure,
  ) {
    super(message);
    this.name = "StreamFailure";
  }
}

/** `text`, cut to `max` characters with an ellipsis. */
export function truncate(text: string, max = 300): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/**
 * A readable message for a failed `fetch` or body read, with the underlying cause that
 * runtimes hide behind "fetch failed" (`ECONNREFUSED`, `ECONNRESET`, ...).
 */
export function describeNetworkError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    const detail = cause.message || (typeof code === "string" ? code : "");
    return detail && detail !== error.message ? `${error.message} (${detail})` : error.message;
  }
  return error.message || error.name;
}
