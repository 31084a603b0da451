/**
 * Building assistant messages: the empty usage record and the normalized failure message that
 * stands in for a provider that failed (SPEC M4).
 *
 * @module
 */
import type { AssistantMessage, Model, Usage } from "./messages.js";

/** A usage record of zeros. A fresh object each call, so callers may fill it in. */
export function emptyUsage(): Usage {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

/** An assistant message with no content yet, attributed to `model`. */
export function emptyAssistantMessage(model: Pick<Model, "id" | "api" | "provider">, timestamp: number): AssistantMessage {
  return {
    role: "assistant",
    content: [],
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: emptyUsage(),
    stopReason: "stop",
    timestamp,
  };
}

/**
 * The final message of a failed or aborted response. Keeps whatever content was streamed
 * before the failure (`partial`), so nothing the user already saw disappears.
 *
 * @example
 * ```ts
 * failedAssistantMessage(model, "HTTP 401: invalid key", "error", Date.now());
 * ```
 */
export function failedAssistantMessage(
  model: Pick<Model, "id" | "api" | "provider">,
  errorMessage: string,
  stopReason: "error" | "aborted",
  timestamp: number,
  partial?: AssistantMessage,
): AssistantMessage {
  const base = partial ? { ...partial, content: partial.content.slice() } : emptyAssistantMessage(model, timestamp);
  return { ...base, stopReason, errorMessage };
}

/**
 * The message the loop itself writes when a run fails or is aborted before the provider said
 * anything (a hook, listener or provider call failed): {@link failedAssistantMessage}, with one
 * empty text block standing in for the missing content, the shape pi-agent-core writes.
 */
export function normalizedFailureMessage(
  model: Pick<Model, "id" | "api" | "provider">,
  errorMessage: string,
  stopReason: "error" | "aborted",
  timestamp: number,
  partial?: AssistantMessage,
): AssistantMessage {
  const message = failedAssistantMessage(model, errorMessage, stopReason, timestamp, partial);
  if (!partial) message.content = [{ type: "text", text: "" }];
  return message;
}
