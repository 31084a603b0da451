/**
 * The model-facing vocabulary: messages, content blocks, usage, the provider event protocol and
 * the `StreamFn` boundary (SPEC M1, M3, M4).
 *
 * These shapes are structurally compatible with pi-ai's, so a pi-ai message or a pi-ai
 * `streamSimple` result can be used without conversion.
 *
 * @module
 */
import type { ObservableInput, SchedulerLike } from "rxjs";

/** A JSON value, as tool arguments and details carry them. */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | JsonObject;
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** Plain text in a message. */
export interface TextContent {
  type: "text";
  text: string;
  textSignature?: string;
}

/** Model reasoning, shown to the user but not an answer. */
export interface ThinkingContent {
  type: "thinking";
  thinking: string;
  thinkingSignature?: string;
  redacted?: boolean;
}

/** A base64 image. */
export interface ImageContent {
  type: "image";
  data: string;
  mimeType: string;
}

/** A tool call requested by the assistant. */
export interface ToolCall {
  type: "toolCall";
  id: string;
  name: string;
  arguments: Record<string, any>;
  /** Set by a provider when the streamed arguments could not be parsed as JSON. */
  argumentsError?: string;
  thoughtSignature?: string;
}

/** Token usage and cost of one response. */
export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  cost: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
}

/**
 * Why an assistant message ended. `toolUse` asks the loop to run its tool calls; `length`
 * means the output was cut at the token limit; `error` and `aborted` end the run.
 * `pending` and `deferred` exist for pi-ai compatibility (its messages type-check unchanged);
 * the loop treats them like `stop`.
 */
export type StopReason = "stop" | "length" | "toolUse" | "error" | "aborted" | "pending" | "deferred";

/** A tool as the model sees it: name, description and a JSON Schema for its arguments. */
export interface Tool<TParameters extends object = object> {
  name: string;
  description: string;
  parameters: TParameters;
}

/** Names a tool in `toolsRemoved`. */
export interface ToolReference {
  name: string;
}

/**
 * A system message. The leading one is the system prompt; later ones append `content`,
 * replace or delete (`null`) named `sections`, and add or remove tool declarations (SPEC M5).
 */
export interface SystemMessage {
  role: "system";
  content: string | TextContent[];
  sections?: Record<string, string | null>;
  toolsAdded?: Tool[];
  toolsRemoved?: ToolReference[];
  timestamp: number;
}

/** A user turn: text and images. */
export interface UserMessage {
  role: "user";
  content: string | (TextContent | ImageContent)[];
  timestamp: number;
}

/** What the model answered. */
export interface AssistantMessage {
  role: "assistant";
  content: (TextContent | ThinkingContent | ToolCall)[];
  api: string;
  provider: string;
  model: string;
  usage: Usage;
  stopReason: StopReason;
  errorMessage?: string;
  responseId?: string;
  timestamp: number;
  durationMs?: number;
}

/** The result of one tool call, sent back to the model. */
export interface ToolResultMessage<TDetails = any> {
  role: "toolResult";
  toolCallId: string;
  toolName: string;
  content: (TextContent | ImageContent)[];
  details?: TDetails;
  usage?: Usage;
  isError: boolean;
  timestamp: number;
  durationMs?: number;
}

/** Every message a model understands. */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolResultMessage;

/**
 * The provider event protocol (pi-ai's): `start`, then text / thinking / tool-call blocks as
 * `*_start`, `*_delta`, `*_end`, then exactly one `done` or `error` carrying the final message.
 * Every event but the last carries the growing `partial` message.
 */
export type AssistantMessageEvent =
  | { type: "start"; partial: AssistantMessage }
  | { type: "text_start"; contentIndex: number; partial: AssistantMessage }
  | { type: "text_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "text_end"; contentIndex: number; content: string; partial: AssistantMessage }
  | { type: "thinking_start"; contentIndex: number; partial: AssistantMessage }
  | { type: "thinking_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "thinking_end"; contentIndex: number; content: string; partial: AssistantMessage }
  | { type: "toolcall_start"; contentIndex: number; partial: AssistantMessage }
  | { type: "toolcall_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "toolcall_end"; contentIndex: number; toolCall: ToolCall; partial: AssistantMessage }
  | { type: "done"; reason: Exclude<StopReason, "error" | "aborted">; message: AssistantMessage }
  | { type: "error"; reason: "aborted" | "error"; error: AssistantMessage };

/** Requested reasoning effort. */
export type ThinkingLevel = "off" | "minimal" | "low" | "medium" | "high" | "xhigh" | "max";

/** Token budgets per thinking level, for providers that take a budget. */
export interface ThinkingBudgets {
  minimal?: number | undefined;
  low?: number | undefined;
  medium?: number | undefined;
  high?: number | undefined;
}

/**
 * The model to call. Only `id`, `api` and `provider` are read by the core; providers read
 * the rest. A pi-ai `Model` fits.
 */
export interface Model {
  id: string;
  api: string;
  provider: string;
  name?: string | undefined;
  baseUrl?: string | undefined;
  reasoning?: boolean | undefined;
  [key: string]: unknown;
}

/** What the provider receives: the transcript, already converted with `convertToLlm`. */
export interface LlmContext {
  /**
   * The messages to send. Treat the array as read-only and valid for this request only:
   * the loop reuses it across requests (SPEC L4b); copy it if you keep it.
   */
  messages: Message[];
}

/** Provider settings that the loop config carries and passes on to every request. */
export interface ProviderOptions {
  /** From `getApiKey(provider)` per request, else the configured `apiKey`. */
  apiKey?: string | undefined;
  /** Requested reasoning effort; absent when thinking is off. */
  reasoning?: Exclude<ThinkingLevel, "off"> | undefined;
  sessionId?: string | undefined;
  thinkingBudgets?: ThinkingBudgets | undefined;
  maxTokens?: number | undefined;
  temperature?: number | undefined;
  headers?: Record<string, string> | undefined;
  /** The loop's scheduler, for providers and wrappers that wait (retries, scripted pacing). */
  scheduler?: SchedulerLike | undefined;
}

/** Options the loop hands to a `StreamFn` on every request (SPEC M3). */
export interface StreamOptions extends ProviderOptions {
  /** Fires on `agent.abort()`, on the loop's `signal`, and when the run is unsubscribed. */
  signal?: AbortSignal | undefined;
  [key: string]: unknown;
}

/**
 * A model call. Returns the provider events as anything RxJS can read — an Observable, an
 * async iterable (pi-ai's `streamSimple` result), an array, a promise — or a promise of one.
 *
 * @example
 * ```ts
 * import { of } from "rxjs";
 * const streamFn: StreamFn = (model, context) => of({ type: "done", reason: "stop", message });
 * ```
 */
export type StreamFn = (
  model: Model,
  context: LlmContext,
  options: StreamOptions,
) => ObservableInput<AssistantMessageEvent> | PromiseLike<ObservableInput<AssistantMessageEvent>>;
