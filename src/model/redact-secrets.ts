/**
 * Taking credentials out of text that leaves the process: error messages a browser or a model
 * reads, span statuses, logs. An upstream server may echo the key it was sent (`Incorrect API
 * key provided: sk-…`), so any error text built from a response body passes through here.
 *
 * @module
 */

/** What a redacted credential is replaced with. */
export const REDACTED = "[redacted]";

/** Bearer and basic credentials (RFC 6750's token characters), in headers or quoted into text. */
const AUTH_SCHEME = /\b(Bearer|Basic)(\s+)([A-Za-z0-9\-._~+/]+=*)/gi;
/** A credential has a digit or a punctuation character, or is long and of mixed case (base64); prose ("a bearer token") is neither. */
function credentialLike(token: string): boolean {
  return /[0-9\-._~+/=]/.test(token) || (token.length >= 12 && /[a-z]/.test(token) && /[A-Z]/.test(token));
}
/** Key shapes providers hand out: `sk-…`, `sk-ant-…`, `sk-proj-…`, `gsk_…`, `xai-…`, `AIza…`. */
const KEY_SHAPES = /\b(?:sk-[A-Za-z0-9_-]{12,}|gsk_[A-Za-z0-9]{12,}|xai-[A-Za-z0-9]{12,}|AIza[0-9A-Za-z_-]{30,})/g;
/** Shorter secrets are not searched for: a 2-letter "key" would redact ordinary words. */
const MIN_SECRET_LENGTH = 6;

/**
 * Replaces every occurrence of the given secrets, bearer/basic credentials and common API-key
 * shapes in `text` with `[redacted]`.
 *
 * @example
 * ```ts
 * redactSecrets("Incorrect API key provided: sk-abcdefghijklmnop", []);
 * // "Incorrect API key provided: [redacted]"
 * redactSecrets("token my-server-key rejected", ["my-server-key"]);
 * // "token [redacted] rejected"
 * ```
 * @param text - The text to clean.
 * @param secrets - Keys and tokens this process holds (`undefined` entries are skipped).
 * @return The text without them.
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[] = []): string {
  let result = text;
  // Longest first, so a secret that contains another is replaced whole.
  const known = secrets.filter((s): s is string => typeof s === "string" && s.trim().length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
  for (const secret of known) result = result.split(secret).join(REDACTED);
  return result
    .replace(AUTH_SCHEME, (match: string, scheme: string, space: string, token: string) => (credentialLike(token) ? `${scheme}${space}${REDACTED}` : match))
    .replace(KEY_SHAPES, REDACTED);
}

/**
 * `message` with its `errorMessage` redacted; the same object when there was nothing to redact.
 * The loop applies it to every final answer, whichever provider made it, with the key it passed.
 *
 * @example
 * ```ts
 * redactErrorMessage(failed, [options.apiKey]).errorMessage; // "HTTP 401: Incorrect API key provided: [redacted]"
 * ```
 */
export function redactErrorMessage<M extends { errorMessage?: string }>(message: M, secrets: readonly (string | undefined)[] = []): M {
  const text = message.errorMessage;
  if (typeof text !== "string" || text === "") return message;
  const redacted = redactSecrets(text, secrets);
  return redacted === text ? message : { ...message, errorMessage: redacted };
}
