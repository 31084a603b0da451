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
export { AI_SDK_API, aiSdkModel, fromAiSdk, streamAiSdk, type AiSdkModelResolver, type FromAiSdkOptions } from "./from-ai-sdk.js";
export { buildAiSdkCall, defaultAiSdkReasoning, type AiSdkCallSettings, type AiSdkReasoningMap } from "./ai-sdk-call.js";
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
export { toAiSdkPrompt, toAiSdkTool, toAiSdkTools, toToolResultOutput } from "./ai-sdk-prompt.js";
export { AiSdkStreamReader } from "./ai-sdk-stream-reader.js";
export { fromAiSdkUsage } from "./ai-sdk-usage.js";
export { toStopReason } from "./ai-sdk-finish-reason.js";
export { describeAiSdkFailure, type AiSdkFailure } from "./ai-sdk-failure.js";
export { decodeProviderMetadata, encodeProviderMetadata, mergeProviderMetadata } from "./provider-metadata.js";
export { getProviderFailure, type ProviderFailure, type ProviderFailureKind } from "../shared/provider-failure.js";
