/**
 * The attributes a run span starts with, those of one answer's `chat` span, and the usage
 * figures a run adds up.
 *
 * @internal
 * @module
 */
import type { Attributes } from "@opentelemetry/api";
import type { AssistantMessage, Usage } from "../model/messages.js";
import { ATTR, finishReason, OPERATION, providerName, serverOf } from "./attributes.js";
import type { TracedModel, TracingSettings } from "./tracing-options.js";

/**
 * What the run span starts with: the sampler decides on these, so the model, the provider and
 * the server are among them, as the conventions ask.
 */
export function runAttributes(settings: TracingSettings, model: TracedModel | undefined) {
  const attributes: Attributes = { [ATTR.operationName]: OPERATION.invokeAgent, ...settings.runAttributes };
  const provider = settings.providerName ?? (model?.provider ? providerName(model.provider) : undefined);
  if (provider !== undefined) attributes[ATTR.providerName] = provider;
  if (model?.id) attributes[ATTR.requestModel] = model.id;
  const server = serverOf(model?.baseUrl);
  if (server) {
    attributes[ATTR.serverAddress] = server.address;
    attributes[ATTR.serverPort] = server.port;
  }
  const conversationId = settings.conversationId();
  if (conversationId !== undefined) attributes[ATTR.conversationId] = conversationId;
  return { attributes, provider, server, conversationId };
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/** The usage attributes of one answer (the conventions count cached input in the input). */
export function usageAttributes(attributes: Attributes, input: number, output: number, cacheRead: number, cacheWrite: number): void {
  attributes[ATTR.inputTokens] = input + cacheRead + cacheWrite;
  attributes[ATTR.outputTokens] = output;
  if (cacheRead > 0) attributes[ATTR.cacheReadTokens] = cacheRead;
  if (cacheWrite > 0) attributes[ATTR.cacheCreationTokens] = cacheWrite;
}

/** The model that served an answer: what the provider reported (`responseModel`), else the message's `model`. */
function responseModelOf(message: AssistantMessage): string | undefined {
  const served = (message as { responseModel?: unknown }).responseModel;
  if (typeof served === "string" && served !== "") return served;
  return message.model || undefined;
}

/** One answer's attributes (finish reason, response model and id, usage) and its usage counts, non-numbers read as 0. */
export function answerAttributes(message: AssistantMessage): { attributes: Attributes; input: number; output: number; cacheRead: number; cacheWrite: number } {
  const usage: Partial<Usage> = message.usage ?? {};
  const input = count(usage.input);
  const output = count(usage.output);
  const cacheRead = count(usage.cacheRead);
  const cacheWrite = count(usage.cacheWrite);
  const attributes: Attributes = { [ATTR.finishReasons]: [finishReason(message.stopReason)] };
  const served = responseModelOf(message);
  if (served) attributes[ATTR.responseModel] = served;
  if (message.responseId) attributes[ATTR.responseId] = message.responseId;
  usageAttributes(attributes, input, output, cacheRead, cacheWrite);
  return { attributes, input, output, cacheRead, cacheWrite };
}
