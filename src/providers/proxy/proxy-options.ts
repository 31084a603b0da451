/**
 * What the proxy server is configured with, and what a client may send it.
 *
 * @module
 */
import type { LlmContext, Model, StreamFn, StreamOptions, ThinkingBudgets, ThinkingLevel } from "../../model/messages.js";
import type { ProxyError } from "./proxy-error.js";

/** The request body the proxy client sends. Of `model`, the server reads only `id` and `api`. */
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

/** What a client's model selects: its `id`, and its `api` when it sent one. Nothing else of it is read. */
export interface ProxyModelRequest {
  id: string;
  api?: string;
}

/** Server-defined models, keyed by the id a client asks for (an array is keyed by each model's `id`). */
export type ProxyModels = Readonly<Record<string, Model>> | readonly Model[];

/**
 * Configuration of `createProxyHandler`. Give `token` or `authorize`, and `models` or
 * `resolveModel`: the handler cannot be built without them.
 */
export interface ProxyHandlerOptions {
  /** Calls the real provider (e.g. `openaiCompatible({ apiKey: process.env.OPENAI_API_KEY })`). */
  streamFn: StreamFn;
  /** The bearer token clients must send (not empty). Use `authorize` for per-user tokens. */
  token?: string | undefined;
  /** Decides whether a bearer token (`undefined` when none was sent) may use the proxy. */
  authorize?: ((token: string | undefined, request: Request) => boolean | PromiseLike<boolean>) | undefined;
  /**
   * The models clients may use, defined on the server (`baseUrl`, `headers`, `maxTokens` and
   * all). A client's model only selects one by `id`; its `api`, when sent, must match (else 403).
   */
  models?: ProxyModels | undefined;
  /**
   * The server model for a requested id (and api), or `undefined` to refuse it (403). Asked
   * when `models` has no entry for the id. It sees only `{ id, api }`, never the client's model.
   */
  resolveModel?: ((requested: ProxyModelRequest, request: Request) => Model | undefined | PromiseLike<Model | undefined>) | undefined;
  /** The provider key for a request, passed to `streamFn` as `options.apiKey`; asked with the server model's provider. */
  getApiKey?: ((provider: string) => string | undefined | PromiseLike<string | undefined>) | undefined;
  /**
   * Options for every upstream call: server-side headers, a scheduler, or limits. They win over
   * what the client asked for.
   */
  streamOptions?: Omit<StreamOptions, "signal" | "apiKey"> | undefined;
  /**
   * The most output tokens a client may ask for. A client's `maxTokens` is clamped to this and
   * to the server model's `maxTokens`; with neither set, it is not forwarded.
   */
  maxOutputTokens?: number | undefined;
  /** The largest request body read, in bytes; larger ones get 413. Default 4 MiB. */
  maxBodyBytes?: number | undefined;
  /** How long reading the request body may take, in ms; slower ones get 408. Default 30 000. */
  bodyTimeoutMs?: number | undefined;
  /** How many streams one bearer token (or one `slotKey`) may have open at once; more get 429. Default: no limit. */
  maxConcurrentPerToken?: number | undefined;
  /**
   * Whose streams `maxConcurrentPerToken` counts together. Default: the bearer token. With cookie
   * auth there is no bearer token, and every user would share one count: return the session id
   * (or user id) here. Requests for which it returns `undefined` share one count.
   *
   * @example
   * ```ts
   * slotKey: (request) => /(?:^|;\s*)session=([^;]+)/.exec(request.headers.get("cookie") ?? "")?.[1],
   * ```
   */
  slotKey?: ((request: Request, token: string | undefined) => string | undefined) | undefined;
  /**
   * Receives each upstream or handler failure with its full detail, secrets redacted (the
   * browser gets only a generic text). Default: `console.error`.
   */
  onError?: ((error: ProxyError, request: Request) => void) | undefined;
}

/** Default of {@link ProxyHandlerOptions.maxBodyBytes}: 4 MiB, room for a long transcript and a few images. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Default of {@link ProxyHandlerOptions.bodyTimeoutMs}. */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;
