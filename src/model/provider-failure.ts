/**
 * Why a provider request failed, kept beside the final `error` message so wrappers such as
 * `withRetry` and the tracing can decide without parsing `errorMessage`.
 *
 * The message itself stays a plain pi-ai–compatible `AssistantMessage`; the details live in a
 * `WeakMap` keyed by that message, so nothing leaks into transcripts or over the wire. When the
 * loop replaces a final message with a copy (a redacted `errorMessage`), it carries them over.
 *
 * @module
 */
import type { AssistantMessage } from "./messages.js";
import { redactSecrets } from "./redact-secrets.js";

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

/** What a provider's error code looks like (`rate_limit_exceeded`, `server_error`, `429`). */
const PLAIN_CODE = /^[A-Za-z0-9_.:-]{1,64}$/;
/** A code this long that occurs inside a key is a piece of it; shorter ones ("a1b2") may match by chance and reveal little. */
const MIN_SECRET_PIECE = 8;

/**
 * Whether an error code an upstream sent may be kept: a plain code that redaction leaves alone
 * (no key shape, none of `secrets`) and that is no long piece of a secret. An upstream can put
 * anything in that field, the key it was sent included (a hex key fits the code shape).
 *
 * @example
 * ```ts
 * isSafeFailureCode("rate_limit_exceeded");                          // true
 * isSafeFailureCode("a1b2c3d4e5f6a7b8c9d0", ["a1b2c3d4e5f6a7b8c9d0"]); // false
 * ```
 */
export function isSafeFailureCode(code: unknown, secrets: readonly (string | undefined)[] = []): code is string {
  if (typeof code !== "string" || !PLAIN_CODE.test(code) || redactSecrets(code, secrets) !== code) return false;
  return code.length < MIN_SECRET_PIECE || !secrets.some((secret) => typeof secret === "string" && secret.includes(code));
}

/**
 * Attaches failure details to a final `error` message. Returns the message. A `code` that is
 * not a plain code ({@link isSafeFailureCode}) is left out.
 */
export function recordProviderFailure(message: AssistantMessage, failure: ProviderFailure): AssistantMessage {
  if (failure.code !== undefined && !isSafeFailureCode(failure.code)) {
    const { code: _dropped, ...plain } = failure;
    failures.set(message, plain);
  } else {
    failures.set(message, failure);
  }
  return message;
}

/**
 * The failure details recorded for `message` by an rxagent provider, or `undefined` for
 * messages from other providers (pi-ai's, custom ones).
 */
export function getProviderFailure(message: AssistantMessage): ProviderFailure | undefined {
  return failures.get(message);
}

/** Gives `copy` the failure details recorded for `original`, if any. Returns `copy`. */
export function carryProviderFailure<M extends AssistantMessage>(original: AssistantMessage, copy: M): M {
  const failure = failures.get(original);
  if (failure !== undefined && copy !== original) failures.set(copy, failure);
  return copy;
}
