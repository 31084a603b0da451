/**
 * rxagent: an LLM agent runtime built on RxJS. One `Agent`, one `agentLoop`. Tool arguments are
 * checked by the interpreting validator unless `validator` names another: it needs no `eval`
 * (strict Content Security Policy pages), and a bundle that never names `ajvValidator` carries no
 * ajv. `ajvValidator` (generated code, the fastest per call) and `precompiledValidator` (code
 * generated at build time) are one option away. Operators over the events are in
 * `rxagent/operators`, test doubles in `rxagent/testing`.
 *
 * @example
 * ```ts
 * import { Agent, ajvValidator } from "rxagent";
 * const agent = new Agent({ streamFn, initialState: { model, tools } });
 * const fast = new Agent({ streamFn, validator: ajvValidator, initialState: { model, tools } });
 * ```
 *
 * @module rxagent
 */
export type * from "./model/messages.js";
export type * from "./model/types.js";
export type * from "./model/tool-types.js";
export type {
  AgentLoopConfig,
  AgentLoopTurnUpdate,
  AgentRequestUpdate,
  AgentTurnContext,
  AgentTurnDecision,
  PrepareRequestContext,
  QueueMode,
} from "./loop/loop-config.js";
export type { RunLimits } from "./model/run-limits.js";
export type { MaybeAsync } from "./rx/maybe-async.js";

export { Agent } from "./agent/agent.js";
export type { AgentOptions } from "./agent/agent-options.js";
export type { PromptInput } from "./agent/prompt-input.js";
export type { AgentListener } from "./agent/listener-barrier.js";
export type { AgentState, AgentStateSnapshot, AgentInitialState } from "./agent/agent-state.js";
export type { AgentConnection, AgentLike, AgentViewState } from "./agent/agent-like.js";
export type { SessionOptions } from "./session/open-session.js";
export type { AgentSession } from "./agent/session-port.js";
export type { SessionStore, SessionLease } from "./session/session-store.js";

export { agentLoop, agentLoopContinue } from "./loop/agent-loop.js";
export { runToolCall, type RunToolCallOptions } from "./tools/run-tool-call.js";
export { validateToolArguments } from "./tools/validation.js";
export { runControl } from "./run-control/run-control.js";
export type { RunControl, RunControlOptions } from "./tools/run-control-port.js";

export type { ArgumentValidator, ValidateArguments, ValidationIssue } from "./model/argument-validator.js";
export { interpretingValidator } from "./tools/validators/interpreting-validator.js";
export { ajvValidator } from "./tools/validators/ajv-validator.js";
export { precompiledValidator, type PrecompiledValidatorOptions, type StandaloneError, type StandaloneValidate } from "./tools/validators/precompiled-validator.js";

export { defaultConvertToLlm, isLlmMessage } from "./model/llm-context.js";
export { createInitialSystemMessage, getCurrentSystemMessage, getCurrentTools, getSystemPrompt, getToolChanges, toToolDeclaration, type ToolChanges } from "./model/transcript.js";
export { isPlaceholderModel } from "./model/placeholder-model.js";
