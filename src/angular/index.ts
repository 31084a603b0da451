/**
 * `rxagent/angular`: an agent in an Angular app as signals and Observables, zoneless.
 * `provideAgent` puts an agent (a local `Agent`, or a remote one) into an injector and ends it
 * with the injector; `injectAgent` gives a component its state as signals and its commands.
 * Needs `@angular/core` 20 or 21 (an optional peer dependency).
 *
 * @example
 * ```ts
 * // app.config.ts
 * providers: [provideZonelessChangeDetection(), provideAgent(() => new Agent({ streamFn, initialState: { model } }))]
 *
 * // chat.component.ts
 * readonly chat = injectAgent();
 * // template: @if (chat.streamingText()) { <p>{{ chat.streamingText() }}</p> }
 * ```
 *
 * @module
 */
export { AGENT } from "./agent-token.js";
export { provideAgent } from "./provide-agent.js";
export { injectAgent, type InjectAgentOptions } from "./inject-agent.js";
export type { AgentSignals } from "./agent-signals.js";
export type { QueuedMessage } from "./queued-messages.js";
export { messageText } from "./message-text.js";
export type { AgentConnection, AgentLike, AgentViewState } from "../agent/agent-like.js";
export type { ToolCallState, ToolCallStatus } from "../operators/tool-calls.js";
