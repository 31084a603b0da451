/**
 * `streamProxy`: a `StreamFn` that calls models through your own server (see `proxy-server.ts`).
 *
 * @module
 */
import type { Observable } from "rxjs";
import type { AssistantMessageEvent, LlmContext, Model, StreamFn, StreamOptions } from "../../model/messages.js";
import { isPlaceholderModel, NO_MODEL_ERROR } from "../../model/placeholder-model.js";
import { fromAbortableRun } from "../shared/abortable-run.js";
import { httpFailure } from "../shared/http-error.js";
import { recordProviderFailure } from "../shared/provider-failure.js";
import { ProxyEventDecoder, type ProxyEvent } from "./proxy-events.js";
import type { ProxyRequestBody, ProxyRequestOptions } from "./proxy-server.js";
import { readServerSentEvents, SseLimitExceeded } from "../shared/sse.js";
import { limitFailure, streamLimits, type StreamLimits } from "../shared/stream-limits.js";
import { describeNetworkError, StreamFailure, truncate } from "../shared/stream-failure.js";

/** Configuration of {@link streamProxy}. */
export interface StreamProxyOptions {
  /** The proxy endpoint, e.g. `https://example.com/api/stream`. */
  url: string;
  /** The bearer token, or a function that returns a fresh one per request. */
  authToken?: string | (() => string | undefined | PromiseLike<string | undefined>) | undefined;
  /** Headers added to each request. */
  headers?: Record<string, string> | undefined;
  /** The `fetch` to use. Default: global. */
  fetch?: typeof fetch | undefined;
  /**
   * The longest line of the event stream, in bytes; past it the request is cancelled. Default
   * 16 MiB: the server sends a tool call's whole arguments in one line (up to 4 Mi characters,
   * the loop's bound, which grow as UTF-8 and escaped JSON).
   */
  maxLineBytes?: number | undefined;
  /** The largest single event, in characters. Default 16 MiB, for the same reason. */
  maxEventBytes?: number | undefined;
  /** The largest response, in bytes of body. Default 64 MiB. */
  maxResponseBytes?: number | undefined;
}

/**
 * Creates a `StreamFn` that streams through a proxy server created with
 * {@link createProxyHandler}.
 *
 * Only the transcript, the model's `id`, `api` and `provider`, and the options `reasoning`,
 * `maxTokens`, `temperature`, `sessionId` and `thinkingBudgets` are sent; `apiKey` and
 * `headers` of the request and the model's other fields never leave the browser (the server
 * calls its own model of that id). Abort or unsubscribe cancels the HTTP request, and the
 * server then aborts the upstream request.
 *
 * @example
 * ```ts
 * import { Agent } from "rxagent";
 * import { streamProxy } from "rxagent/proxy";
 *
 * const agent = new Agent({
 *   streamFn: streamProxy({ url: "/api/stream", authToken: () => session.token }),
 *   initialState: { model: { id: "gpt-4o-mini", api: "openai-completions", provider: "openai" } },
 * });
 * ```
 * @param config - Where the proxy is and how to authenticate.
 * @return A `StreamFn` whose result is a cold Observable of provider events.
 */
export function streamProxy(config: StreamProxyOptions): StreamFn {
  // Bad caps are refused here, not on the first request.
  const limits = streamLimits(
    { maxLineBytes: config.maxLineBytes ?? PROXY_LINE_BYTES, maxEventBytes: config.maxEventBytes ?? PROXY_LINE_BYTES, maxResponseBytes: config.maxResponseBytes },
    "streamProxy",
  );
  return (model, context, options) => proxyRequest(config, limits, model, context, options);
}

/**
 * The client's own default for one line and one event: 16 MiB. A provider streams a tool call's
 * arguments in pieces, but the proxy sends them whole in `toolcall_end`; 4 Mi characters (the
 * loop's bound) take up to 12 MiB as UTF-8, 8 MiB as JSON when each is a quote or a newline.
 * Only arguments made mostly of other control characters (6-byte escapes) would need more.
 */
const PROXY_LINE_BYTES = 16 * 1024 * 1024;

/** One request through the proxy as a cold Observable; every outcome ends in one final event. */
function proxyRequest(config: StreamProxyOptions, limits: StreamLimits, model: Model, context: LlmContext, options: StreamOptions): Observable<AssistantMessageEvent> {
  return fromAbortableRun<AssistantMessageEvent>(async (emit, signal) => {
    const decoder = new ProxyEventDecoder(model, now(options));
    // The Agent's placeholder (SPEC A8): the server would look up model "unknown"; say what to fix instead, and send nothing.
    if (isPlaceholderModel(model)) return emit(decoder.message.fail("error", NO_MODEL_ERROR));
    try {
      const body = await openProxyStream(config, model, context, options, signal);
      await relayEvents(body, limits, decoder, emit, signal);
    } catch (error) {
      emit(failureEvent(error, decoder, signal));
    }
  }, options.signal);
}

/** The time on the request's scheduler, else the wall clock. */
function now(options: StreamOptions): number {
  return options.scheduler?.now() ?? Date.now();
}

/** Posts the request to the proxy and returns the response's event stream; a refusal throws. */
async function openProxyStream(config: StreamProxyOptions, model: Model, context: LlmContext, options: StreamOptions, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
  const token = typeof config.authToken === "function" ? await config.authToken() : config.authToken;
  const body = proxyRequestBody(model, context, options);
  const headers = new Headers({ "content-type": "application/json", accept: "text/event-stream" });
  if (token) headers.set("authorization", `Bearer ${token}`);
  for (const [name, value] of Object.entries(config.headers ?? {})) headers.set(name, value);

  let response: Response;
  try {
    response = await (config.fetch ?? globalThis.fetch)(config.url, { method: "POST", headers, body: JSON.stringify(body), signal });
  } catch (error) {
    if (signal.aborted) throw error;
    throw new StreamFailure(`Proxy error: could not reach ${config.url}: ${describeNetworkError(error)}`, { kind: "network", retryable: true });
  }
  // A proxy (or what stands in front of it) may echo the credentials it was sent.
  if (!response.ok) throw await httpFailure(response, now(options), "Proxy error: ", [token, ...Object.values(config.headers ?? {})]);
  if (!response.body) throw new StreamFailure("Proxy error: the response has no body", { kind: "protocol", retryable: false });
  return response.body;
}

/** What the proxy is sent: the model, the transcript and only the options it may forward. */
function proxyRequestBody(model: Model, context: LlmContext, options: StreamOptions): ProxyRequestBody {
  const requestOptions: ProxyRequestOptions = {};
  if (options.reasoning !== undefined) requestOptions.reasoning = options.reasoning;
  if (options.maxTokens !== undefined) requestOptions.maxTokens = options.maxTokens;
  if (options.temperature !== undefined) requestOptions.temperature = options.temperature;
  if (options.sessionId !== undefined) requestOptions.sessionId = options.sessionId;
  if (options.thinkingBudgets !== undefined) requestOptions.thinkingBudgets = options.thinkingBudgets;
  // The server picks its own model by id (and api): the rest of the client's model stays here.
  return { model: { id: model.id, api: model.api, provider: model.provider }, context: { messages: context.messages }, options: requestOptions };
}

/**
 * Emits the proxy's events up to the final one. A stream that breaks or closes before it
 * throws `StreamFailure`; an abort throws too, so the caller emits the `aborted` event.
 */
async function relayEvents(body: ReadableStream<Uint8Array>, limits: StreamLimits, decoder: ProxyEventDecoder, emit: (event: AssistantMessageEvent) => void, signal: AbortSignal): Promise<void> {
  let ended = false;
  try {
    for await (const message of readServerSentEvents(body, limits)) {
      if (signal.aborted) break;
      const event = decoder.decode(parseProxyEvent(message.data));
      emit(event);
      if (event.type === "done" || event.type === "error") {
        ended = true;
        break;
      }
    }
  } catch (error) {
    if (error instanceof StreamFailure || signal.aborted) throw error;
    if (error instanceof SseLimitExceeded) throw limitFailure(error, "streamProxy");
    throw new StreamFailure(`Proxy error: the connection failed while streaming: ${describeNetworkError(error)}`, { kind: "network", retryable: true });
  }
  if (!ended && !signal.aborted) {
    throw new StreamFailure("Proxy error: the proxy closed the stream before the response was finished", { kind: "network", retryable: true });
  }
  if (!ended) throw new Error("aborted");
}

/** The wire event in one server-sent event's data; throws `StreamFailure` on malformed JSON. */
function parseProxyEvent(data: string): ProxyEvent {
  try {
    return JSON.parse(data) as ProxyEvent;
  } catch {
    throw new StreamFailure(`Proxy error: malformed event: ${truncate(data, 200)}`, { kind: "protocol", retryable: false });
  }
}

/** The final event for a request that failed or was aborted, with the content rebuilt so far. */
function failureEvent(error: unknown, decoder: ProxyEventDecoder, signal: AbortSignal): AssistantMessageEvent {
  if (signal.aborted) return decoder.message.fail("aborted", "Request was aborted");
  if (error instanceof StreamFailure) {
    const event = decoder.message.fail("error", error.message);
    recordProviderFailure(event.error, error.failure);
    return event;
  }
  return decoder.message.fail("error", `Proxy error: ${describeNetworkError(error)}`);
}
