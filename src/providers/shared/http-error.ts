/**
 * A non-2xx HTTP response as a readable failure: the status, and the provider's own message
 * from the body (OpenAI's `{ error: { message, type, code } }`, a plain `{ error: "..." }`,
 * FastAPI's `{ detail }`, or the raw text).
 *
 * @internal
 * @module
 */
import { isRetryableStatus, parseRetryAfter } from "./provider-failure.js";
import { StreamFailure, truncate } from "./stream-failure.js";

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
    else result.message = truncate(JSON.stringify(error));
    if (code !== undefined) result.code = code;
    return result;
  }
  return { message: truncate(text.trim()) };
}

/**
 * Reads the failed response and describes it, e.g.
 * `HTTP 401 Unauthorized: Incorrect API key provided [invalid_api_key]`.
 *
 * @param response - A response whose `ok` is false.
 * @param now - The current time, to read a `Retry-After` date.
 * @param prefix - Put before the description (e.g. `Proxy error: `).
 */
export async function httpFailure(response: Response, now: number, prefix = ""): Promise<StreamFailure> {
  let text = "";
  try {
    text = await response.text();
  } catch {
    // The body could not be read; the status alone still says what happened.
  }
  const body = readErrorBody(text);
  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
  const detail = body.message ? `: ${body.message}` : "";
  const code = body.code && !(body.message ?? "").includes(body.code) ? ` [${body.code}]` : "";
  const retryAfterMs = parseRetryAfter(response.headers, now);
  return new StreamFailure(`${prefix}${status}${detail}${code}`, {
    kind: "http",
    status: response.status,
    ...(body.code !== undefined ? { code: body.code } : {}),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    retryable: isRetryableStatus(response.status),
  });
}
