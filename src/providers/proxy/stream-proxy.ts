/**
 * `streamProxy`: a `StreamFn` that calls models through your own server (see `proxy-server.ts`).
 *
 * @module
 */
import type { Observable } from "rxjs";
import type { AssistantMessageEvent, LlmContext, Model, StreamFn, StreamOptions } from "../../model/messages.js";
import { fromAbortableRun } from "../shared/abortable-run.js";
import { httpFailure } from "../shared/http-error.js";
import { recordProviderFailure } from "../shared/provider-failure.js";
import { ProxyEventDecoder, type ProxyEvent } from "./proxy-events.js";
import type { ProxyRequestBody, ProxyRequestOptions } from "./proxy-server.js";
import { readServerSentEvents } from "../shared/sse.js";
import { describeNetworkError, StreamFailure, truncate } from "../shared/stream-failure.js";

/** Configuration of {@link streamProxy}. */
export interface StreamProxyOptions {
  /** The proxy endpoint, e.g. `https://example.com/api/stream`. */
  url: string;
  /** The bearer token, or a function that returns a fresh one per request. */
  authToken?: string | (() => string | undefined | PromiseLike<string | undefined>);
  /** Headers added to each request. */
  headers?: Record<string, string>;
  /** The `fetch` to use. Default: global. */
  fetch?: typeof fetch;
}

/**
 * Creates a `StreamFn` that streams through a proxy server created with
 * {@link createProxyHandler}.
 *
 * Only the transcript, the model and the options `reasoning`, `maxTokens`, `temperature`,
 * `sessionId` and `thinkingBudgets` are sent; `apiKey` and `headers` of the request never
 * leave the browser. Abort or unsubscribe cancels the HTTP request, and the server then
 * aborts the upstream request.
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
  return (model, context, options) => proxyRequest(config, model, context, options);
}

function proxyRequest(config: StreamProxyOptions, model: Model, context: LlmContext, options: StreamOptions): Observable<AssistantMessageEvent> {
  return fromAbortableRun<AssistantMessageEvent>(async (emit, signal) => {
    const now = () => options.scheduler?.now() ?? Date.now();
    const decoder = new ProxyEventDecoder(model, now());
    try {
      const token = typeof config.authToken === "function" ? await config.authToken() : config.authToken;
      const requestOptions: ProxyRequestOptions = {};
      if (options.reasoning !== undefined) requestOptions.reasoning = options.reasoning;
      if (options.maxTokens !== undefined) requestOptions.maxTokens = options.maxTokens;
      if (options.temperature !== undefined) requestOptions.temperature = options.temperature;
      if (options.sessionId !== undefined) requestOptions.sessionId = options.sessionId;
      if (options.thinkingBudgets !== undefined) requestOptions.thinkingBudgets = options.thinkingBudgets;
      const body: ProxyRequestBody = { model, context: { messages: context.messages }, options: requestOptions };
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
      if (!response.ok) throw await httpFailure(response, now(), "Proxy error: ");
      if (!response.body) throw new StreamFailure("Proxy error: the response has no body", { kind: "protocol", retryable: false });

      let ended = false;
      try {
        for await (const message of readServerSentEvents(response.body)) {
          if (signal.aborted) break;
          let wire: ProxyEvent;
          try {
            wire = JSON.parse(message.data) as ProxyEvent;
          } catch {
            throw new StreamFailure(`Proxy error: malformed event: ${truncate(message.data, 200)}`, { kind: "protocol", retryable: false });
          }
          const event = decoder.decode(wire);
          emit(event);
          if (event.type === "done" || event.type === "error") {
            ended = true;
            break;
          }
        }
      } catch (error) {
        if (error instanceof StreamFailure || signal.aborted) throw error;
        throw new StreamFailure(`Proxy error: the connection failed while streaming: ${describeNetworkError(error)}`, { kind: "network", retryable: true });
      }
      if (!ended && !signal.aborted) {
        throw new StreamFailure("Proxy error: the proxy closed the stream before the response was finished", { kind: "network", retryable: true });
      }
      if (!ended) throw new Error("aborted");
    } catch (error) {
      if (signal.aborted) {
        emit(decoder.message.fail("aborted", "Request was aborted"));
      } else if (error instanceof StreamFailure) {
        const event = decoder.message.fail("error", error.message);
        recordProviderFailure(event.error, error.failure);
        emit(event);
      } else {
        emit(decoder.message.fail("error", `Proxy error: ${describeNetworkError(error)}`));
      }
    }
  }, options.signal);
}
