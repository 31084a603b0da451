/**
 * Reading a provider's failure: which statuses and codes are worth retrying, and how long a
 * response asks to wait. The failure details themselves are recorded beside the message by
 * `recordProviderFailure` (re-exported here from the model layer, where the loop reads them).
 *
 * @module
 */
export { getProviderFailure, type ProviderFailure, type ProviderFailureKind, recordProviderFailure } from "../../model/provider-failure.js";

/** Whether an HTTP status is worth retrying: timeouts, conflicts, rate limits and server errors. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** Whether an error code or type sent by a provider names a transient condition. */
export function isRetryableCode(code: string | undefined): boolean {
  return code !== undefined && /rate.?limit|overloaded|server_error|unavailable|timeout|capacity|internal/i.test(code);
}

/**
 * The wait a response asks for, in milliseconds: `retry-after-ms`, else `Retry-After` as
 * seconds or as an HTTP date (relative to `now`). `undefined` when absent or unreadable.
 */
export function parseRetryAfter(headers: Headers, now: number): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "" && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers.get("retry-after");
  if (value === null || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
