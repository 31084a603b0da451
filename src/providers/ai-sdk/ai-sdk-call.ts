/**
 * The call options (`LanguageModelV4CallOptions`) of one request: the prompt and tools from the transcript,
 * the per-request settings the loop passes (SPEC M3), and the app's fixed call options.
 *
 * @module
 */
import type { AiSdkCallOptions, AiSdkReasoning } from "./ai-sdk-types.js";
import type { Message, Model, StreamOptions, ThinkingLevel } from "../../model/messages.js";
import { toAiSdkPrompt, toAiSdkTools } from "./ai-sdk-prompt.js";

/**
 * Call options an app may fix for every request (everything but the prompt and the signal).
 *
 * @example
 * ```ts
 * const settings: AiSdkCallSettings = { stopSequences: ["\n\nUser:"], providerOptions: { openai: { store: false } } };
 * ```
 */
export type AiSdkCallSettings = Omit<AiSdkCallOptions, "prompt" | "abortSignal">;

/**
 * Maps the requested thinking level (absent when thinking is off) to the SDK's `reasoning`.
 *
 * @example
 * ```ts
 * const alwaysSay: AiSdkReasoningMap = (level) => level ?? "none";
 * ```
 */
export type AiSdkReasoningMap = (level: Exclude<ThinkingLevel, "off"> | undefined, model: Model) => AiSdkReasoning | undefined;

/**
 * The default reasoning map: the level under the same name (the SDK knows `minimal` … `max`),
 * and nothing when thinking is off, which leaves the provider's default. Send `"none"`
 * yourself (`reasoning: (level) => level ?? "none"`) to switch a reasoning model's thinking off.
 *
 * @example
 * ```ts
 * defaultAiSdkReasoning("high", model); // "high"
 * defaultAiSdkReasoning(undefined, model); // undefined: the provider's default
 * ```
 * @internal
 */
export const defaultAiSdkReasoning: AiSdkReasoningMap = (level) => level;

/**
 * Builds the call options for `messages`. `callOptions` are the base; the request's own
 * `maxTokens`, `temperature`, `reasoning` and `headers` take precedence; the transcript's tools
 * come first, then any `callOptions.tools` (provider tools such as web search).
 *
 * @example
 * ```ts
 * const call = buildAiSdkCall(model, context.messages, { maxTokens: 512, reasoning: "low" });
 * const { stream } = await languageModel.doStream({ ...call, abortSignal });
 * ```
 * @internal
 */
export function buildAiSdkCall(
  model: Model,
  messages: readonly Message[],
  options: Pick<StreamOptions, "maxTokens" | "temperature" | "reasoning" | "headers">,
  callOptions: AiSdkCallSettings = {},
  reasoning: AiSdkReasoningMap = defaultAiSdkReasoning,
): AiSdkCallOptions {
  const call: AiSdkCallOptions = { ...callOptions, prompt: toAiSdkPrompt(model, messages) };
  const tools = [...toAiSdkTools(messages), ...(callOptions.tools ?? [])];
  if (tools.length > 0) call.tools = tools;
  else delete call.tools;
  if (options.maxTokens !== undefined) call.maxOutputTokens = options.maxTokens;
  if (options.temperature !== undefined) call.temperature = options.temperature;
  const effort = reasoning(options.reasoning, model);
  if (effort !== undefined) call.reasoning = effort;
  if (options.headers) call.headers = { ...callOptions.headers, ...options.headers };
  return call;
}
