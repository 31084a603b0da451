/**
 * `rxagent/openai`: the OpenAI-compatible Chat Completions provider.
 *
 * A separate entry point so apps that use another provider (or a proxy) do not bundle it
 * (SPEC M3: the core stays provider-free).
 *
 * @example
 * ```ts
 * import { openaiCompatible } from "rxagent/openai";
 * const streamFn = openaiCompatible({ baseUrl: "https://api.groq.com/openai/v1", apiKey });
 * ```
 * @module
 */
export { openaiCompatible, streamChatCompletion, type OpenAICompatibleOptions } from "./openai-compatible.js";
export {
  buildChatCompletionRequest,
  defaultReasoningParams,
  toChatMessages,
  toChatTool,
  type ChatCompletionRequest,
  type ChatContentPart,
  type ChatMessage,
  type ChatRequestSettings,
  type ChatTool,
  type ChatToolCall,
} from "./openai-request.js";
export { parseUsage } from "./chat-completion-reader.js";
export { getProviderFailure, type ProviderFailure, type ProviderFailureKind } from "../shared/provider-failure.js";
