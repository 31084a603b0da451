/**
 * Typing bridges for pi-ai (`@earendil-works/pi-ai`) values.
 *
 * At run time pi-ai's `streamSimple` is a `StreamFn` as it is (its result is an async iterable
 * of the same protocol events, SPEC M3) and its models and messages are rxagent's (SPEC M1).
 * Its TypeScript types differ in three details, so these helpers state the fit once instead of
 * a cast at every use: pi-ai brands its context type (`TranscriptContext`), gives partial
 * messages a `"pending"` stop reason, and declares `Model` as an interface without an index
 * signature. They copy or convert nothing; `fromPiAi` only answers the Agent's placeholder model
 * itself (SPEC A8).
 *
 * @module
 */
import { failedAssistantMessage } from "../model/assistant-message.js";
import type { AssistantMessageEvent, Model, StreamFn } from "../model/messages.js";
import { isPlaceholderModel, NO_MODEL_ERROR } from "../model/placeholder-model.js";

/** Any pi-ai stream function: `streamSimple`, `stream`, `models.streamSimple` bound, ... */
export type PiAiStreamFunction = (model: never, context: never, options?: never) => unknown;

/**
 * pi-ai's stream function as a `StreamFn`: each request goes to it as it is, except one for the
 * Agent's placeholder model (an Agent given no model, SPEC A8), which fails at once with
 * `No model: …` and sends nothing, as pi-ai reports a failed request: one `error` event.
 *
 * @example
 * ```ts
 * import { streamSimple } from "@earendil-works/pi-ai/api/openai-completions";
 * const streamFn = fromPiAi(streamSimple);
 * ```
 */
export function fromPiAi(streamFunction: PiAiStreamFunction): StreamFn {
  const stream = streamFunction as unknown as StreamFn;
  return (model, context, options) => (isPlaceholderModel(model) ? [noModel(model, options?.scheduler?.now() ?? Date.now())] : stream(model, context, options));
}

/** The one event of a request for the placeholder model. */
function noModel(model: Model, timestamp: number): AssistantMessageEvent {
  return { type: "error", reason: "error", error: failedAssistantMessage(model, NO_MODEL_ERROR, "error", timestamp) };
}

/**
 * A pi-ai catalog model as rxagent's `Model` (the same object).
 *
 * @example
 * ```ts
 * const model = fromPiAiModel(models.getModel("openai", "gpt-4o-mini")!);
 * ```
 */
export function fromPiAiModel<M extends { id: string; api: string; provider: string }>(model: M): Model & M {
  return model as Model & M;
}
