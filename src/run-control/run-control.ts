/**
 * Run control (SPEC R1–R3): approvals, budgets and breakers, concurrency slots and keyed lanes,
 * as the value the loop and the Agent take as `runControl`: built in, so `limits`,
 * `maxConcurrency`, `requestApproval` and tools with `needsApproval` or `concurrencyKey` need
 * nothing passed. A `runControl` in the options replaces it.
 *
 * @module
 */
import { asyncScheduler } from "rxjs";
import { CallBudget } from "./call-budget.js";
import { admitCall, scheduleCalls } from "./controlled-batch.js";
import { awaitApproval, needingApproval } from "./tool-approval.js";
import type { RunControl } from "../tools/run-control-port.js";
import { checkPositiveInteger, checkRunLimits, limitReached, requestLimit } from "../model/run-limits.js";

/**
 * Approvals, limits and scheduling: what every `Agent` and `agentLoop` run has unless its
 * options name another `runControl` (one that wraps this one, say, to log its decisions).
 *
 * @example
 * ```ts
 * import { Agent, runControl } from "rxagent";
 * const logged = { ...runControl, checkConfig: (config) => (console.log(config.limits), runControl.checkConfig(config)) };
 * const agent = new Agent({ streamFn, runControl: logged, limits: { maxTurns: 8 }, initialState: { model, tools } });
 * ```
 */
export const runControl: RunControl = {
  checkConfig(config) {
    checkRunLimits(config.limits);
    checkPositiveInteger("maxConcurrency", config.maxConcurrency);
    if (config.requestApproval !== undefined && typeof config.requestApproval !== "function") throw new TypeError("requestApproval must be a function.");
  },
  deadline(limits, scheduler, now, expired) {
    const timeoutMs = limits?.timeoutMs;
    if (timeoutMs === undefined) return undefined;
    const startedAt = now();
    return (scheduler ?? asyncScheduler).schedule(() => expired(limitReached("timeoutMs", timeoutMs, now() - startedAt)), timeoutMs);
  },
  budget: (limits) => (CallBudget.needed(limits) ? new CallBudget(limits) : undefined),
  requestLimit,
  admit: admitCall,
  needingApproval,
  awaitApproval,
  schedule: scheduleCalls,
};
