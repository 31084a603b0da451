/**
 * rxagent/core: everything `rxagent` exports, with no default validator and no built-in run
 * control. `Agent`, `agentLoop`, `agentLoopContinue`, `runToolCall` and `validateToolArguments`
 * here need a `validator` (or every tool its own), and in exchange a bundle that never names
 * `ajvValidator` does not carry ajv (~35 KB min+gz): the entry for pages under a strict Content
 * Security Policy, with `interpretingValidator` or `precompiledValidator`, and for small
 * bundles. Approvals, limits and scheduling (SPEC R1–R3) need `runControl` in the options
 * (SPEC R6); a bundle that never names it carries none of their code.
 *
 * @example
 * ```ts
 * import { Agent, interpretingValidator, runControl } from "rxagent/core";
 * const agent = new Agent({ streamFn, validator: interpretingValidator, initialState: { model, tools } });
 * // with limits or approvals:
 * const guarded = new Agent({ streamFn, validator: interpretingValidator, runControl, limits: { maxTurns: 8 }, initialState: { model, tools } });
 * ```
 *
 * @module rxagent/core
 */
export * from "./model/messages.js";
export * from "./model/types.js";
export * from "./model/tool-types.js";
export * from "./loop/loop-config.js";
export type { RunLimits } from "./model/run-limits.js";
export { runControl } from "./run-control/run-control.js";
export type { RunControl, RunControlOptions } from "./tools/run-control-port.js";
export { addUsage } from "./model/usage-totals.js";
export type { MaybeAsync } from "./rx/maybe-async.js";
export { agentLoop, agentLoopContinue } from "./loop/agent-loop-core.js";
export { MessageQueue } from "./loop/message-queue.js";
export { initialRunState, reduceRunState, unansweredToolCalls, type RunState } from "./loop/run-state.js";
export { runToolCall } from "./tools/run-tool-call-core.js";
export type { RunToolCallOptions } from "./tools/run-tool-call.js";
export { errorToolResult } from "./tools/tool-result.js";
export { checkToolArguments as validateToolArguments } from "./tools/validation.js";
export type { ArgumentValidator, ValidateArguments, ValidationIssue } from "./model/argument-validator.js";
export { ajvValidator } from "./tools/validators/ajv-validator.js";
export { interpretingValidator } from "./tools/validators/interpreting-validator.js";
export {
  issuesFromAjvErrors,
  precompiledValidator,
  schemaKeyOf,
  type PrecompiledValidatorOptions,
  type StandaloneError,
  type StandaloneValidate,
} from "./tools/validators/precompiled-validator.js";
export { assertToolSet } from "./tools/tool-set.js";
export { defaultConvertToLlm, isLlmMessage } from "./model/llm-context.js";
export {
  createInitialSystemMessage,
  getCurrentSystemMessage,
  getCurrentTools,
  getSystemPrompt,
  getToolChanges,
  toToolDeclaration,
  type ToolChanges,
} from "./model/transcript.js";
export { emptyUsage, failedAssistantMessage, normalizedFailureMessage } from "./model/assistant-message.js";
export { isPlaceholderModel, NO_MODEL_ERROR, placeholderModel } from "./model/placeholder-model.js";
export { describeError } from "./model/describe-error.js";
export { callStreamFn, StreamFnFailure, type StreamFnFailureKind } from "./stream/stream-fn-call.js";
export { Agent, type AgentOptions, type PromptInput } from "./agent/agent-core.js";
export type { AgentListener } from "./agent/listener-barrier.js";
export type { AgentState, AgentStateSnapshot, AgentInitialState } from "./agent/agent-state.js";
export type { SessionOptions } from "./session/open-session.js";
export type { AgentSession } from "./agent/session-port.js";
export type { SessionStore, SessionLease } from "./session/session-store.js";
