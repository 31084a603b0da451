/**
 * Usage summed over messages (SPEC R5): what a run, or a session, used.
 *
 * @module
 */
import type { Usage } from "./messages.js";

/**
 * Adds `usage` to `total` in place. Missing or non-finite fields count as 0, so a provider that
 * reports only some of them never turns a total into `NaN`.
 *
 * @example
 * ```ts
 * const total = emptyUsage();
 * for (const m of messages) if (m.role === "assistant") addUsage(total, m.usage);
 * ```
 */
export function addUsage(total: Usage, usage: Partial<Usage> | undefined): Usage {
  if (!usage) return total;
  total.input += finite(usage.input);
  total.output += finite(usage.output);
  total.cacheRead += finite(usage.cacheRead);
  total.cacheWrite += finite(usage.cacheWrite);
  total.totalTokens += finite(usage.totalTokens);
  const cost = usage.cost;
  if (cost) {
    total.cost.input += finite(cost.input);
    total.cost.output += finite(cost.output);
    total.cost.cacheRead += finite(cost.cacheRead);
    total.cost.cacheWrite += finite(cost.cacheWrite);
    total.cost.total += finite(cost.total);
  }
  return total;
}

/** A copy of `usage` that shares nothing with it. */
export function copyUsage(usage: Usage): Usage {
  return { ...usage, cost: { ...usage.cost } };
}

function finite(value: number | undefined): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}
