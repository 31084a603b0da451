/**
 * A `StreamFn` for the Chat Completions streaming API: OpenAI, OpenRouter, Groq, Together,
 * DeepSeek, vLLM, llama.cpp server, Ollama, LM Studio and every other server that speaks it.
 *
 * It uses `fetch` and web streams only, so it runs in browsers, Node 20+, Deno, Bun and
 * workers. Each subscription is one request: the request starts on subscribe and
 * unsubscribing (or the loop's `signal`) aborts it. Failures never error the Observable; they
 * become the final `error` event with a readable `errorMessage` (SPEC M4).
 *
 * @module
 */
import type { Observable } from "rxjs";
import { failedAssistantMessage } from "../../model/assistant-message.js";
import type { AssistantMessage, AssistantMessageEvent, LlmContext, Model, StreamFn, StreamOptions } from "../../model/messages.js";
import { fromAbortableRun } from "../shared/abortable-run.js";
import { ChatCompletionReader } from "./chat-completion-reader.js";
import { httpFailure } from "../shared/http-error.js";
import { AssistantMessageBuilder } from "../shared/message-builder.js";
import { buildChatCompletionRequest, type ChatCompletionRequest, type ChatRequestSettings } from "./openai-request.js";
import { recordProviderFailure } from "../shared/provider-failure.js";
import { readServerSentEvents } from "../shared/sse.js";
import { describeNetworkError, StreamFailure, truncate } from "../shared/stream-failure.js";

/** Configuration of {@link openaiCompatible}. */
export interface OpenAICompatibleOptions extends Omit<ChatRequestSettings, "baseUrl"> {
  /**
   * The API root, e.g. `https://api.openai.com/v1`, `http://localhost:11434/v1` (Ollama),
   * `https://openrouter.ai/api/v1`. `/chat/completions` is appended. Defaults to
   * `model.baseUrl`, then to OpenAI's.
   */
  baseUrl?: string;
  /**
   * The API key when the loop passes none (the loop's `getApiKey(provider)` result, given
   * per request as `options.apiKey`, wins). Sent as `Authorization: Bearer …`. Leave both
   * unset for local servers that need no key.
   */
  apiKey?: string;
  /**
   * Headers for every request. Order: the defaults, `model.headers` (pi-ai catalog models
   * carry some), these, then the request's `options.headers`.
   */
  headers?: Record<string, string>;
  /** The `fetch` to use: a test double, a proxy agent, a Cloudflare binding. Default: global. */
  fetch?: typeof fetch;
  /** Transforms the request body just before it is sent (logging, extra provider fields). */
  onRequest?: (body: ChatCompletionRequest, model: Model) => ChatCompletionRequest | void;
}

const DEFAULT_BASE_URL = "https://api.openai.com/v1";

/**
 * Creates a `StreamFn` for an OpenAI-compatible Chat Completions endpoint.
 *
 * @example
 * ```ts
 * import { Agent } from "rxagent";
 * import { openaiCompatible } from "rxagent/openai";
 *
 * const streamFn = openaiCompatible({ baseUrl: "http://localhost:11434/v1" });
 * const agent = new Agent({
 *   streamFn,
 *   initialState: { model: { id: "qwen3:8b", api: "openai-completions", provider: "ollama" } },
 * });
 * ```
 * @param config - Endpoint, credentials and request shaping.
 * @return A `StreamFn` whose result is a cold Observable of provider events.
 * @see streamProxy for browsers that must not hold the key.
 * @see withRetry to retry rate limits and server errors.
 */
export function openaiCompatible(config: OpenAICompatibleOptions = {}): StreamFn {
  return (model, context, options) => streamChatCompletion(config, model, context, options);
}

/**
 * One streaming Chat Completions request as a cold Observable of provider events. This is
 * what the `StreamFn` of {@link openaiCompatible} returns.
 */
export function streamChatCompletion(
  config: OpenAICompatibleOptions,
  model: Model,
  context: LlmContext,
  options: StreamOptions = {},
): Observable<AssistantMessageEvent> {
  return fromAbortableRun<AssistantMessageEvent>((emit, signal) => run(config, model, context, options, emit, signal), options.signal);
}

/** The URL and the `fetch` options of one request (the signal is added by the caller). */
function prepareRequest(config: OpenAICompatibleOptions, model: Model, context: LlmContext, options: StreamOptions): { url: string; baseUrl: string; init: RequestInit } {
  const baseUrl = (config.baseUrl ?? (typeof model.baseUrl === "string" ? model.baseUrl : undefined) ?? DEFAULT_BASE_URL).replace(/\/+$/, "");
  let body = buildChatCompletionRequest(model, context.messages, options, { ...config, baseUrl });
  body = config.onRequest?.(body, model) ?? body;
  const apiKey = options.apiKey ?? config.apiKey;
  const modelHeaders = model.headers && typeof model.headers === "object" ? (model.headers as Record<string, string>) : undefined;
  const headers = new Headers({ "content-type": "application/json", accept: "text/event-stream" });
  if (apiKey) headers.set("authorization", `Bearer ${apiKey}`);
  // Later sources win, whatever the case of their header names.
  for (const source of [modelHeaders, config.headers, options.headers]) {
    for (const [name, value] of Object.entries(source ?? {})) headers.set(name, value);
  }
  return { url: `${baseUrl}/chat/completions`, baseUrl, init: { method: "POST", headers, body: JSON.stringify(body) } };
}

/** One request: send, check the status, read the stream; every outcome ends in one final event. */
async function run(
  config: OpenAICompatibleOptions,
  model: Model,
  context: LlmContext,
  options: StreamOptions,
  emit: (event: AssistantMessageEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  const builder = new AssistantMessageBuilder(model, now(options));
  // Events already parsed when the signal fires are not delivered: the next one is `aborted`,
  // and its message holds what was delivered.
  let shown: AssistantMessage | undefined;
  const emitLive = (event: AssistantMessageEvent) => {
    if (signal.aborted) throw new Error("aborted");
    emit(event);
    if ("partial" in event) shown = event.partial;
  };
  try {
    const body = await openStream(config, model, context, options, signal);
    emitLive(builder.start());
    await readStream(body, new ChatCompletionReader(builder, model), emitLive, signal);
  } catch (error) {
    emit(failureEvent(error, model, builder, shown, signal));
  }
}

/** The time on the request's scheduler, else the wall clock. */
function now(options: StreamOptions): number {
  return options.scheduler?.now() ?? Date.now();
}

/** Sends the request and returns the response's event stream; a network or HTTP failure throws. */
async function openStream(config: OpenAICompatibleOptions, model: Model, context: LlmContext, options: StreamOptions, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
  const { url, baseUrl, init } = prepareRequest(config, model, context, options);
  const fetchFn = config.fetch ?? globalThis.fetch;

  let response: Response;
  try {
    response = await fetchFn(url, { ...init, signal });
  } catch (error) {
    if (signal.aborted) throw error;
    throw new StreamFailure(`Network error: could not reach ${baseUrl}: ${describeNetworkError(error)}`, { kind: "network", retryable: true });
  }
  if (!response.ok) throw await httpFailure(response, now(options));
  if (!response.body) throw new StreamFailure(`HTTP ${response.status}: the response has no body`, { kind: "protocol", retryable: false });
  const contentType = response.headers?.get?.("content-type") ?? "";
  if (/\bjson\b/i.test(contentType)) return jsonOrMislabelledStream(response, contentType);
  return response.body;
}

/**
 * A JSON content type: either a server that ignored `stream: true` and sent one document (said
 * so, with the start of it), or an event stream under the wrong label, read as one (whole, as
 * the body is already complete when it is read this way).
 */
async function jsonOrMislabelledStream(response: Response, contentType: string): Promise<ReadableStream<Uint8Array>> {
  let text = "";
  try {
    text = await response.text();
  } catch {
    // the body could not be read: the message still names the content type
  }
  if (/^\s*(data|event|id|retry)?:/.test(text)) return new Blob([text]).stream();
  throw jsonInsteadOfStream(response.status, contentType, text);
}

/**
 * A server that ignored `stream: true` answers with one JSON document: say so (with the start of
 * what it sent) instead of reading it as an event stream that "closed early".
 */
function jsonInsteadOfStream(status: number, contentType: string, text: string): StreamFailure {
  const shown = text.length > 300 ? `${text.slice(0, 300)}…` : text;
  return new StreamFailure(
    `HTTP ${status}: the server sent a non-streaming JSON reply (content-type ${contentType}) where a text/event-stream was requested; check that the endpoint supports "stream": true.${shown ? ` The reply began: ${shown}` : ""}`,
    { kind: "protocol", retryable: false },
  );
}

/**
 * Emits the events of every chunk up to `[DONE]` or the end of the stream, then the closing
 * ones. A broken connection or a malformed chunk throws `StreamFailure`; an abort throws too.
 */
async function readStream(body: ReadableStream<Uint8Array>, reader: ChatCompletionReader, emitLive: (event: AssistantMessageEvent) => void, signal: AbortSignal): Promise<void> {
  try {
    for await (const message of readServerSentEvents(body)) {
      const data = message.data.trim();
      if (data === "[DONE]") break;
      if (data === "") continue;
      const chunk = parseChunk(data);
      if (signal.aborted) throw new Error("aborted");
      for (const event of reader.chunk(chunk)) emitLive(event);
    }
  } catch (error) {
    if (error instanceof StreamFailure || signal.aborted) throw error;
    throw new StreamFailure(`Network error while streaming the response: ${describeNetworkError(error)}`, { kind: "network", retryable: true });
  }
  if (signal.aborted) throw new Error("aborted");
  for (const event of reader.finish()) emitLive(event);
}

/** One chunk's JSON; throws `StreamFailure` when it is malformed. */
function parseChunk(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    throw new StreamFailure(`Malformed JSON in a stream chunk: ${truncate(data, 200)}`, { kind: "protocol", retryable: false });
  }
}

/**
 * The final event for a request that failed or was aborted. An abort keeps only what was
 * delivered (`shown`), not what was parsed after the signal fired.
 */
function failureEvent(error: unknown, model: Model, builder: AssistantMessageBuilder, shown: AssistantMessage | undefined, signal: AbortSignal): AssistantMessageEvent {
  if (signal.aborted) {
    const message = failedAssistantMessage(model, "Request was aborted", "aborted", builder.partial.timestamp, shown);
    return { type: "error", reason: "aborted", error: message };
  }
  if (error instanceof StreamFailure) {
    const event = builder.fail("error", error.message);
    recordProviderFailure(event.error, error.failure);
    return event;
  }
  return builder.fail("error", `OpenAI-compatible provider failed: ${describeNetworkError(error)}`);
}
