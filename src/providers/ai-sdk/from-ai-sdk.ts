/**
 * A `StreamFn` over any Vercel AI SDK language model (`LanguageModelV4`): `@ai-sdk/anthropic`,
 * `@ai-sdk/openai`, `@ai-sdk/google`, `@ai-sdk/mistral`, the gateway, a community provider,
 * or a model wrapped in AI SDK middleware.
 *
 * The bridge calls the model's `doStream` and reads its stream parts. It describes that
 * interface in its own types (`ai-sdk-types.ts`), so it needs nothing of the AI SDK, at run
 * time or to type-check, and adds no dependency of its own. Each
 * subscription is one call: it starts on subscribe, and unsubscribing (or the loop's `signal`)
 * aborts the `abortSignal` the model was given. Failures never error the Observable; they
 * become the final `error` event with a readable `errorMessage` (SPEC M4).
 *
 * @module
 */
import { failedAssistantMessage } from "../../model/assistant-message.js";
import { describeError } from "../../model/describe-error.js";
import { redactSecrets } from "../../model/redact-secrets.js";
import { isPlaceholderModel, NO_MODEL_ERROR } from "../../model/placeholder-model.js";
import type { AssistantMessage, AssistantMessageEvent, LlmContext, Model, StreamFn, StreamOptions } from "../../model/messages.js";
import { fromAbortableRun } from "../shared/abortable-run.js";
import { AssistantMessageBuilder } from "../shared/message-builder.js";
import { type ProviderFailure, recordProviderFailure } from "../shared/provider-failure.js";
import { StreamFailure, truncate } from "../shared/stream-failure.js";
import { buildAiSdkCall, type AiSdkCallSettings, type AiSdkReasoningMap } from "./ai-sdk-call.js";
import { describeAiSdkFailure } from "./ai-sdk-failure.js";
import { AiSdkStreamReader } from "./ai-sdk-stream-reader.js";
import type { AiSdkCallOptions, AiSdkLanguageModel, AiSdkWarning } from "./ai-sdk-types.js";

/**
 * Picks the AI SDK model for one request: from the rxagent `model` (its `id`, say) and the
 * request's options (the `apiKey` the loop's `getApiKey` gave). It may return a promise.
 *
 * @example
 * ```ts
 * const resolve: AiSdkModelResolver = (model, { apiKey }) => createAnthropic({ apiKey })(model.id);
 * ```
 */
export type AiSdkModelResolver = (model: Model, options: StreamOptions) => AiSdkLanguageModel | PromiseLike<AiSdkLanguageModel>;

/**
 * Configuration of {@link fromAiSdk}.
 *
 * @example
 * ```ts
 * const options: FromAiSdkOptions = { callOptions: { topP: 0.9 }, onWarnings: (warnings) => console.warn(warnings) };
 * ```
 */
export interface FromAiSdkOptions {
  /**
   * Call options for every request: `providerOptions` (Anthropic's `thinking` budget, OpenAI's
   * `store`), `topP`, `stopSequences`, `seed`, `toolChoice`, provider `tools`, `headers`, ...
   * The request's own `maxTokens`, `temperature`, `reasoning` and `headers` take precedence.
   */
  callOptions?: AiSdkCallSettings | undefined;
  /** Maps the thinking level to the SDK's `reasoning`. Default: the same name; nothing when off. */
  reasoning?: AiSdkReasoningMap | undefined;
  /** Sees the call options just before `doStream` and may return a replacement. */
  onRequest?: ((call: AiSdkCallOptions, model: Model) => AiSdkCallOptions | void) | undefined;
  /** Receives the warnings a model reports for a call (unsupported settings, compatibility modes). */
  onWarnings?: ((warnings: AiSdkWarning[], model: Model) => void) | undefined;
}

/**
 * The `api` of messages written through the bridge (see {@link aiSdkModel}).
 *
 * @example
 * ```ts
 * const viaAiSdk = agent.state.messages.filter((m) => m.role === "assistant" && m.api === AI_SDK_API);
 * ```
 */
export const AI_SDK_API = "ai-sdk";

/**
 * The rxagent `Model` that names an AI SDK model: its `modelId` and `provider` (e.g.
 * `anthropic.messages`, `openai.responses`), `api: "ai-sdk"`, plus any `fields` (a `cost` to
 * price the usage with, `reasoning`, `name`).
 *
 * @example
 * ```ts
 * const model = aiSdkModel(anthropic("claude-sonnet-4-5"), { cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } });
 * ```
 */
export function aiSdkModel(languageModel: Pick<AiSdkLanguageModel, "modelId" | "provider">, fields: Partial<Model> = {}): Model {
  return { id: languageModel.modelId, api: AI_SDK_API, provider: languageModel.provider, ...fields };
}

function isLanguageModel(value: unknown): value is AiSdkLanguageModel {
  return value !== null && typeof value === "object" && typeof (value as AiSdkLanguageModel).doStream === "function";
}

function checkVersion(value: unknown): AiSdkLanguageModel {
  if (!isLanguageModel(value)) throw new TypeError(`fromAiSdk needs an AI SDK language model (an object with doStream), got ${value === null ? "null" : typeof value}.`);
  const version = (value as { specificationVersion?: unknown }).specificationVersion;
  if (version !== "v4") {
    throw new TypeError(`fromAiSdk needs a LanguageModelV4 (specificationVersion "v4", AI SDK 7 providers); ${value.provider}/${value.modelId} is "${String(version)}".`);
  }
  return value;
}

/**
 * Creates a `StreamFn` that calls an AI SDK language model.
 *
 * ```text
 * subscribe ──► doStream(call)
 * parts:      stream-start, response-metadata, text-start, text-delta, text-delta, text-end, finish, end
 * events:     start ─────────────────────────── text_start ─ text_delta ─ text_delta ─ text_end ── done|
 * parts:      …, text-delta, error                 (or doStream rejects: HTTP 429)
 * events:     …, text_delta, error|                (the text so far, stopReason "error")
 * unsubscribe ──► abortSignal aborts: the HTTP request is cancelled
 * ```
 *
 * @example
 * ```ts
 * import { createAnthropic } from "@ai-sdk/anthropic";
 * import { Agent } from "rxagent";
 * import { aiSdkModel, fromAiSdk } from "rxagent/ai-sdk";
 *
 * const claude = createAnthropic({ apiKey: process.env.ANTHROPIC_API_KEY })("claude-sonnet-4-5");
 * const agent = new Agent({ streamFn: fromAiSdk(claude), initialState: { model: aiSdkModel(claude) } });
 * ```
 * @param source - The model, or a resolver that picks one per request (to follow
 *   `agent.state.model`, or to build it with the key `getApiKey` gave).
 * @param options - Fixed call options and hooks.
 * @return A `StreamFn` whose result is a cold Observable of provider events.
 */
export function fromAiSdk(source: AiSdkLanguageModel | AiSdkModelResolver, options: FromAiSdkOptions = {}): StreamFn {
  let resolve: AiSdkModelResolver;
  // A resolver picks the model from the rxagent model's id; a model given directly has its own.
  const needsModelId = typeof source === "function";
  if (typeof source === "function") resolve = source;
  else {
    // A model given directly is checked now: a wrong object is the app's mistake, at its line.
    const languageModel = checkVersion(source);
    resolve = () => languageModel;
  }
  return (model: Model, context: LlmContext, streamOptions: StreamOptions = {}) =>
    fromAbortableRun<AssistantMessageEvent>((emit, signal) => run(resolve, options, model, context, streamOptions, emit, signal, needsModelId), streamOptions.signal);
}

/** The time on the request's scheduler, else the wall clock. */
function now(options: StreamOptions): number {
  return options.scheduler?.now() ?? Date.now();
}

/**
 * Where a call failed, which decides how its failure is classified: before or in `doStream`
 * (`call`), reading the model's stream (`read`: the provider's own failures, a body that broke
 * off), or handling what was read (`handle`: a hook of the app or the bridge itself threw, or a
 * part it could not take; never worth a retry).
 */
type Phase = "call" | "read" | "handle";

/** One call: resolve the model, `doStream`, read the parts; every outcome ends in one final event. */
async function run(
  resolve: AiSdkModelResolver,
  options: FromAiSdkOptions,
  model: Model,
  context: LlmContext,
  streamOptions: StreamOptions,
  emit: (event: AssistantMessageEvent) => void,
  signal: AbortSignal,
  needsModelId: boolean,
): Promise<void> {
  const clock = () => now(streamOptions);
  const builder = new AssistantMessageBuilder(model, clock());
  // The Agent's placeholder (SPEC A8): the resolver would pick model "unknown"; say what to fix instead, and call nothing.
  if (needsModelId && isPlaceholderModel(model)) return emit(builder.fail("error", NO_MODEL_ERROR));
  // Parts read after the signal fired are not delivered: the next event is `aborted`, with
  // what was delivered.
  let shown: AssistantMessage | undefined;
  const emitLive = (event: AssistantMessageEvent) => {
    if (signal.aborted) throw signal.reason;
    emit(event);
    if ("partial" in event) shown = event.partial;
  };
  let phase: Phase = "call";
  try {
    if (signal.aborted) throw signal.reason;
    const resolved: unknown = await resolve(model, streamOptions);
    // Aborted while the resolver ran (SPEC V5): no request, nor the hooks that prepare one.
    if (signal.aborted) throw signal.reason;
    const languageModel = checkVersion(resolved);
    let call = buildAiSdkCall(model, context.messages, streamOptions, options.callOptions, options.reasoning);
    call = options.onRequest?.(call, model) ?? call;
    if (signal.aborted) throw signal.reason;
    const result = await languageModel.doStream({ ...call, abortSignal: signal });
    phase = "handle";
    const reader = result.stream.getReader();
    // Cancelling the reader tells the provider's stream to stop reading the response body.
    const cancel = () => void reader.cancel(signal.reason).catch(() => undefined);
    signal.addEventListener("abort", cancel, { once: true });
    let complete = false;
    try {
      emitLive(builder.start());
      const parts = new AiSdkStreamReader(builder, model, clock, options.onWarnings);
      for (;;) {
        phase = "read";
        const next = await reader.read();
        phase = "handle";
        if (next.done) break;
        if (signal.aborted) throw signal.reason;
        for (const event of parts.part(next.value)) emitLive(event);
      }
      complete = true;
      for (const event of parts.finish()) emitLive(event);
    } finally {
      signal.removeEventListener("abort", cancel);
      if (!complete) cancel();
    }
  } catch (error) {
    emit(failureEvent(error, phase, model, builder, shown, signal, clock()));
  }
}

/**
 * The final event for a call that failed or was aborted. An abort keeps only what was
 * delivered (`shown`), not what was read after the signal fired.
 */
function failureEvent(
  error: unknown,
  phase: Phase,
  model: Model,
  builder: AssistantMessageBuilder,
  shown: AssistantMessage | undefined,
  signal: AbortSignal,
  at: number,
): AssistantMessageEvent {
  if (signal.aborted) {
    return { type: "error", reason: "aborted", error: failedAssistantMessage(model, "Request was aborted", "aborted", builder.partial.timestamp, shown) };
  }
  const { message, failure } =
    error instanceof StreamFailure
      ? { message: error.message, failure: error.failure }
      : phase === "handle"
        ? handlingFailure(error)
        : describeAiSdkFailure(error, phase, at);
  // An upstream may echo the key it was sent; the model, the UI and the journal read this text.
  const event = builder.fail("error", redactSecrets(message));
  if (failure) recordProviderFailure(event.error, failure);
  return event;
}

/**
 * A failure of the bridge's own handling of the stream (a part it could not take, a stream
 * result without a stream): recorded as not retryable, so neither `withRetry` nor the wording of
 * the error (a `TypeError`, the word "network") makes it look transient.
 */
function handlingFailure(error: unknown): { message: string; failure: ProviderFailure } {
  return { message: `rxagent/ai-sdk could not handle the model's stream: ${truncate(describeError(error), 1000)}`, failure: { kind: "protocol", retryable: false } };
}
