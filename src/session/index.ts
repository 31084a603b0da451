/**
 * Durable sessions (SPEC S1–S7): `agentSession`, the store port and its errors, the journal's
 * entry types, the in-memory store, and forking. How a journal is replayed, resumed and leased
 * is internal. An `Agent` given `session: agentSession({ store, id })` journals into it;
 * `resume()` loads it back. The other stores are entry points of their own: `rxagent/session/file` (Node),
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
export type {
  ApprovalAnsweredEntry,
  ApprovalRequestedEntry,
  ClearedEntry,
  CreatedEntry,
  JournalEntry,
  JournalQueue,
  MessageEntry,
  QueuedEntry,
  ReplayPolicy,
  RunEndedEntry,
  RunStartedEntry,
  RunStoppingEntry,
  TakenEntry,
  ToolEndedEntry,
  ToolExecutingEntry,
  ToolStartedEntry,
  TranscriptEntry,
} from "./journal-entry.js";
export * from "./session-errors.js";
export type * from "./session-store.js";
export type { SessionOptions } from "./open-session.js";
export { agentSession } from "./agent-session.js";
export type { AgentSession } from "../agent/session-port.js";
export { forkSession, type ForkOptions, type ForkPoint, type ForkResult } from "./fork-session.js";
export { InMemorySessionStore, type InMemorySessionStoreOptions } from "./stores/memory-store.js";
