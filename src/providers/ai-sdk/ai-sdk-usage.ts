/**
 * AI SDK token usage → rxagent `Usage`.
 *
 * @internal
 * @module
 */
import { emptyUsage } from "../../model/assistant-message.js";
import type { Usage } from "../../model/messages.js";
import type { AiSdkUsage } from "./ai-sdk-types.js";

/** Dollars per million tokens, as pi-ai's catalog and `openaiCompatible` read `model.cost`. */
interface Rates {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/**
 * The usage of one response. `input` counts the prompt tokens that were neither read from nor
 * written to the cache (the SDK's `noCache`, else the total less both), so `input`, `cacheRead`
 * and `cacheWrite` add up to the prompt, as pi-ai counts them; reasoning tokens are part of
 * `output`. The cost is computed when `model.cost` gives prices (dollars per million tokens),
 * else it stays 0. Counts the provider did not report are 0.
 *
 * @example
 * ```ts
 * fromAiSdkUsage(part.usage, { id: "claude-sonnet-4-5", api: "ai-sdk", provider: "anthropic.messages", cost: { input: 3, output: 15 } });
 * ```
 */
export function fromAiSdkUsage(usage: AiSdkUsage | undefined, model: { readonly cost?: unknown; readonly [key: string]: unknown }): Usage {
  const result = emptyUsage();
  if (!usage) return result;
  const count = (value: unknown) => (typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0);
  const cacheRead = count(usage.inputTokens?.cacheRead);
  const cacheWrite = count(usage.inputTokens?.cacheWrite);
  const noCache = usage.inputTokens?.noCache;
  const input = typeof noCache === "number" ? count(noCache) : Math.max(0, count(usage.inputTokens?.total) - cacheRead - cacheWrite);
  const output = count(usage.outputTokens?.total);
  const rates = (model.cost && typeof model.cost === "object" ? model.cost : {}) as Rates;
  const price = (rate: number | undefined, tokens: number) => ((typeof rate === "number" ? rate : 0) * tokens) / 1e6;
  result.input = input;
  result.output = output;
  result.cacheRead = cacheRead;
  result.cacheWrite = cacheWrite;
  result.totalTokens = input + output + cacheRead + cacheWrite;
  result.cost.input = price(rates.input, input);
  result.cost.output = price(rates.output, output);
  result.cost.cacheRead = price(rates.cacheRead, cacheRead);
  result.cost.cacheWrite = price(rates.cacheWrite, cacheWrite);
  result.cost.total = result.cost.input + result.cost.output + result.cost.cacheRead + result.cost.cacheWrite;
  return result;
}
