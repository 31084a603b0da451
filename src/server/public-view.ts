/**
 * What of an Agent's state a follower may read. The model travels as its names only: its
 * `headers` may hold credentials and its `baseUrl` an internal address, and neither is the
 * page's business.
 *
 * @module
 */
import type { AgentStateView } from "../agent/agent-state-reducer.js";
import type { Model } from "../model/messages.js";

/** The model's fields a page may see. */
const PUBLIC_MODEL_FIELDS = ["id", "name", "api", "provider", "reasoning", "input", "contextWindow", "maxTokens"] as const;

/** `model` without what only the server should know. */
export function publicModel(model: Model): Model {
  const visible: Record<string, unknown> = {};
  for (const field of PUBLIC_MODEL_FIELDS) if ((model as unknown as Record<string, unknown>)[field] !== undefined) visible[field] = (model as unknown as Record<string, unknown>)[field];
  return visible as unknown as Model;
}

/**
 * `view` as a follower may read it: the model's names only.
 *
 * @example
 * ```ts
 * JSON.stringify(publicView(view)); // no model.headers, no model.baseUrl
 * ```
 */
export function publicView(view: AgentStateView): AgentStateView {
  return { ...view, model: publicModel(view.model) };
}
