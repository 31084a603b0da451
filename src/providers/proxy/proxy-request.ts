/**
 * Checking what a client sent the proxy: the body's shape, the model it selects (id and api
 * only) and the options it may set, each within bounds. Client text is never echoed whole.
 *
 * @module
 */
import type { Message, Model, ThinkingBudgets } from "../../model/messages.js";
import type { ProxyModelRequest, ProxyRequestOptions } from "./proxy-options.js";

/** A request body that passed the checks. */
export interface CheckedRequest {
  requested: ProxyModelRequest;
  messages: Message[];
  options: ProxyRequestOptions;
}

/** Longest model id, api or session id a client may send. */
export const MAX_ID_LENGTH = 256;
const REASONING_LEVELS = new Set(["minimal", "low", "medium", "high", "xhigh", "max"]);
const BUDGET_LEVELS = ["minimal", "low", "medium", "high"] as const;
const SHAPE = "Expected a JSON body { model: { id, api? }, context: { messages: [] }, options? }";

/**
 * Parses and checks a request body. Returns the checked request, or the text of the `400`.
 *
 * @example
 * ```ts
 * const checked = checkRequestBody('{"model":{"id":"m"},"context":{"messages":[]}}'); // { requested: { id: "m" }, ... }
 * ```
 */
export function checkRequestBody(text: string): CheckedRequest | string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return "The request body is not JSON";
  }
  if (!isObject(body) || !isObject(body.model) || !isObject(body.context) || !Array.isArray(body.context.messages)) return SHAPE;
  const { id, api } = body.model;
  if (typeof id !== "string" || id.length === 0 || id.length > MAX_ID_LENGTH) return `Invalid model id: expected a string of 1 to ${MAX_ID_LENGTH} characters`;
  if (api !== undefined && (typeof api !== "string" || api.length > MAX_ID_LENGTH)) return `Invalid model api: expected a string of at most ${MAX_ID_LENGTH} characters`;
  const options = checkOptions(body.options);
  if (typeof options === "string") return options;
  const requested: ProxyModelRequest = api === undefined ? { id } : { id, api };
  return { requested, messages: body.context.messages as Message[], options };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The options a client may set, checked; the text of the `400` for one out of bounds. */
function checkOptions(options: unknown): ProxyRequestOptions | string {
  const picked: ProxyRequestOptions = {};
  if (options === undefined || options === null) return picked;
  if (!isObject(options)) return "Invalid options: expected an object";
  const { reasoning, maxTokens, temperature, sessionId, thinkingBudgets } = options;
  // An unknown reasoning level is left out, as a provider ignores a level it lacks.
  if (typeof reasoning === "string" && REASONING_LEVELS.has(reasoning)) picked.reasoning = reasoning as ProxyRequestOptions["reasoning"];
  if (maxTokens !== undefined) {
    if (typeof maxTokens !== "number" || !Number.isSafeInteger(maxTokens) || maxTokens < 1) return "Invalid option maxTokens: expected a positive integer";
    picked.maxTokens = maxTokens;
  }
  if (temperature !== undefined) {
    if (typeof temperature !== "number" || !Number.isFinite(temperature) || temperature < 0 || temperature > 2) return "Invalid option temperature: expected a number from 0 to 2";
    picked.temperature = temperature;
  }
  if (sessionId !== undefined) {
    if (typeof sessionId !== "string" || sessionId.length > MAX_ID_LENGTH) return `Invalid option sessionId: expected a string of at most ${MAX_ID_LENGTH} characters`;
    picked.sessionId = sessionId;
  }
  if (thinkingBudgets !== undefined) {
    const budgets = checkBudgets(thinkingBudgets);
    if (typeof budgets === "string") return budgets;
    picked.thinkingBudgets = budgets;
  }
  return picked;
}

/** Budgets for the known levels only, each a finite number of tokens ≥ 0. */
function checkBudgets(value: unknown): ThinkingBudgets | string {
  const invalid = `Invalid option thinkingBudgets: expected { ${BUDGET_LEVELS.join(", ")} } of numbers ≥ 0`;
  if (!isObject(value)) return invalid;
  const budgets: ThinkingBudgets = {};
  for (const level of BUDGET_LEVELS) {
    const budget = value[level];
    if (budget === undefined) continue;
    if (typeof budget !== "number" || !Number.isFinite(budget) || budget < 0) return invalid;
    budgets[level] = budget;
  }
  return budgets;
}

/**
 * The server's cap on output tokens: the lower of `maxOutputTokens` and the model's `maxTokens`,
 * or `undefined` when neither is a positive number.
 */
function outputTokenCap(model: Model, maxOutputTokens: number | undefined): number | undefined {
  const caps = [maxOutputTokens, model.maxTokens].filter((cap): cap is number => typeof cap === "number" && Number.isFinite(cap) && cap > 0);
  return caps.length === 0 ? undefined : Math.min(...caps);
}

/**
 * The `maxTokens` to forward: the client's, clamped to the server's cap (`maxOutputTokens` and
 * the model's `maxTokens`, the lower one); none without a cap, so the provider's default applies.
 *
 * @example
 * ```ts
 * clampMaxTokens(1e9, { ...model, maxTokens: 4096 }, undefined); // 4096
 * ```
 */
export function clampMaxTokens(asked: number | undefined, model: Model, maxOutputTokens: number | undefined): number | undefined {
  if (asked === undefined) return undefined;
  const cap = outputTokenCap(model, maxOutputTokens);
  return cap === undefined ? undefined : Math.min(asked, cap);
}

/**
 * The `thinkingBudgets` to forward: each budget clamped to the same cap as `maxTokens`; none
 * without a cap (a thinking budget is output the server pays for, so it is bounded as
 * `maxTokens` is, and dropped as `maxTokens` is).
 *
 * @example
 * ```ts
 * clampThinkingBudgets({ high: 1e9, low: 50 }, { ...model, maxTokens: 1000 }, undefined); // { high: 1000, low: 50 }
 * ```
 */
export function clampThinkingBudgets(asked: ThinkingBudgets | undefined, model: Model, maxOutputTokens: number | undefined): ThinkingBudgets | undefined {
  const cap = outputTokenCap(model, maxOutputTokens);
  if (asked === undefined || cap === undefined) return undefined;
  const budgets: ThinkingBudgets = {};
  for (const level of BUDGET_LEVELS) if (asked[level] !== undefined) budgets[level] = Math.min(asked[level], cap);
  return budgets;
}
