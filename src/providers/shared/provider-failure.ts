/**
 * Why a provider request failed, kept beside the final `error` message so wrappers such as
 * `withRetry` can decide without parsing `errorMessage`.
 *
 * The message itself stays a plain pi-ai–compatible `AssistantMessage`; the details live in a
 * `WeakMap` keyed by that message, so nothing leaks into transcripts or over the wire.
 *
 * @module
 */
import type { AssistantMessage } from "../../model/messages.js";

/**
 * What went wrong: `http` (a non-2xx status), `network` (the connection failed or closed
 * early), `stream` (the provider sent an error object inside the stream), `protocol` (the
 * stream could not be understood), `refused` (the provider stopped the output, e.g.
 * `content_filter`).
 */
export type ProviderFailureKind = "http" | "network" | "stream" | "protocol" | "refused";

/** Details of a failed request, as recorded by the rxagent providers. */
export interface ProviderFailure {
  kind: ProviderFailureKind;
  /** The HTTP status, for `http` failures. */
  status?: number;
  /** The provider's error code or type (`rate_limit_exceeded`, `server_error`, ...). */
  code?: string;
  /** How long the provider asked to wait (`Retry-After`, `retry-after-ms`), in milliseconds. */
  retryAfterMs?: number;
  /** Whether trying again could succeed: 408, 409, 429, 5xx, overloaded, network. */
  retryable: boolean;
}

const failures = new WeakMap<AssistantMessage, ProviderFailure>();

/** Attaches failure details to a final `error` message. Returns the message. */
export function recordProviderFailure(message: AssistantMessage, failure: ProviderFailure): AssistantMessage {
  failures.set(message, failure);
  return message;
}

/**
 * The failure details recorded for `message` by an rxagent provider, or `undefined` for
 * messages from other providers (pi-ai's, custom ones).
 */
export function getProviderFailure(message: AssistantMessage): ProviderFailure | undefined {
  return failures.get(message);
}

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
