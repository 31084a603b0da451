/**
 * `rxagent/ai-sdk`: any Vercel AI SDK language model (`LanguageModelV4`, the models of
 * `@ai-sdk/anthropic`, `@ai-sdk/openai`, `@ai-sdk/google` and the other AI SDK 7 providers) as
 * an rxagent `StreamFn`.
 *
 * A separate entry point so apps that use another provider do not bundle it (SPEC M3). It
 * states the SDK's model interface in its own types, so it needs nothing of the AI SDK, at run
 * time or to type-check, beyond the provider package the app already uses.
 *
 * @example
 * ```ts
 * import { createOpenAI } from "@ai-sdk/openai";
 * import { aiSdkModel, fromAiSdk } from "rxagent/ai-sdk";
 *
 * const gpt = createOpenAI({ apiKey })("gpt-5-mini");
 * const agent = new Agent({ streamFn: fromAiSdk(gpt), initialState: { model: aiSdkModel(gpt) } });
 * ```
 * @module
 */
export { AI_SDK_API, aiSdkModel, fromAiSdk, type AiSdkModelResolver, type FromAiSdkOptions } from "./from-ai-sdk.js";
export type { AiSdkCallSettings, AiSdkReasoningMap } from "./ai-sdk-call.js";
// The SDK's model interface as the bridge states it: the types of a model, of the options and of the hooks' arguments.
export type {
  AiSdkCallOptions,
  AiSdkFinishReason,
  AiSdkFunctionTool,
  AiSdkLanguageModel,
  AiSdkPrompt,
  AiSdkProviderMetadata,
  AiSdkReasoning,
  AiSdkStreamPart,
  AiSdkToolResultOutput,
  AiSdkUsage,
  AiSdkWarning,
} from "./ai-sdk-types.js";
export { getProviderFailure, type ProviderFailure, type ProviderFailureKind } from "../shared/provider-failure.js";
