/**
 * The model an Agent runs with when it was given none (SPEC A8): pi-agent-core's placeholder,
 * with the same field values, so a `streamFn` that ignores the model (a test double, a scripted
 * model) runs as it does under pi. A provider that sends a model id to a server cannot use it:
 * it fails that request with {@link NO_MODEL_ERROR} instead of asking a server for "unknown".
 *
 * @module
 */
import type { Model } from "./messages.js";

const UNKNOWN = "unknown";

/**
 * A fresh copy of the placeholder model: id, name, api and provider `"unknown"`, no base URL, no
 * reasoning, no inputs, zero cost, context window and output limit. A copy per Agent, so an app
 * that edits its Agent's `state.model` in place changes no other Agent's.
 *
 * @example
 * ```ts
 * const agent = new Agent({ streamFn });
 * agent.state.model; // placeholderModel(): { id: "unknown", api: "unknown", provider: "unknown", ... }
 * ```
 */
export function placeholderModel(): Model {
  return {
    id: UNKNOWN,
    name: UNKNOWN,
    api: UNKNOWN,
    provider: UNKNOWN,
    baseUrl: "",
    reasoning: false,
    input: [],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 0,
    maxTokens: 0,
  };
}

/**
 * Whether `model` is the placeholder (by its id, api and provider, so a copy that crossed a
 * journal or a wire still counts).
 *
 * @example
 * ```ts
 * if (isPlaceholderModel(model)) return failWith(NO_MODEL_ERROR); // before any request is sent
 * ```
 */
export function isPlaceholderModel(model: Pick<Model, "id" | "api" | "provider"> | undefined): boolean {
  return model !== undefined && model.id === UNKNOWN && model.api === UNKNOWN && model.provider === UNKNOWN;
}

/**
 * The `errorMessage` of a request a provider refused because it was given the placeholder: what
 * is wrong and how to fix it.
 *
 * @example
 * ```ts
 * emit(builder.fail("error", NO_MODEL_ERROR));
 * ```
 */
export const NO_MODEL_ERROR = `No model: the Agent has no model (it uses the placeholder "unknown"). Pass initialState.model or set agent.state.model.`;
