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

/** Characters of a credential (RFC 6750's token characters): a cut between two of them splits a word. */
const TOKEN_CHAR = /[A-Za-z0-9\-._~+/=]/;

/**
 * `text`, cut to at most `max` characters with an ellipsis, never inside a word: a key cut in two
 * would keep a prefix that redaction (which runs on the whole of each key) no longer recognises.
 *
 * @example
 * ```ts
 * truncate("Incorrect API key provided: sk-abcdefghijklmnopqrstuvwxyz", 40); // "Incorrect API key provided: …"
 * ```
 */
export function truncate(text: string, max = 300): string {
  if (text.length <= max) return text;
  let cut = max;
  while (cut > 0 && TOKEN_CHAR.test(text[cut - 1]!) && TOKEN_CHAR.test(text[cut]!)) cut--;
  return `${text.slice(0, cut)}…`;
}

/**
 * `value` as JSON for an error message; a value JSON cannot render (nested past the stack, a
 * cycle, a `BigInt`) is named instead of throwing: the failure must still be reported.
 *
 * @example
 * ```ts
 * jsonText({ a: 1 }); // '{"a":1}'
 * jsonText(1n);       // "(a value that cannot be shown as JSON)"
 * ```
 */
export function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return "(a value that cannot be shown as JSON)";
  }
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
