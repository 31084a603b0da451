/**
 * A non-2xx HTTP response as a readable failure: the status, and the provider's own message
 * from the body (OpenAI's `{ error: { message, type, code } }`, a plain `{ error: "..." }`,
 * FastAPI's `{ detail }`, or the raw text). Only the start of the body is read, and
 * credentials the server echoes are redacted: the text reaches the model and the UI.
 *
 * @internal
 * @module
 */
import { redactSecrets } from "../../model/redact-secrets.js";
import { readBoundedText } from "./bounded-body.js";
import { isRetryableStatus, parseRetryAfter } from "./provider-failure.js";
import { jsonText, StreamFailure, truncate } from "./stream-failure.js";

/**
 * The most bytes of an error body read (64 KiB): far more than any provider's error message,
 * while a server that answers a failure with a gigabyte costs no more than this.
 */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

interface ErrorBody {
  message?: string;
  code?: string;
}

function readErrorBody(text: string): ErrorBody {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return text.trim() ? { message: truncate(text.trim()) } : {};
  }
  const root = json as Record<string, unknown> | null;
  const error = root && typeof root === "object" ? (root.error ?? root) : undefined;
  if (typeof error === "string") return { message: error };
  if (error && typeof error === "object") {
    const fields = error as Record<string, unknown>;
    const message = [fields.message, fields.detail, fields.msg].find((value): value is string => typeof value === "string");
    const code = [fields.code, fields.type].find((value): value is string => typeof value === "string");
    const result: ErrorBody = {};
    if (message !== undefined) result.message = truncate(message, 1000);
    else result.message = truncate(jsonText(error));
    if (code !== undefined) result.code = code;
    return result;
  }
  return { message: truncate(text.trim()) };
}

/**
 * Reads the start of the failed response (at most {@link MAX_ERROR_BODY_BYTES}) and describes
 * it, e.g. `HTTP 401 Unauthorized: Incorrect API key provided: [redacted] [invalid_api_key]`.
 *
 * @example
 * ```ts
 * if (!response.ok) throw await httpFailure(response, Date.now(), "Proxy error: ", [token]);
 * ```
 * @param response - A response whose `ok` is false.
 * @param now - The current time, to read a `Retry-After` date.
 * @param prefix - Put before the description (e.g. `Proxy error: `).
 * @param secrets - Keys and header values the request carried, redacted from the text along with
 *   bearer credentials and common key shapes.
 * @return The failure, to throw.
 */
export async function httpFailure(response: Response, now: number, prefix = "", secrets: readonly (string | undefined)[] = []): Promise<StreamFailure> {
  // A body that cannot be read leaves "": the status alone still says what happened.
  const text = await readBoundedText(response.body, MAX_ERROR_BODY_BYTES).catch(() => "");
  // Redacted whole, before anything is cut: a key split by a cut is no longer recognisable.
  const body = readErrorBody(redactSecrets(text, secrets));
  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
  const detail = body.message ? `: ${body.message}` : "";
  const code = body.code && !(body.message ?? "").includes(body.code) ? ` [${body.code}]` : "";
  const retryAfterMs = parseRetryAfter(response.headers, now);
  return new StreamFailure(redactSecrets(`${prefix}${status}${detail}${code}`, secrets), {
    kind: "http",
    status: response.status,
    ...(body.code !== undefined ? { code: body.code } : {}),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    retryable: isRetryableStatus(response.status),
  });
}
