/**
 * `rxagent/openai`: the OpenAI-compatible Chat Completions provider.
 *
 * A separate entry point so apps that use another provider (or a proxy) do not bundle it
 * (SPEC M3: the core stays provider-free). How it builds the request and reads the stream is
 * internal.
 *
 * @example
 * ```ts
 * import { openaiCompatible } from "rxagent/openai";
 * const streamFn = openaiCompatible({ baseUrl: "https://api.groq.com/openai/v1", apiKey });
 * ```
 * @module
 */
export { openaiCompatible, type OpenAICompatibleOptions } from "./openai-compatible.js";
// The request body's types: what `onRequest` sees and may return, and the settings the options extend.
export type { ChatCompletionRequest, ChatContentPart, ChatMessage, ChatRequestSettings, ChatTool, ChatToolCall } from "./openai-request.js";
export { getProviderFailure, type ProviderFailure, type ProviderFailureKind } from "../shared/provider-failure.js";
