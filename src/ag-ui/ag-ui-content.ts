/**
 * Content and usage between rxagent and AG-UI: a tool result's blocks as AG-UI content, and a
 * run's usage as AG-UI's per-model token counts.
 *
 * @module
 */
import type { AssistantMessage, ImageContent, TextContent, Usage } from "../model/messages.js";
import type { AgentMessage } from "../model/types.js";
import type { AgUiContentPart, AgUiTokenUsage } from "./ag-ui-types.js";

/**
 * A tool result's content as AG-UI carries it: plain text when it is only text (what most
 * front ends render), else parts, images as inline data.
 *
 * @example
 * ```ts
 * resultContent([{ type: "text", text: "18°C" }]); // "18°C"
 * ```
 */
export function resultContent(content: readonly (TextContent | ImageContent)[]): string | AgUiContentPart[] {
  if (content.every((block) => block.type === "text")) return content.map((block) => (block as TextContent).text).join("");
  return content.map((block): AgUiContentPart =>
    block.type === "text" ? { type: "text", text: block.text } : { type: "image", source: { type: "data", value: block.data, mimeType: block.mimeType } },
  );
}

/** A count AG-UI's schema accepts: a non-negative safe integer (missing or broken figures count as 0, as in rxagent's sums). */
function count(value: number): number {
  return Number.isFinite(value) && value > 0 ? Math.min(Math.round(value), Number.MAX_SAFE_INTEGER) : 0;
}

function add(into: AgUiTokenUsage, usage: Usage): void {
  const cacheRead = count(usage.cacheRead);
  const cacheWrite = count(usage.cacheWrite);
  // AG-UI's input counts every prompt token, cached or not; rxagent's `input` is the uncached part.
  const input = count(usage.input) + cacheRead + cacheWrite;
  const output = count(usage.output);
  into.inputTokens = (into.inputTokens ?? 0) + input;
  into.outputTokens = (into.outputTokens ?? 0) + output;
  into.totalTokens = (into.totalTokens ?? 0) + input + output;
  into.cachedInputTokens = (into.cachedInputTokens ?? 0) + cacheRead;
  into.cacheWriteInputTokens = (into.cacheWriteInputTokens ?? 0) + cacheWrite;
}

/**
 * A run's usage as AG-UI reports it: one entry per provider and model that answered, summed over
 * the assistant messages among `messages`; `undefined` when no model answered.
 *
 * @example
 * ```ts
 * runUsage(end.messages); // [{ provider: "openai", model: "gpt-4o-mini", inputTokens: 120, outputTokens: 30, totalTokens: 150, ... }]
 * ```
 */
export function runUsage(messages: readonly AgentMessage[]): AgUiTokenUsage[] | undefined {
  const byModel = new Map<string, AgUiTokenUsage>();
  for (const message of messages) {
    if ((message as { role?: unknown }).role !== "assistant") continue;
    const answer = message as AssistantMessage;
    const key = `${answer.provider}\n${answer.model}`;
    let entry = byModel.get(key);
    if (!entry) byModel.set(key, (entry = { provider: String(answer.provider), model: String(answer.model) }));
    if (answer.usage) add(entry, answer.usage);
  }
  return byModel.size > 0 ? [...byModel.values()] : undefined;
}
