/**
 * The options of `new Agent(...)` (SPEC A1).
 *
 * @module
 */
import type { RunLimits } from "../model/run-limits.js";
import type { RunControl } from "../tools/run-control-port.js";
import type { LoopHooks, QueueMode } from "../loop/loop-config.js";
import type { StreamFn, ThinkingBudgets } from "../model/messages.js";
import type { ToolExecutionMode } from "../model/tool-types.js";
import type { ArgumentValidator } from "../model/argument-validator.js";
import type { SchedulerLike } from "rxjs";
import type { AgentInitialState } from "./agent-state-types.js";
import type { AgentSession } from "./session-port.js";

/**
 * Options of `new Agent(...)`, named as in pi-agent-core (SPEC A1); the hooks are the loop's
 * (`prepareRequest`, `transformContext`, `convertToLlm`, `getApiKey`, `prepareNextTurn`,
 * `finishTurn`, `beforeToolCall`, `afterToolCall`), also settable as the Agent's properties.
 */
export interface AgentOptions extends LoopHooks {
  initialState?: AgentInitialState | undefined;
  /** The provider. Required before the first run. */
  streamFn?: StreamFn | undefined;
  steeringMode?: QueueMode | undefined;
  followUpMode?: QueueMode | undefined;
  toolExecution?: ToolExecutionMode | undefined;
  sessionId?: string | undefined;
  thinkingBudgets?: ThinkingBudgets | undefined;
  /** Sampling temperature, sent with every request. */
  temperature?: number | undefined;
  /** The most tokens one response may have, sent with every request. */
  maxTokens?: number | undefined;
  /**
   * Any other option of the provider (`headers`, `apiKey`, options of its own), sent with every
   * request. `temperature`, `maxTokens` and the Agent's own settings win over keys here; the
   * loop's keys (hooks, `validator`, ...), `reasoning` (set `thinkingLevel`) and `scheduler` are
   * ignored.
   */
  providerOptions?: Record<string, unknown> | undefined;
  /**
   * Checks tool arguments for tools without a validator of their own (SPEC T2). Default
   * `interpretingValidator` (no `eval`); `ajvValidator` is the fastest per call.
   */
  validator?: ArgumentValidator | undefined;
  /** Clock and scheduler of the runs; pass a `TestScheduler` in marble tests. */
  scheduler?: SchedulerLike | undefined;
  /** Budgets and breakers of every run (SPEC R2). */
  limits?: RunLimits | undefined;
  /**
   * Approvals, limits and scheduling (SPEC R1–R3, R6): built in; this replaces the built-in
   * `runControl`.
   */
  runControl?: RunControl | undefined;
  /** The most calls of a parallel batch that execute at once (SPEC R3). */
  maxConcurrency?: number | undefined;
  /** How long an aborted run waits for a promise tool that has not settled (SPEC R4). */
  abortGraceMs?: number | undefined;
  /**
   * Keeps the Agent's transcript, queues and runs in a session journal (SPEC S1–S6), so a
   * reload, a crash or a deploy loses nothing committed: `agentSession({ store, id })` from
   * `rxagent/session`. Call `resume()` before the first prompt: it loads the session (a new one
   * is created) and finishes what a stopped process left open.
   */
  session?: AgentSession | undefined;
}
