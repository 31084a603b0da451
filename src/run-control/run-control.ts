/**
 * Run control (SPEC R1–R3): approvals, budgets and breakers, concurrency slots and keyed lanes,
 * as the value the loop and the Agent take as `runControl`. The entry points of `rxagent` use it
 * always; with `rxagent/core`, pass it to use `limits`, `maxConcurrency`, `requestApproval` or
 * tools with `needsApproval` or `concurrencyKey`.
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
 * Approvals, limits and scheduling for runs of `rxagent/core`'s `Agent` and `agentLoop`.
 *
 * @example
 * ```ts
 * import { Agent, interpretingValidator, runControl } from "rxagent/core";
 * const agent = new Agent({ streamFn, validator: interpretingValidator, runControl, limits: { maxTurns: 8 }, maxConcurrency: 2, initialState: { model, tools } });
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
