/**
 * rxagent: an LLM agent runtime built on RxJS. Tool arguments are checked with ajv unless a
 * `validator` says otherwise; `rxagent/core` is the same API without that default and with run
 * control (approvals, limits, scheduling) only when `runControl` is passed.
 *
 * @module rxagent
 */
export * from "./core.js";
// The five that default to ajv (and, for the loop and the Agent, to run control); these take precedence over the core's of the same names.
export { Agent } from "./agent/agent.js";
export { agentLoop, agentLoopContinue } from "./loop/agent-loop.js";
export { runToolCall } from "./tools/run-tool-call.js";
export { validateToolArguments } from "./tools/validation.js";
