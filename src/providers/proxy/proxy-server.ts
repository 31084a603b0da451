/**
 * The server side of the stream proxy: a fetch-style handler, `(request: Request) =>
 * Promise<Response>`, that authenticates a bearer token, runs a server-side `StreamFn` (which
 * holds the provider key) on a server-defined model and streams its events to the browser as
 * server-sent events with the bulky `partial` stripped.
 *
 * What it trusts from the browser: the transcript, the model's `id` (and `api`) to pick one of
 * the server's models, and a few options within bounds. Nothing else of the client's model
 * (`baseUrl`, `headers`, `provider`, ...) reaches the upstream call.
 *
 * It runs wherever web `Request`/`Response` do: Deno, Bun, Cloudflare Workers, Hono, Next.js
 * route handlers, and Node's `http` through `rxagent/proxy/node`. Cancellation goes both ways:
 * the client closing the connection (or the server cancelling the body) aborts the upstream
 * request; an upstream failure reaches the client as the final `error` event.
 *
 * @module
 */
import { describeError } from "../../model/describe-error.js";
import type { Model, StreamOptions } from "../../model/messages.js";
import { bearerToken, StreamSlots, tokenMatcher } from "./proxy-auth.js";
import { declaredTooLarge, readBodyText } from "./proxy-body.js";
import { logProxyError, proxyError } from "./proxy-error.js";
import { modelResolver } from "./proxy-models.js";
import { DEFAULT_BODY_TIMEOUT_MS, DEFAULT_MAX_BODY_BYTES, type ProxyHandlerOptions } from "./proxy-options.js";
import { checkRequestBody, clampMaxTokens, clampThinkingBudgets, type CheckedRequest } from "./proxy-request.js";
import { upstreamEventStream, type UpstreamCall } from "./proxy-upstream.js";

export type { ProxyHandlerOptions, ProxyModelRequest, ProxyModels, ProxyRequestBody, ProxyRequestOptions } from "./proxy-options.js";

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}

/** The values of a headers record, which may carry credentials to redact from logs. */
function headerValues(headers: unknown): string[] {
  return headers && typeof headers === "object" ? Object.values(headers).filter((v): v is string => typeof v === "string") : [];
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!(value > 0) || !Number.isFinite(value)) throw new TypeError(`createProxyHandler: \`${name}\` must be a positive number, got ${String(value)}`);
  return value;
}

/**
 * Creates the proxy's request handler. Requires `token` or `authorize`, and `models` or
 * `resolveModel` (it throws without them: there is no "call what the client asks" mode).
 *
 * Answers, in this order: `405` to anything but `POST`; `401` (with `WWW-Authenticate: Bearer`)
 * to a missing or wrong token, before any of the body is read; `429` (with `Retry-After`) over
 * `maxConcurrentPerToken`, also before the body (an upload holds its slot); `413` to a body over
 * `maxBodyBytes` (by `Content-Length` before reading, or while reading); `408` to a body slower
 * than `bodyTimeoutMs`; `400` to a body that is not `{ model: { id }, context: { messages } }` or
 * has options out of bounds; `403` to a model the server does not serve; `500` when a hook
 * throws; otherwise `200` with a `text/event-stream` of `ProxyEvent`s that always ends with
 * `done` or `error`.
 *
 * @example
 * ```ts
 * import { createProxyHandler } from "rxagent/proxy";
 * import { openaiCompatible } from "rxagent/openai";
 *
 * const handler = createProxyHandler({
 *   streamFn: openaiCompatible({ apiKey: process.env.OPENAI_API_KEY }),
 *   models: [{ id: "gpt-4o-mini", api: "openai-completions", provider: "openai", maxTokens: 4096 }],
 *   authorize: (token) => sessions.isValid(token),
 * });
 * Bun.serve({ fetch: (request) => handler(request) }); // or Deno.serve(handler), a Worker, ...
 * ```
 * @param options - The upstream `StreamFn`, the models, authentication and limits.
 * @return The handler.
 * @see streamProxy for the client.
 */
export function createProxyHandler(options: ProxyHandlerOptions): (request: Request) => Promise<Response> {
  // A configured token is checked even beside `authorize`: a blank one is a configuration error.
  const matches = options.token !== undefined ? tokenMatcher(options.token) : undefined;
  if (!options.authorize && !matches) throw new TypeError("createProxyHandler: give a `token` or an `authorize` function");
  const resolve = modelResolver(options);
  const maxBodyBytes = positive(options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES, "maxBodyBytes");
  const bodyTimeoutMs = positive(options.bodyTimeoutMs, DEFAULT_BODY_TIMEOUT_MS, "bodyTimeoutMs");
  const slots = options.maxConcurrentPerToken !== undefined ? new StreamSlots(positive(options.maxConcurrentPerToken, 0, "maxConcurrentPerToken")) : undefined;
  const log = options.onError ?? logProxyError;
  // A logger that throws must not break the response it reports on.
  const onError: NonNullable<ProxyHandlerOptions["onError"]> = (error, request) => {
    try {
      log(error, request);
    } catch {
      // Nothing else to tell: the report itself failed.
    }
  };

  return async (request) => {
    if (request.method !== "POST") return json(405, { error: "Method not allowed: POST a stream request" }, { allow: "POST" });
    const token = bearerToken(request);
    const secrets = [token, options.token];
    // The slot is held from the token check on, so an upload counts as a stream: one token
    // cannot hold more bodies in flight than streams. Every answer but the stream frees it here.
    let release = () => undefined as void;
    let streaming = false;
    try {
      const allowed = options.authorize ? await options.authorize(token, request) : await matches!(token);
      if (!allowed) return json(401, { error: token === undefined ? "Missing access token" : "Invalid access token" }, { "www-authenticate": 'Bearer realm="rxagent-proxy"' });
      if (slots) {
        const slot = slots.acquire(options.slotKey ? options.slotKey(request, token) : token);
        if (!slot) return json(429, { error: `Too many concurrent streams for this token (limit ${slots.limit})` }, { "retry-after": "1" });
        release = slot;
      }

      const declared = declaredTooLarge(request, maxBodyBytes);
      if (declared) return json(declared.status, { error: declared.error });
      const text = await readBodyText(request, maxBodyBytes, bodyTimeoutMs);
      if (typeof text !== "string") return json(text.status, { error: text.error });
      const checked = checkRequestBody(text);
      if (typeof checked === "string") return json(400, { error: checked });

      const model = await resolve(checked.requested, request);
      if (!model) return json(403, { error: `Model not allowed: ${JSON.stringify(checked.requested.id.slice(0, 100))}` });
      const apiKey = await options.getApiKey?.(model.provider);
      secrets.push(apiKey, ...headerValues(options.streamOptions?.headers), ...headerValues(model.headers));
      const call = upstreamCall(options, request, checked, model, apiKey, release, secrets, (error) => onError(error, request));
      release = call.release;
      const response = new Response(upstreamEventStream(options.streamFn, call), {
        status: 200,
        headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" },
      });
      // From here the stream frees the slot: when it ends, or when its client leaves.
      streaming = true;
      return response;
    } catch (error) {
      onError(proxyError(`The proxy failed to handle a request: ${describeError(error)}`, secrets), request);
      return json(500, { error: "The proxy failed to handle the request" });
    } finally {
      if (!streaming) release();
    }
  };
}

/**
 * Prepares the upstream call on the server's model and ties it to the client connection: the
 * client leaving aborts it. The server's `streamOptions` win over the client's options.
 */
function upstreamCall(
  options: ProxyHandlerOptions,
  request: Request,
  checked: CheckedRequest,
  model: Model,
  apiKey: string | undefined,
  releaseSlot: () => void,
  secrets: (string | undefined)[],
  report: UpstreamCall["report"],
): UpstreamCall {
  const upstream = new AbortController();
  const onClientGone = () => upstream.abort(request.signal.reason);
  request.signal.addEventListener("abort", onClientGone, { once: true });
  const { maxTokens, thinkingBudgets, ...asked } = checked.options;
  const clamped = clampMaxTokens(maxTokens, model, options.maxOutputTokens);
  const budgets = clampThinkingBudgets(thinkingBudgets, model, options.maxOutputTokens);
  const streamOptions: StreamOptions = {
    ...asked,
    ...(clamped !== undefined ? { maxTokens: clamped } : {}),
    ...(budgets !== undefined ? { thinkingBudgets: budgets } : {}),
    ...options.streamOptions,
    signal: upstream.signal,
  };
  if (apiKey !== undefined) streamOptions.apiKey = apiKey;
  const release = () => {
    request.signal.removeEventListener("abort", onClientGone);
    releaseSlot();
  };
  return { model, context: { messages: checked.messages }, streamOptions, upstream, secrets, report, release };
}
