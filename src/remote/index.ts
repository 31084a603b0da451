/**
 * `rxagent/remote`: an agent that runs on a session server (`rxagent/server`), followed from a
 * page or a Node process as an `AgentLike`: the same state, events and commands as a local
 * `Agent`, plus `connection$`. Browser-safe.
 *
 * @example
 * ```ts
 * import { RemoteAgent } from "rxagent/remote";
 * const agent = new RemoteAgent({ url: "/sessions/chat-1" });
 * agent.events$.pipe(textDeltas()).subscribe((delta) => output.append(delta));
 * ```
 *
 * @module
 */
export { RemoteAgent, type RemoteAgentOptions } from "./remote-agent.js";
export type { ReconnectOptions } from "./reconnect.js";
export type { AgentConnection, AgentLike, AgentViewState } from "../agent/agent-like.js";
