/**
 * A `StreamFn` for the Chat Completions streaming API: OpenAI, OpenRouter, Groq, Together,
 * DeepSeek, vLLM, llama.cpp server, Ollama, LM Studio and every other server that speaks it.
 *
 * It uses `fetch` and web streams only, so it runs in browsers, Node 20+, Deno, Bun and
 * workers. Each subscription is one request: the request starts on subscribe and
 * unsubscribing (or the loop's `signal`) aborts it. Failures never error the Observable; they
 * become the final `error` event with a readable `errorMessage` (SPEC M4), from which the
 * credentials the request carried are redacted. What one response may make the process hold is
 * capped (`maxLineBytes`, `maxEventBytes`, `maxResponseBytes`).
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
import { SseLimitExceeded } from "../shared/sse.js";
import { isSafeFailureCode } from "../../model/provider-failure.js";
import { redactSecrets } from "../../model/redact-secrets.js";
import { isPlaceholderModel, NO_MODEL_ERROR } from "../../model/placeholder-model.js";
import { jsonOrMislabelledStream } from "./json-reply.js";
import { limitFailure, streamLimits, type StreamLimits } from "../shared/stream-limits.js";

/** Configuration of {@link openaiCompatible}. */
export interface OpenAICompatibleOptions extends Omit<ChatRequestSettings, "baseUrl"> {
  /**
   * The API root, e.g. `https://api.openai.com/v1`, `http://localhost:11434/v1` (Ollama),
   * `https://openrouter.ai/api/v1`. `/chat/completions` is appended. Defaults to
   * `model.baseUrl`, then to OpenAI's.
   */
  baseUrl?: string | undefined;
  /**
   * The API key when the loop passes none (the loop's `getApiKey(provider)` result, given
   * per request as `options.apiKey`, wins). Sent as `Authorization: Bearer …`. Leave both
   * unset for local servers that need no key.
   */
  apiKey?: string | undefined;
  /**
   * Headers for every request. Order: the defaults, `model.headers` (pi-ai catalog models
   * carry some), these, then the request's `options.headers`.
   */
  headers?: Record<string, string> | undefined;
  /** The `fetch` to use: a test double, a proxy agent, a Cloudflare binding. Default: global. */
  fetch?: typeof fetch | undefined;
  /** Transforms the request body just before it is sent (logging, extra provider fields). */
  onRequest?: ((body: ChatCompletionRequest, model: Model) => ChatCompletionRequest | void) | undefined;
  /**
   * The most bytes one line of the event stream may hold before it ends. Default 4 MiB (a tool
   * call's whole arguments in one chunk fit). Past it the request is cancelled and the response
   * ends with a non-retryable protocol error. `Infinity` turns the cap off.
   */
  maxLineBytes?: number | undefined;
  /** The most characters one event may buffer (its `data:` lines so far). Default 4 MiB. */
  maxEventBytes?: number | undefined;
  /** The most raw bytes of one response body. Default 64 MiB (about twice a 128k-token answer). */
  maxResponseBytes?: number | undefined;
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
  streamLimits(config); // bad caps are refused here, not on the first request
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

/** One request, ready to send: the URL, the `fetch` options (the signal is added by the caller) and the credentials it carries. */
interface PreparedRequest {
  url: string;
  baseUrl: string;
  init: RequestInit;
  /** The key and the header values sent, to redact from error text. */
  secrets: string[];
}

/** Header values that are never credentials (redacting them would garble error messages). */
const PLAIN_HEADERS = new Set(["content-type", "accept"]);

/** The URL and the `fetch` options of one request. */
function prepareRequest(config: OpenAICompatibleOptions, model: Model, context: LlmContext, options: StreamOptions): PreparedRequest {
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
  const secrets = apiKey ? [apiKey] : [];
  headers.forEach((value, name) => {
    // `Bearer <token>`: the token is the secret, so the scheme stays readable in error text.
    if (!PLAIN_HEADERS.has(name)) secrets.push(value.replace(/^(Bearer|Basic)\s+/i, ""));
  });
  return { url: `${baseUrl}/chat/completions`, baseUrl, init: { method: "POST", headers, body: JSON.stringify(body) }, secrets };
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
  // The Agent's placeholder (SPEC A8): a server would be asked for model "unknown"; say what to fix instead, and send nothing.
  if (isPlaceholderModel(model)) return emit(builder.fail("error", NO_MODEL_ERROR));
  let secrets: string[] = [];
  try {
    const limits = streamLimits(config);
    const request = prepareRequest(config, model, context, options);
    secrets = request.secrets;
    const body = await openStream(config, request, options, signal);
    emitLive(builder.start());
    await readStream(body, limits, new ChatCompletionReader(builder, model), emitLive, signal);
  } catch (error) {
    emit(failureEvent(error, model, builder, shown, signal, secrets));
  }
}

/** The time on the request's scheduler, else the wall clock. */
function now(options: StreamOptions): number {
  return options.scheduler?.now() ?? Date.now();
}

/** Sends the request and returns the response's event stream; a network or HTTP failure throws. */
async function openStream(config: OpenAICompatibleOptions, request: PreparedRequest, options: StreamOptions, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
  const { url, baseUrl, init, secrets } = request;
  const fetchFn = config.fetch ?? globalThis.fetch;

  let response: Response;
  try {
    response = await fetchFn(url, { ...init, signal });
  } catch (error) {
    if (signal.aborted) throw error;
    throw new StreamFailure(`Network error: could not reach ${baseUrl}: ${describeNetworkError(error)}`, { kind: "network", retryable: true });
  }
  if (!response.ok) throw await httpFailure(response, now(options), "", secrets);
  if (!response.body) throw new StreamFailure(`HTTP ${response.status}: the response has no body`, { kind: "protocol", retryable: false });
  const contentType = response.headers?.get?.("content-type") ?? "";
  if (/\bjson\b/i.test(contentType)) return jsonOrMislabelledStream(response.body, response.status, contentType);
  return response.body;
}

/**
 * Emits the events of every chunk up to `[DONE]` or the end of the stream, then the closing
 * ones. A broken connection or a malformed chunk throws `StreamFailure`; an abort throws too.
 */
async function readStream(
  body: ReadableStream<Uint8Array>,
  limits: StreamLimits,
  reader: ChatCompletionReader,
  emitLive: (event: AssistantMessageEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  try {
    for await (const message of readServerSentEvents(body, limits)) {
      const data = message.data.trim();
      if (data === "[DONE]") break;
      if (data === "") continue;
      const chunk = parseChunk(data);
      if (signal.aborted) throw new Error("aborted");
      for (const event of reader.chunk(chunk)) emitLive(event);
    }
  } catch (error) {
    if (error instanceof StreamFailure || signal.aborted) throw error;
    if (error instanceof SseLimitExceeded) throw limitFailure(error);
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
 * delivered (`shown`), not what was parsed after the signal fired. Every text built from what
 * the server sent passes through `redactSecrets`: servers echo the key they were given.
 */
function failureEvent(
  error: unknown,
  model: Model,
  builder: AssistantMessageBuilder,
  shown: AssistantMessage | undefined,
  signal: AbortSignal,
  secrets: readonly string[],
): AssistantMessageEvent {
  if (signal.aborted) {
    const message = failedAssistantMessage(model, "Request was aborted", "aborted", builder.partial.timestamp, shown);
    return { type: "error", reason: "aborted", error: message };
  }
  if (error instanceof StreamFailure) {
    const event = builder.fail("error", redactSecrets(error.message, secrets));
    // The code is the server's word too: one that quotes a key this request carried is dropped.
    const { code, ...failure } = error.failure;
    recordProviderFailure(event.error, isSafeFailureCode(code, secrets) ? { ...failure, code } : failure);
    return event;
  }
  return builder.fail("error", redactSecrets(`OpenAI-compatible provider failed: ${describeNetworkError(error)}`, secrets));
}
