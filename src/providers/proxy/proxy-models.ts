/**
 * Which model the proxy calls: one the server defines. The client's model selects it by `id`
 * (and `api`, when sent); nothing else of the client's model is used.
 *
 * @module
 */
import type { Model } from "../../model/messages.js";
import type { ProxyHandlerOptions, ProxyModelRequest } from "./proxy-options.js";

/**
 * Builds the lookup for `options.models` and `options.resolveModel`. Throws when neither is
 * given: the proxy has no mode that calls whatever model the client describes.
 *
 * @example
 * ```ts
 * const resolve = modelResolver({ models: [{ id: "gpt-4o-mini", api: "openai-completions", provider: "openai" }] });
 * await resolve({ id: "gpt-4o-mini" }, request); // the server's model
 * ```
 */
export function modelResolver(options: Pick<ProxyHandlerOptions, "models" | "resolveModel">): (requested: ProxyModelRequest, request: Request) => Promise<Model | undefined> {
  const { models, resolveModel } = options;
  if (models === undefined && resolveModel === undefined) {
    throw new TypeError("createProxyHandler: give `models` (the models clients may use, defined on the server) or `resolveModel`");
  }
  // A Map, so ids such as "__proto__" or "constructor" find nothing they should not.
  const byId = new Map<string, Model>();
  if (Array.isArray(models)) for (const model of models as readonly Model[]) byId.set(model.id, model);
  else if (models) for (const [id, model] of Object.entries(models)) byId.set(id, model);
  return async (requested, request) => {
    const listed = byId.get(requested.id);
    if (listed) return requested.api === undefined || requested.api === listed.api ? listed : undefined;
    return resolveModel ? ((await resolveModel({ ...requested }, request)) ?? undefined) : undefined;
  };
}
