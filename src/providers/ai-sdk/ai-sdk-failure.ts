/**
 * What an AI SDK model threw or streamed as an error, in words and in the structured
 * {@link ProviderFailure} details `withRetry` reads.
 *
 * The SDK's error classes are recognised by the global symbols they carry (the way the SDK
 * itself tells them apart across package versions), so nothing of `@ai-sdk/provider` is
 * needed at run time.
 *
 * @internal
 * @module
 */
import { describeError } from "../../model/describe-error.js";
import { isRetryableCode, isRetryableStatus, parseRetryAfter, type ProviderFailure } from "../shared/provider-failure.js";
import { describeNetworkError, StreamFailure, truncate } from "../shared/stream-failure.js";

/**
 * A failure as the final message states it, with the details when they are known.
 *
 * @example
 * ```ts
 * const { message, failure }: AiSdkFailure = describeAiSdkFailure(error, "call", Date.now());
 * ```
 */
export interface AiSdkFailure {
  message: string;
  failure?: ProviderFailure;
}

const API_CALL_ERROR = Symbol.for("vercel.ai.error.AI_APICallError");
const STREAM_ERROR = Symbol.for("vercel.ai.providerStreamError");
/** Errors the SDK raises when a response could not be parsed or did not fit its schema. */
const PROTOCOL_ERRORS = new Set(["AI_TypeValidationError", "AI_JSONParseError", "AI_InvalidResponseDataError", "AI_EmptyResponseBodyError"]);

type Fields = Record<PropertyKey, unknown>;

function hasMarker(error: unknown, marker: symbol): error is Fields {
  return error !== null && typeof error === "object" && (error as Fields)[marker] === true;
}

function stringField(record: unknown, ...names: string[]): string | undefined {
  if (record === null || typeof record !== "object") return undefined;
  for (const name of names) {
    const value = (record as Fields)[name];
    if (typeof value === "string" && value) return value;
  }
  return undefined;
}

/** The provider's error code in a parsed error body: OpenAI's `error.code`, Anthropic's `error.type`. */
function codeOf(data: unknown): string | undefined {
  const inner = data !== null && typeof data === "object" ? (data as Fields).error : undefined;
  return stringField(inner, "code", "type") ?? stringField(data, "code");
}

function withCode(message: string, code: string | undefined): string {
  return code && !message.includes(code) ? `${message} [${code}]` : message;
}

/** An `APICallError`: an HTTP status, a connection that failed, or a successful response whose body broke off. */
function apiCallFailure(error: Fields, now: number): AiSdkFailure {
  const status = typeof error.statusCode === "number" ? error.statusCode : undefined;
  // The SDK reports a 2xx body it could not finish reading as "Failed to process successful response": the cause says why.
  if (status !== undefined && status >= 200 && status < 300) return describeAiSdkFailure(error.cause ?? new TypeError(String(error.message)), "read", now);
  const text = truncate(typeof error.message === "string" && error.message ? error.message : "the request failed", 1000);
  const code = codeOf(error.data);
  const retryable = typeof error.isRetryable === "boolean" ? error.isRetryable : status !== undefined && isRetryableStatus(status);
  if (status === undefined) return { message: `Network error: ${text}`, failure: { kind: "network", retryable } };
  const headers = error.responseHeaders && typeof error.responseHeaders === "object" ? new Headers(error.responseHeaders as Record<string, string>) : undefined;
  const retryAfterMs = headers ? parseRetryAfter(headers, now) : undefined;
  return {
    message: withCode(`HTTP ${status}: ${text}`, code),
    failure: { kind: "http", status, ...(code !== undefined ? { code } : {}), ...(retryAfterMs !== undefined ? { retryAfterMs } : {}), retryable },
  };
}

/** An `error` part: the SDK's provider stream error, or whatever the provider put there. */
function streamPartFailure(error: unknown): AiSdkFailure {
  const fields = (error !== null && typeof error === "object" ? error : {}) as Fields;
  const text = typeof error === "string" ? error : (stringField(fields, "message") ?? describeError(error));
  const code = stringField(fields, "code", "type") ?? codeOf(fields.data);
  const status = typeof fields.statusCode === "number" ? fields.statusCode : undefined;
  const retryable =
    typeof fields.isRetryable === "boolean" ? fields.isRetryable : isRetryableCode(code) || (status !== undefined && isRetryableStatus(status)) || /overloaded/i.test(text);
  return {
    message: withCode(`The provider reported an error mid-stream: ${truncate(text, 1000)}`, code),
    failure: { kind: "stream", ...(code !== undefined ? { code } : {}), ...(status !== undefined ? { status } : {}), retryable },
  };
}

/**
 * Describes a failure of `doStream` (`phase: "call"`), of reading its stream (`"read"`), or an
 * `error` part inside it (`"part"`). `now` reads a `Retry-After` date.
 *
 * @example
 * ```ts
 * describeAiSdkFailure(apiCallError, "call", Date.now());
 * // { message: "HTTP 429: Rate limited [rate_limit_error]", failure: { kind: "http", status: 429, retryable: true, ... } }
 * ```
 */
export function describeAiSdkFailure(error: unknown, phase: "call" | "read" | "part", now: number): AiSdkFailure {
  if (error instanceof StreamFailure) return { message: error.message, failure: error.failure };
  if (hasMarker(error, API_CALL_ERROR)) return apiCallFailure(error, now);
  if (phase === "part" || hasMarker(error, STREAM_ERROR)) return streamPartFailure(error);
  const name = error instanceof Error ? error.name : undefined;
  if (name !== undefined && PROTOCOL_ERRORS.has(name)) {
    return { message: `The provider's response could not be read: ${truncate(describeError(error), 1000)}`, failure: { kind: "protocol", retryable: false } };
  }
  if (phase === "read") {
    // A body that broke off fails as a TypeError ("terminated"); anything else is the stream's own complaint.
    if (error instanceof TypeError) return { message: `Network error while streaming the response: ${describeNetworkError(error)}`, failure: { kind: "network", retryable: true } };
    return { message: `The provider's stream failed: ${truncate(describeError(error), 1000)}`, failure: { kind: "protocol", retryable: false } };
  }
  // Thrown before any request: an invalid prompt, an unsupported feature, a resolver that failed.
  return { message: describeError(error) };
}
