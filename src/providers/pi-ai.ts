/**
 * Typing bridges for pi-ai (`@earendil-works/pi-ai`) values.
 *
 * At run time pi-ai's `streamSimple` is a `StreamFn` as it is (its result is an async iterable
 * of the same protocol events, SPEC M3) and its models and messages are rxagent's (SPEC M1).
 * Its TypeScript types differ in three details, so these helpers state the fit once instead of
 * a cast at every use: pi-ai brands its context type (`TranscriptContext`), gives partial
 * messages a `"pending"` stop reason, and declares `Model` as an interface without an index
 * signature. They copy or convert nothing.
 *
 * @module
 */
import type { Model, StreamFn } from "../model/messages.js";

/** Any pi-ai stream function: `streamSimple`, `stream`, `models.streamSimple` bound, ... */
export type PiAiStreamFunction = (model: never, context: never, options?: never) => unknown;

/**
 * pi-ai's stream function as a `StreamFn`, unchanged.
 *
 * @example
 * ```ts
 * import { streamSimple } from "@earendil-works/pi-ai/api/openai-completions";
 * const streamFn = fromPiAi(streamSimple);
 * ```
 */
export function fromPiAi(streamFunction: PiAiStreamFunction): StreamFn {
  return streamFunction as unknown as StreamFn;
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
