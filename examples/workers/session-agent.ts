/**
 * The Agent a worker runs for one job: the scripted model, the tools, and the session, leased
 * by this worker for `leaseTtlMs` after every write.
 *
 * @module
 */
import { Agent, type AgentTool } from "../../src/index.js"; // in your app: from "rxagent"
import { agentSession, type SessionStore } from "../../src/session/index.js"; // "rxagent/session"
import { SCRIPTED_MODEL, scriptedModel } from "./scripted-model.js";

/** What {@link sessionAgent} needs. */
export interface SessionAgentOptions {
  store: SessionStore;
  sessionId: string;
  /** The worker's name: the lease owner. */
  owner: string;
  leaseTtlMs: number;
  tools: AgentTool[];
}

/**
 * An Agent on the session `sessionId`. Call `await agent.resume()` before anything else: it
 * takes the lease and loads (or creates) the journal.
 *
 * @example
 * ```ts
 * const agent = sessionAgent({ store, sessionId: "s-1", owner: "worker-1", leaseTtlMs: 3_000, tools });
 * await agent.resume();
 * ```
 */
export function sessionAgent(options: SessionAgentOptions): Agent {
  return new Agent({
    initialState: { systemPrompt: "You settle orders.", model: SCRIPTED_MODEL, tools: options.tools },
    streamFn: scriptedModel(),
    session: agentSession({ store: options.store, id: options.sessionId, owner: options.owner, leaseTtlMs: options.leaseTtlMs }),
  });
}
