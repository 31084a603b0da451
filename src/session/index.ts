/**
 * Durable sessions (SPEC S1–S7): the journal format, the store port, the in-memory store, and
 * forking. An `Agent` given `session: agentSession({ store, id })` journals into it; `resume()` loads it back.
 * The other stores are entry points of their own: `rxagent/session/file` (Node),
 * `rxagent/session/indexeddb` (browsers), `rxagent/session/postgres` (services, on `pg`).
 *
 * @example
 * ```ts
 * import { Agent } from "rxagent";
 * import { agentSession, InMemorySessionStore } from "rxagent/session";
 * const store = new InMemorySessionStore();
 * const agent = new Agent({ initialState: { model }, streamFn, session: agentSession({ store, id: "chat-1" }) });
 * await agent.resume();
 * await agent.prompt("Hello");
 * ```
 *
 * @module
 */
export * from "./journal-entry.js";
export * from "./session-errors.js";
export type * from "./session-store.js";
export type { SessionOptions } from "./open-session.js";
export { agentSession } from "./agent-session.js";
export type { AgentSession } from "../agent/session-port.js";
export { replayJournal, type QueuedMessage, type SessionImage, type ToolCallRecord } from "./session-image.js";
export { planResume, INTERRUPTED_TOOL_TEXT, type ResumePlan } from "./resume-plan.js";
export { forkSession, type ForkOptions, type ForkPoint, type ForkResult } from "./fork-session.js";
export { checkAppend, grantLease, type LeaseRecord } from "./lease-rules.js";
export { InMemorySessionStore, type InMemorySessionStoreOptions } from "./stores/memory-store.js";
