/**
 * `agentLoop` and `agentLoopContinue` as `rxagent/core` exports them: the same loop, with no
 * default validator, so `config.validator` (or every tool's own `validator`) is required and a
 * bundle that never names ajv does not carry it.
 *
 * @module
 */
import type { Observable } from "rxjs";
import type { StreamFn } from "../model/messages.js";
import type { AgentContext, AgentEvent, AgentMessage } from "../model/types.js";
import { assertCanContinue, requireStreamFn, startAgentLoop } from "./agent-loop.js";
import type { AgentLoopConfig } from "./loop-config.js";

/**
 * Starts a run with new prompt messages, as `agentLoop` from `rxagent` does, checking tool
 * arguments with `config.validator` (there is no default here). Throws at call time without one.
 *
 * @example
 * ```ts
 * import { agentLoop, interpretingValidator } from "rxagent/core";
 * agentLoop([prompt], { messages: [], tools }, { model, validator: interpretingValidator }, undefined, streamFn).subscribe(render);
 * ```
 */
export function agentLoop(prompts: AgentMessage[], context: AgentContext, config: AgentLoopConfig, signal?: AbortSignal, streamFn?: StreamFn): Observable<AgentEvent> {
  return startAgentLoop({ prompts, context, config, signal, streamFn: requireStreamFn(streamFn) }, undefined);
}

/**
 * Continues from the transcript, as `agentLoopContinue` from `rxagent` does, with
 * `config.validator` required.
 *
 * @example
 * ```ts
 * agentLoopContinue({ messages, tools }, { model, validator: interpretingValidator }, undefined, streamFn).subscribe(render);
 * ```
 */
export function agentLoopContinue(context: AgentContext, config: AgentLoopConfig, signal?: AbortSignal, streamFn?: StreamFn): Observable<AgentEvent> {
  assertCanContinue(context.messages);
  return startAgentLoop({ context, config, signal, streamFn: requireStreamFn(streamFn) }, undefined);
}
