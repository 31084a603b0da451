/**
 * Failures the proxy keeps on the server: the browser gets a generic text and the failure's
 * kind, status, sanitized code and wait (so `withRetry` on the client still works); the
 * server's log gets the detail, secrets redacted.
 *
 * @module
 */
import { redactSecrets } from "../../model/redact-secrets.js";
import { isSafeFailureCode } from "../../model/provider-failure.js";
import type { ProviderFailure, ProviderFailureKind } from "../shared/provider-failure.js";

/**
 * A failure for the server's log (`onError`). `message` is the full detail with every key and
 * token the handler saw replaced by `[redacted]`; `failure` is what the client was told.
 *
 * @example
 * ```ts
 * createProxyHandler({ ..., onError: (error) => logger.warn({ failure: error.failure }, error.message) });
 * ```
 */
export class ProxyError extends Error {
  constructor(
    message: string,
    readonly failure?: ProviderFailure,
  ) {
    super(message);
    this.name = "ProxyError";
  }
}

/** The default `onError`: one line on `console.error` (the message is already redacted). */
export function logProxyError(error: ProxyError): void {
  console.error(`rxagent proxy: ${error.message}`);
}

/** A `ProxyError` from upstream text, with `secrets` and credential shapes redacted. */
export function proxyError(text: string, secrets: readonly (string | undefined)[], failure?: ProviderFailure): ProxyError {
  return new ProxyError(redactSecrets(text, secrets), failure);
}

const KINDS = new Set<ProviderFailureKind>(["http", "network", "stream", "protocol", "refused"]);

/**
 * The failure details the client may see: known kinds, plausible values, no text. `secrets` are
 * the keys and tokens of the call: an upstream may echo its key as the error `code` (a hex key
 * fits the code shape), so a code that holds one, or is a long piece of one, is dropped.
 *
 * @example
 * ```ts
 * publicFailure({ kind: "http", status: 429, code: "a1b2c3d4e5f6a7b8c9d0", retryable: true }, ["a1b2c3d4e5f6a7b8c9d0"]);
 * // { kind: "http", status: 429, retryable: true }
 * ```
 */
export function publicFailure(failure: ProviderFailure, secrets: readonly (string | undefined)[] = []): ProviderFailure | undefined {
  if (!KINDS.has(failure.kind)) return undefined;
  const safe: ProviderFailure = { kind: failure.kind, retryable: failure.retryable === true };
  if (Number.isInteger(failure.status) && failure.status! >= 100 && failure.status! <= 599) safe.status = failure.status!;
  if (isSafeFailureCode(failure.code, secrets)) safe.code = failure.code;
  if (typeof failure.retryAfterMs === "number" && Number.isFinite(failure.retryAfterMs) && failure.retryAfterMs >= 0) safe.retryAfterMs = failure.retryAfterMs;
  return safe;
}

/** What the browser reads for a failed upstream call: the kind of failure, no upstream words. */
export function publicFailureText(failure: ProviderFailure | undefined): string {
  if (!failure) return "The upstream provider failed";
  const label = failure.kind === "http" ? (failure.status !== undefined ? `HTTP ${failure.status}` : "HTTP error") : failure.kind === "refused" ? "refused" : `${failure.kind} error`;
  return `The upstream provider failed (${label})`;
}
