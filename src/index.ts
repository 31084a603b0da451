/**
 * rxagent: an LLM agent runtime built on RxJS.
 *
 * @module rxagent
 */
export * from "./messages.js";
export * from "./types.js";
export { agentLoop, agentLoopContinue } from "./agent-loop.js";
export { runToolCall, errorToolResult, type RunToolCallOptions } from "./tool-call.js";
export { validateToolArguments } from "./validation.js";
export { defaultConvertToLlm, isLlmMessage } from "./llm-context.js";
export {
  createInitialSystemMessage,
  getCurrentSystemMessage,
  getCurrentTools,
  getSystemPrompt,
  getToolChanges,
  toToolDeclaration,
  type ToolChanges,
} from "./transcript.js";
export { emptyUsage, failedAssistantMessage, describeError } from "./assistant-message.js";
export { fauxProvider, fauxText, fauxThinking, fauxToolCall } from "./testing/index.js";
export type { FauxProvider, FauxProviderOptions, FauxReply, FauxRequest, FauxScriptEntry } from "./testing/index.js";
export { Agent, type AgentListener, type AgentOptions, type PromptInput } from "./agent.js";
export type { AgentState, AgentStateSnapshot, AgentInitialState } from "./agent-state.js";
export { MessageQueue } from "./message-queue.js";
