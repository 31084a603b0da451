/**
 * Budgets and breakers of a run (SPEC R2): what may be spent, how they are checked, and the
 * reason a run ends with when one is reached.
 *
 * @module
 */
import type { Usage } from "./messages.js";
import type { LimitReached, RunLimitName } from "./types.js";

/**
 * The limits of one run. A run limit is checked where the run would ask the model again, and
 * reaching one ends the run there — every tool call answered, the transcript valid for
 * `continue()`, the reason in `agent_end.limit` — never with a throw.
 *
 * @example
 * ```ts
 * agentLoop(prompts, context, { model, limits: { maxTurns: 8, maxCost: 0.5, toolTimeoutMs: 30_000, maxRepeatedCalls: 3 } }, undefined, streamFn);
 * ```
 */
export interface RunLimits {
  /** Model requests per run. */
  maxTurns?: number | undefined;
  /** Tool calls per run, counted in the order the model gave them as they pass preflight. */
  maxToolCalls?: number | undefined;
  /** `usage.totalTokens` of the run's assistant messages. */
  maxTokens?: number | undefined;
  /** `usage.cost.total` of the run's assistant messages. */
  maxCost?: number | undefined;
  /** The whole run, in ms on the loop's scheduler; reaching it aborts the run (SPEC L10). */
  timeoutMs?: number | undefined;
  /** Each tool call, in ms on the loop's scheduler (a tool's own `timeoutMs` wins); the model reads the timeout. */
  toolTimeoutMs?: number | undefined;
  /** The same tool with the same arguments this many times in a row: that call does not run. */
  maxRepeatedCalls?: number | undefined;
  /**
   * What a call over `maxToolCalls` or `maxRepeatedCalls` does: `"end"` (the default) answers it
   * and every later call of its batch with an error result and ends the run after the turn;
   * `"tell"` answers it with an error result the model reads, and the run goes on.
   */
  onLimit?: "end" | "tell" | undefined;
}

const NUMERIC = ["maxTurns", "maxToolCalls", "maxTokens", "maxCost", "timeoutMs", "toolTimeoutMs", "maxRepeatedCalls"] as const;
const COUNTS: ReadonlySet<string> = new Set(["maxTurns", "maxToolCalls", "maxRepeatedCalls"]);
const TIMES: ReadonlySet<string> = new Set(["timeoutMs", "toolTimeoutMs"]);

/** The longest delay a timer can wait (2³¹ − 1 ms, about 24.8 days): a longer one fires at once. */
export const MAX_DELAY_MS = 2_147_483_647;

/** Throws a `TypeError` naming the first limit that is not a positive number (an integer for counts). */
export function checkRunLimits(limits: RunLimits | undefined): void {
  if (limits === undefined) return;
  if (limits === null || typeof limits !== "object") throw new TypeError(`limits must be an object, got ${limits === null ? "null" : typeof limits}.`);
  for (const name of NUMERIC) {
    const value = limits[name];
    if (value === undefined) continue;
    if (TIMES.has(name)) {
      checkDelay(`limits.${name}`, value);
      continue;
    }
    const integer = COUNTS.has(name);
    if (typeof value !== "number" || !(value > 0) || (integer && !Number.isInteger(value))) {
      throw new TypeError(`limits.${name} must be a positive ${integer ? "integer" : "number"}, got ${String(value)}.`);
    }
  }
  if ((limits.maxRepeatedCalls ?? 2) < 2) {
    throw new TypeError(`limits.maxRepeatedCalls must be at least 2 (the call that repeats the one before), got ${limits.maxRepeatedCalls}.`);
  }
  if (limits.onLimit !== undefined && limits.onLimit !== "end" && limits.onLimit !== "tell") {
    throw new TypeError(`limits.onLimit must be "end" or "tell", got ${String(limits.onLimit)}.`);
  }
}

/** Checks an option that must be a positive integer when given (`maxConcurrency`). */
export function checkPositiveInteger(name: string, value: unknown): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || !((value as number) > 0)) throw new TypeError(`${name} must be a positive integer, got ${String(value)}.`);
}

/** Checks a delay in ms when given: a positive number a timer can wait (`timeoutMs`, `abortGraceMs`, a tool's `timeoutMs`). */
export function checkDelay(name: string, value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== "number" || !(value > 0) || value > MAX_DELAY_MS) {
    throw new TypeError(`${name} must be a positive number of milliseconds up to ${MAX_DELAY_MS}, got ${String(value)}.`);
  }
}

const SENTENCES: Record<RunLimitName, (value: number) => string> = {
  maxTurns: (value) => `The run reached its limit of ${value} model request${value === 1 ? "" : "s"}.`,
  maxToolCalls: (value) => `The run reached its limit of ${value} tool call${value === 1 ? "" : "s"}.`,
  maxTokens: (value) => `The run reached its token budget (${value} tokens).`,
  maxCost: (value) => `The run reached its cost budget (${value}).`,
  timeoutMs: (value) => `The run reached its time limit (${value} ms).`,
  maxRepeatedCalls: (value) => `The same tool call came ${value} times in a row with the same arguments.`,
};

/** The reason a run ends with. */
export function limitReached(limit: RunLimitName, value: number, used: number): LimitReached {
  return { limit, value, used, message: SENTENCES[limit](value) };
}

/**
 * The run limit reached before one more request, if any: the turn count, then the token and the
 * cost budget.
 */
export function requestLimit(limits: RunLimits, turns: number, usage: Usage): LimitReached | undefined {
  const { maxTurns = Infinity, maxTokens = Infinity, maxCost = Infinity } = limits;
  if (turns >= maxTurns) return limitReached("maxTurns", maxTurns, turns);
  if (usage.totalTokens >= maxTokens) return limitReached("maxTokens", maxTokens, usage.totalTokens);
  if (usage.cost.total >= maxCost) return limitReached("maxCost", maxCost, usage.cost.total);
  return undefined;
}
