/**
 * The loop config of an `Agent`'s run (SPEC M3, A2, S6): its settings, the state's model and
 * thinking level, its queues as the loop's polls, its approval desk, and — with a session — the
 * journal told of a decision to stop as soon as it is made.
 *
 * @module
 */
import { type SchedulerLike, tap } from "rxjs";
import type { RunLimits } from "../model/run-limits.js";
import type { RunControl } from "../tools/run-control-port.js";
import { type AgentLoopConfig, isLoopKey, LOOP_HOOKS, type LoopHooks } from "../loop/loop-config.js";
import type { ThinkingBudgets } from "../model/messages.js";
import type { ToolExecutionMode } from "../model/tool-types.js";
import { fromHook } from "../rx/from-hook.js";
import type { AgentQueues } from "./agent-queues.js";
import type { AgentRunner } from "./agent-runner.js";
import type { AgentStateStore } from "./agent-state.js";

/** The Agent's settings a run's config is made of: its option properties, the hooks included. @internal */
export interface LoopSettings extends LoopHooks {
  readonly toolExecution: ToolExecutionMode;
  readonly limits: RunLimits | undefined;
  readonly maxConcurrency: number | undefined;
  readonly abortGraceMs: number | undefined;
  readonly sessionId: string | undefined;
  readonly thinkingBudgets: ThinkingBudgets | undefined;
  readonly temperature: number | undefined;
  readonly maxTokens: number | undefined;
  readonly scheduler: SchedulerLike | undefined;
  readonly providerOptions: Record<string, unknown> | undefined;
}

/** The Agent's parts a run's config reads. @internal */
export interface LoopParts {
  /** Where the model and the thinking level are read. */
  readonly state: Pick<AgentStateStore, "model" | "thinkingLevel">;
  /** The run control in use; without it the loop never asks for approvals. */
  readonly runControl: RunControl | undefined;
  readonly queues: AgentQueues;
  /** Its approval desk answers the loop's requests; its journal, if any, hears of a stop first. */
  readonly runner: Pick<AgentRunner, "desk" | "recorder">;
}

// Keys of `providerOptions` that would reconfigure the loop, or that the Agent decides itself
// (`reasoning` from `thinkingLevel`, absent when it is off; the runs' `scheduler`): not passed.
const ignoredProviderOption = (key: string): boolean => isLoopKey(key) || key === "reasoning" || key === "scheduler";

/** The config of a run, as the settings and the parts are now. @internal */
export function agentLoopConfig(settings: LoopSettings, { state, runControl, queues, runner }: LoopParts): AgentLoopConfig {
  // Keys the provider gets (SPEC M3) are set only when given, so `providerOptions` can fill
  // them; the loop's own keys (the limits, the hooks, ...) may be undefined.
  const config: AgentLoopConfig = {
    model: state.model,
    toolExecution: settings.toolExecution,
    limits: settings.limits,
    maxConcurrency: settings.maxConcurrency,
    abortGraceMs: settings.abortGraceMs,
    runControl,
    requestApproval: (request) => runner.desk.request(request),
    getSteeringMessages: () => queues.take("steering"),
    getFollowUpMessages: () => queues.take("followUp"),
  };
  if (state.thinkingLevel !== "off") config.reasoning = state.thinkingLevel;
  if (settings.sessionId !== undefined) config.sessionId = settings.sessionId;
  if (settings.thinkingBudgets !== undefined) config.thinkingBudgets = settings.thinkingBudgets;
  if (settings.temperature !== undefined) config.temperature = settings.temperature;
  if (settings.maxTokens !== undefined) config.maxTokens = settings.maxTokens;
  if (settings.scheduler !== undefined) config.scheduler = settings.scheduler;
  config.hasQueuedMessages = () => queues.hasMessages();
  const journal = runner.recorder;
  // On record as soon as it is reached: a resume must not continue a run a limit ended.
  if (journal) config.onLimitReached = (limit) => journal.stopping(limit.limit === "timeoutMs" ? "aborted" : "ended");
  for (const hook of LOOP_HOOKS) (config as unknown as Record<string, unknown>)[hook] = settings[hook];
  const finish = config.finishTurn;
  // A decision to end is on record as soon as it is made: a resume must not continue that run.
  if (finish && journal) {
    config.finishTurn = (turn, signal) =>
      fromHook(() => finish(turn, signal)).pipe(
        tap((decision) => {
          if (decision && decision.action === "end") journal.stopping("ended");
        }),
      );
  }
  const providerOptions = settings.providerOptions;
  if (providerOptions) {
    const open = config as unknown as Record<string, unknown>;
    for (const key of Object.keys(providerOptions)) if (!(key in open) && !ignoredProviderOption(key)) open[key] = providerOptions[key];
  }
  return config;
}
