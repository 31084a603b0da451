/**
 * The server side of the stream proxy: a fetch-style handler, `(request: Request) =>
 * Promise<Response>`, that authenticates a bearer token, runs a server-side `StreamFn` (which
 * holds the provider key) and streams its events to the browser as server-sent events with
 * the bulky `partial` stripped.
 *
 * It runs wherever web `Request`/`Response` do: Deno, Bun, Cloudflare Workers, Hono, Next.js
 * route handlers, and Node's `http` through `rxagent/proxy/node`. Cancellation goes both ways:
 * the client closing the connection (or the server cancelling the body) aborts the upstream
 * request; an upstream failure reaches the client as the final `error` event.
 *
 * @module
 */
import type { Subscription } from "rxjs";
import { failedAssistantMessage } from "../../model/assistant-message.js";
import { describeError } from "../../model/describe-error.js";
import type { AssistantMessageEvent, LlmContext, Model, StreamFn, StreamOptions, ThinkingBudgets, ThinkingLevel } from "../../model/messages.js";
import { ProxyEventEncoder } from "./proxy-events.js";
import { callStreamFn, StreamFnFailure } from "../../stream/stream-fn-call.js";

/** The request body the proxy client sends. */
export interface ProxyRequestBody {
  model: Model;
  context: LlmContext;
  options?: ProxyRequestOptions;
}

/** The per-request options a client may set; everything else (keys, headers) stays on the server. */
export interface ProxyRequestOptions {
  reasoning?: Exclude<ThinkingLevel, "off">;
  maxTokens?: number;
  temperature?: number;
  sessionId?: string;
  thinkingBudgets?: ThinkingBudgets;
}

/** Configuration of {@link createProxyHandler}. */
export interface ProxyHandlerOptions {
  /** Calls the real provider (e.g. `openaiCompatible({ apiKey: process.env.OPENAI_API_KEY })`). */
  streamFn: StreamFn;
  /** The bearer token clients must send. Use `authorize` for per-user tokens. */
  token?: string;
  /** Decides whether a bearer token (`undefined` when none was sent) may use the proxy. */
  authorize?: (token: string | undefined, request: Request) => boolean | PromiseLike<boolean>;
  /**
   * The model to call for the one the client asked for, or `undefined` to refuse it (403).
   * Use it to allow-list models or to fill in server-side fields (`baseUrl`). Default: as asked.
   */
  resolveModel?: (requested: Model, request: Request) => Model | undefined | PromiseLike<Model | undefined>;
  /** The provider key for a request, passed to `streamFn` as `options.apiKey`. */
  getApiKey?: (provider: string) => string | undefined | PromiseLike<string | undefined>;
  /**
   * Options for every upstream call: server-side headers, a scheduler, or limits. They win over
   * what the client asked for (set `maxTokens` here to cap it).
   */
  streamOptions?: Omit<StreamOptions, "signal" | "apiKey">;
}

const bytes = new TextEncoder();
const REASONING_LEVELS = new Set(["minimal", "low", "medium", "high", "xhigh", "max"]);

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}

/** Compares two strings in time that does not depend on where they differ. */
function sameToken(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  return diff === 0;
}

function bearer(request: Request): string | undefined {
  const match = /^Bearer\s+(.+)$/i.exec(request.headers.get("authorization") ?? "");
  return match ? match[1]!.trim() : undefined;
}

function pickOptions(options: unknown): ProxyRequestOptions {
  const picked: ProxyRequestOptions = {};
  if (!options || typeof options !== "object") return picked;
  const o = options as Record<string, unknown>;
  if (typeof o.reasoning === "string" && REASONING_LEVELS.has(o.reasoning)) picked.reasoning = o.reasoning as ProxyRequestOptions["reasoning"];
  if (typeof o.maxTokens === "number") picked.maxTokens = o.maxTokens;
  if (typeof o.temperature === "number") picked.temperature = o.temperature;
  if (typeof o.sessionId === "string") picked.sessionId = o.sessionId;
  if (o.thinkingBudgets && typeof o.thinkingBudgets === "object") picked.thinkingBudgets = o.thinkingBudgets as ThinkingBudgets;
  return picked;
}

/** What the client reads when the upstream call failed. */
function upstreamFailureText(error: unknown): string {
  if (!(error instanceof StreamFnFailure)) return `The upstream provider failed: ${describeError(error)}`;
  if (error.kind === "incomplete") return "The upstream provider ended without a final done or error event";
  return `The upstream provider failed: ${error.cause !== undefined ? describeError(error.cause) : error.message}`;
}

function isModel(value: unknown): value is Model {
  const m = value as Record<string, unknown> | null;
  return !!m && typeof m === "object" && typeof m.id === "string" && typeof m.api === "string" && typeof m.provider === "string";
}

/**
 * Creates the proxy's request handler.
 *
 * Answers `405` to anything but `POST`, `401` (with `WWW-Authenticate: Bearer`) to a missing
 * or wrong token, `400` to a body that is not `{ model, context: { messages } }`, `403` to a
 * model `resolveModel` refuses, and otherwise `200` with a `text/event-stream` of
 * {@link ProxyEvent}s that always ends with `done` or `error`.
 *
 * @example
 * ```ts
 * import { createProxyHandler } from "rxagent/proxy";
 * import { openaiCompatible } from "rxagent/openai";
 *
 * const handler = createProxyHandler({
 *   streamFn: openaiCompatible({ apiKey: process.env.OPENAI_API_KEY }),
 *   authorize: (token) => sessions.isValid(token),
 * });
 * Bun.serve({ fetch: (request) => handler(request) }); // or Deno.serve(handler), a Worker, ...
 * ```
 * @param options - The upstream `StreamFn`, authentication and policy.
 * @return The handler.
 * @see streamProxy for the client.
 */
export function createProxyHandler(options: ProxyHandlerOptions): (request: Request) => Promise<Response> {
  return async (request) => {
    const accepted = await acceptRequest(options, request);
    if (accepted instanceof Response) return accepted;
    const stream = upstreamEventStream(options.streamFn, startUpstreamCall(options, request, accepted));
    return new Response(stream, {
      status: 200,
      headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" },
    });
  };
}

/** A request that passed every check: the body, the model to call and its provider key. */
interface AcceptedRequest {
  body: ProxyRequestBody;
  model: Model;
  apiKey: string | undefined;
}

/** One upstream call of an accepted request, and the means to end it. */
interface UpstreamCall {
  model: Model;
  context: LlmContext;
  /** Carries the upstream signal: aborting `upstream` cancels the provider request. */
  streamOptions: StreamOptions;
  upstream: AbortController;
  /** Stops watching the client connection, once the stream is over. */
  release: () => void;
}

/**
 * Checks a request in order (method, bearer token, body, model) and returns what to call, or
 * the error `Response` of the first check it fails.
 */
async function acceptRequest(options: ProxyHandlerOptions, request: Request): Promise<AcceptedRequest | Response> {
  if (request.method !== "POST") return json(405, { error: "Method not allowed: POST a stream request" }, { allow: "POST" });

  const token = bearer(request);
  const allowed = options.authorize
    ? await options.authorize(token, request)
    : options.token !== undefined && token !== undefined && sameToken(token, options.token);
  if (!allowed) {
    return json(401, { error: token === undefined ? "Missing bearer token" : "Invalid bearer token" }, { "www-authenticate": 'Bearer realm="rxagent-proxy"' });
  }

  const body = await readBody(request);
  if (body instanceof Response) return body;
  const model = options.resolveModel ? await options.resolveModel(body.model, request) : body.model;
  if (!model) return json(403, { error: `Model not allowed: ${body.model.provider}/${body.model.id}` });
  const apiKey = await options.getApiKey?.(model.provider);
  return { body, model, apiKey };
}

/** Parses the request body, or returns the `400` for one that is not a stream request. */
async function readBody(request: Request): Promise<ProxyRequestBody | Response> {
  let body: ProxyRequestBody;
  try {
    body = (await request.json()) as ProxyRequestBody;
  } catch {
    return json(400, { error: "The request body is not JSON" });
  }
  if (!body || !isModel(body.model) || !body.context || !Array.isArray(body.context.messages)) {
    return json(400, { error: "Expected a JSON body { model: { id, api, provider }, context: { messages: [] }, options? }" });
  }
  return body;
}

/** Prepares the upstream call and ties it to the client connection: the client leaving aborts it. */
function startUpstreamCall(options: ProxyHandlerOptions, request: Request, { body, model, apiKey }: AcceptedRequest): UpstreamCall {
  const upstream = new AbortController();
  const onClientGone = () => upstream.abort(request.signal.reason);
  request.signal.addEventListener("abort", onClientGone, { once: true });
  const streamOptions: StreamOptions = { ...pickOptions(body.options), ...options.streamOptions, signal: upstream.signal };
  if (apiKey !== undefined) streamOptions.apiKey = apiKey;
  const context: LlmContext = { messages: body.context.messages };
  return { model, context, streamOptions, upstream, release: () => request.signal.removeEventListener("abort", onClientGone) };
}

/**
 * The upstream call's events as server-sent events. The stream closes after the final event
 * (an upstream failure becomes that `error` event); cancelling it aborts the upstream call.
 */
function upstreamEventStream(streamFn: StreamFn, call: UpstreamCall): ReadableStream<Uint8Array> {
  const { model, context, streamOptions, upstream, release } = call;
  let subscription: Subscription | undefined;
  let closed = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const encoder = new ProxyEventEncoder();
      const send = (event: AssistantMessageEvent) => {
        if (closed) return;
        controller.enqueue(bytes.encode(`data: ${JSON.stringify(encoder.encode(event))}\n\n`));
      };
      const close = () => {
        if (closed) return;
        closed = true;
        release();
        controller.close();
      };
      const fail = (message: string) => {
        const reason = upstream.signal.aborted ? "aborted" : "error";
        send({ type: "error", reason, error: failedAssistantMessage(model, message, reason, streamOptions.scheduler?.now() ?? Date.now()) });
      };
      // `callStreamFn` ends the stream at the final event and reports every failure, an
      // incomplete stream included, as one `StreamFnFailure`.
      subscription = callStreamFn(streamFn, model, context, streamOptions).subscribe({
        next: send,
        error: (error: unknown) => {
          fail(upstreamFailureText(error));
          close();
        },
        complete: close,
      });
    },
    cancel() {
      closed = true;
      release();
      upstream.abort();
      subscription?.unsubscribe();
    },
  });
}
