/**
 * The part of the AI SDK's language model interface (`LanguageModelV4`, `@ai-sdk/provider` 4)
 * that the bridge uses, stated in its own types.
 *
 * Why not import the SDK's: its declarations are an ES module that a CommonJS consumer's types
 * cannot import plainly, and they need `@types/json-schema`; a consumer of `rxagent/ai-sdk`
 * should need neither. These types are written so an SDK model is assignable to
 * {@link AiSdkLanguageModel}: what the bridge sends (the call options) is a subset of what the
 * SDK accepts, and what it reads (the stream parts) is a superset of what the SDK streams.
 * `test/providers/ai-sdk/types.test.ts` checks both against the SDK's own types.
 *
 * @module
 */

/** A JSON value, as provider options and metadata hold them. */
export type AiSdkJson = null | string | number | boolean | AiSdkJsonObject | readonly AiSdkJson[];

/** A JSON object. */
export type AiSdkJsonObject = { readonly [key: string]: AiSdkJson | undefined };

/**
 * Provider-specific data, by provider name: the `providerMetadata` a provider streams, and the
 * `providerOptions` sent back to it.
 *
 * @example
 * ```ts
 * const options: AiSdkProviderMetadata = { anthropic: { thinking: { type: "enabled", budgetTokens: 4000 } } };
 * ```
 */
export type AiSdkProviderMetadata = Record<string, AiSdkJsonObject>;

/** A JSON Schema, as a tool's `inputSchema`. */
export type AiSdkJsonSchema = { [keyword: string]: unknown };

/** Text in a prompt. */
export interface AiSdkTextPart {
  type: "text";
  text: string;
  providerOptions?: AiSdkProviderMetadata;
}

/** A file in a prompt; the bridge sends images as base64 data. */
export interface AiSdkFilePart {
  type: "file";
  mediaType: string;
  data: { type: "data"; data: string };
}

/** Reasoning sent back to the model that produced it. */
export interface AiSdkReasoningPart {
  type: "reasoning";
  text: string;
  providerOptions?: AiSdkProviderMetadata;
}

/** A tool call the assistant made. */
export interface AiSdkToolCallPart {
  type: "tool-call";
  toolCallId: string;
  toolName: string;
  input: unknown;
  providerOptions?: AiSdkProviderMetadata;
}

/**
 * What a tool returned: its text, an error's text, or content with files.
 *
 * @example
 * ```ts
 * const output: AiSdkToolResultOutput = { type: "error-text", value: "city not found" };
 * ```
 */
export type AiSdkToolResultOutput =
  | { type: "text"; value: string }
  | { type: "error-text"; value: string }
  | { type: "content"; value: ({ type: "text"; text: string } | { type: "file"; mediaType: string; data: { type: "data"; data: string } })[] };

/** A tool's result, in a `tool` message. */
export interface AiSdkToolResultPart {
  type: "tool-result";
  toolCallId: string;
  toolName: string;
  output: AiSdkToolResultOutput;
}

/** One prompt message. */
export type AiSdkMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: (AiSdkTextPart | AiSdkFilePart)[] }
  | { role: "assistant"; content: (AiSdkTextPart | AiSdkReasoningPart | AiSdkToolCallPart)[] }
  | { role: "tool"; content: AiSdkToolResultPart[] };

/**
 * The prompt of one call.
 *
 * @example
 * ```ts
 * const prompt: AiSdkPrompt = [{ role: "system", content: "Be brief." }, { role: "user", content: [{ type: "text", text: "Hi" }] }];
 * ```
 */
export type AiSdkPrompt = AiSdkMessage[];

/**
 * A tool the app runs.
 *
 * @example
 * ```ts
 * const tool: AiSdkFunctionTool = { type: "function", name: "get_weather", inputSchema: { type: "object" } };
 * ```
 */
export interface AiSdkFunctionTool {
  type: "function";
  name: string;
  description?: string;
  inputSchema: AiSdkJsonSchema;
  providerOptions?: AiSdkProviderMetadata;
}

/** A tool the provider defines (and often runs): web search, code execution, ... */
export interface AiSdkProviderTool {
  type: "provider";
  id: `${string}.${string}`;
  name: string;
  args: Record<string, unknown>;
}

/**
 * The SDK's reasoning setting.
 *
 * @example
 * ```ts
 * const effort: AiSdkReasoning = "low";
 * ```
 */
export type AiSdkReasoning = "provider-default" | "none" | "minimal" | "low" | "medium" | "high" | "xhigh" | "max";

/**
 * The options of one `doStream` call (`LanguageModelV4CallOptions`, as far as the bridge sets them).
 *
 * @example
 * ```ts
 * const call: AiSdkCallOptions = { prompt, maxOutputTokens: 512, reasoning: "low" };
 * ```
 */
export interface AiSdkCallOptions {
  prompt: AiSdkPrompt;
  maxOutputTokens?: number | undefined;
  temperature?: number | undefined;
  stopSequences?: string[] | undefined;
  topP?: number | undefined;
  topK?: number | undefined;
  presencePenalty?: number | undefined;
  frequencyPenalty?: number | undefined;
  seed?: number | undefined;
  responseFormat?: { type: "text" } | { type: "json"; schema?: AiSdkJsonSchema | undefined; name?: string | undefined; description?: string | undefined } | undefined;
  tools?: (AiSdkFunctionTool | AiSdkProviderTool)[] | undefined;
  toolChoice?: { type: "auto" } | { type: "none" } | { type: "required" } | { type: "tool"; toolName: string } | undefined;
  includeRawChunks?: boolean | undefined;
  abortSignal?: AbortSignal | undefined;
  headers?: Record<string, string | undefined> | undefined;
  reasoning?: AiSdkReasoning | undefined;
  providerOptions?: AiSdkProviderMetadata | undefined;
}

/**
 * A warning a model reports for a call (an unsupported setting, a compatibility mode, ...).
 *
 * @example
 * ```ts
 * const warning: AiSdkWarning = { type: "unsupported", feature: "temperature" };
 * ```
 */
export interface AiSdkWarning {
  type: string;
  feature?: string | undefined;
  details?: string | undefined;
  message?: string | undefined;
}

/**
 * Token counts as the SDK reports them; a count the provider did not give is `undefined`.
 *
 * @example
 * ```ts
 * const usage: AiSdkUsage = { inputTokens: { total: 120, noCache: 20, cacheRead: 100 }, outputTokens: { total: 30 } };
 * ```
 */
export interface AiSdkUsage {
  inputTokens: { total?: number | undefined; noCache?: number | undefined; cacheRead?: number | undefined; cacheWrite?: number | undefined };
  outputTokens: { total?: number | undefined; text?: number | undefined; reasoning?: number | undefined };
}

/**
 * Why the response ended: the SDK's unified reason and the provider's own.
 *
 * @example
 * ```ts
 * const reason: AiSdkFinishReason = { unified: "tool-calls", raw: "tool_use" };
 * ```
 */
export interface AiSdkFinishReason {
  unified: "stop" | "length" | "content-filter" | "tool-calls" | "error" | "interrupted" | "other" | (string & {});
  raw?: string | undefined;
}

type WithMetadata = { providerMetadata?: AiSdkProviderMetadata | undefined };

/** The stream parts the bridge reads. */
export type AiSdkKnownStreamPart =
  | { type: "stream-start"; warnings: AiSdkWarning[] }
  | { type: "response-metadata"; id?: string | undefined; modelId?: string | undefined; timestamp?: Date | undefined }
  | ({ type: "text-start"; id: string } & WithMetadata)
  | ({ type: "text-delta"; id: string; delta: string } & WithMetadata)
  | ({ type: "text-end"; id: string } & WithMetadata)
  | ({ type: "reasoning-start"; id: string } & WithMetadata)
  | ({ type: "reasoning-delta"; id: string; delta: string } & WithMetadata)
  | ({ type: "reasoning-end"; id: string } & WithMetadata)
  | ({ type: "tool-input-start"; id: string; toolName: string; inputEncoding?: "json" | "text" | undefined; providerExecuted?: boolean | undefined } & WithMetadata)
  | ({ type: "tool-input-delta"; id: string; delta: string } & WithMetadata)
  | ({ type: "tool-input-end"; id: string } & WithMetadata)
  | ({ type: "tool-call"; toolCallId: string; toolName: string; input: string; providerExecuted?: boolean | undefined } & WithMetadata)
  | ({ type: "finish"; usage: AiSdkUsage; finishReason: AiSdkFinishReason } & WithMetadata)
  | { type: "error"; error: unknown };

/**
 * Any stream part: the ones the bridge reads, and the others it passes over (sources, files,
 * raw chunks, provider-executed tool results, approval requests, parts newer than the bridge).
 *
 * @example
 * ```ts
 * const part: AiSdkStreamPart = { type: "text-delta", id: "0", delta: "Hel" };
 * ```
 */
export type AiSdkStreamPart = AiSdkKnownStreamPart | { type: string };

/** What `doStream` resolves to. */
export interface AiSdkStreamResult {
  stream: ReadableStream<AiSdkStreamPart>;
}

/**
 * An AI SDK language model (`LanguageModelV4`), as the bridge calls it. Every model of an AI
 * SDK 7 provider package fits: `anthropic("claude-sonnet-4-5")`, `openai("gpt-5-mini")`, ...
 *
 * @example
 * ```ts
 * const model: AiSdkLanguageModel = createAnthropic({ apiKey })("claude-sonnet-4-5");
 * ```
 */
export interface AiSdkLanguageModel {
  readonly specificationVersion: "v4";
  /** The provider's name for itself and the API, e.g. `anthropic.messages`, `openai.responses`. */
  readonly provider: string;
  readonly modelId: string;
  doStream(options: AiSdkCallOptions): PromiseLike<AiSdkStreamResult>;
}
