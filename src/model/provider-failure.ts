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

/** What a provider's error code looks like (`rate_limit_exceeded`, `server_error`, `429`): anything else is not kept. */
const PLAIN_CODE = /^[A-Za-z0-9_.:-]{1,64}$/;

/**
 * Attaches failure details to a final `error` message. Returns the message. A `code` that is not
 * a plain code (an upstream can put anything there, a key it echoes included) is left out.
 */
export function recordProviderFailure(message: AssistantMessage, failure: ProviderFailure): AssistantMessage {
  if (failure.code !== undefined && !PLAIN_CODE.test(failure.code)) {
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
