/**
 * The seam between an `Agent` and a session (SPEC S1–S6). The Agent knows only these types; the
 * journal, the resume planning and the lease live in `rxagent/session`, whose `agentSession()`
 * builds the value given as the Agent's `session` option. An app without sessions bundles none
 * of that code.
 *
 * @module
 */
import type { Observable } from "rxjs";
import type { AgentEvent, AgentMessage, RunOutcome } from "../model/types.js";
import type { ToolApprovalDecision } from "../model/tool-types.js";
import type { AgentQueues, QueueObserver } from "./agent-queues.js";
import type { AgentStateStore } from "./agent-state.js";
import type { ParkedRun } from "./parked-run.js";
import type { RunPlan } from "./run-plan.js";

/** Where the Agent's runs, queues and transcript replacements are journaled (SPEC S1, S6). @internal */
export interface SessionJournal extends QueueObserver {
  /** Writes the event's entries; what it returns completes once they are on record. */
  record(event: AgentEvent): void | Observable<void>;
  /** Writes that a call's tool is about to execute; what it returns completes once that is on record. */
  executing(toolCallId: string): void | Observable<void>;
  /** Writes that the run ended (with the state's error and outcome, if any). */
  runEnded(errorMessage: string | undefined, outcome: RunOutcome | undefined): void | Observable<void>;
  /** Writes that the run is stopping, before it has: a resume must not continue it. */
  stopping(reason: "aborted" | "ended"): void;
  /** Writes that the app replaced the transcript. */
  replaced(messages: readonly AgentMessage[], reset: boolean): void;
  /**
   * The journal could not be written (`error`, from a write the run waited on): the session
   * closes itself (the Agent is detached, nothing more is journaled). Returns the run's error text.
   */
  failed(error: unknown): string;
}

export type { ParkedRun } from "./parked-run.js";

/** What an Agent lets its session do. @internal */
export interface SessionHost {
  readonly state: AgentStateStore;
  readonly queues: AgentQueues;
  now(): number;
  /**
   * What the Agent lacks to finish a journal's run now, if anything: `model` while it has the
   * placeholder (SPEC A8, S5).
   */
  missing(): "streamFn" | "model" | undefined;
  /** Throws what starting a run would throw now for the Agent's settings (its tools, options, provider). */
  assertRunnable(): void;
  /** Journals into `journal` from now on. */
  attach(journal: SessionJournal): void;
  /** Journals nothing from now on, and drops a parked run and kept answers. */
  detach(): void;
  continue$(): Observable<AgentEvent>;
  run(plan: RunPlan): Observable<AgentEvent>;
  /** Parks a resumed run until one of its approvals is answered. */
  park(run: ParkedRun): void;
  /** Keeps an approval answer for a call the next run will ask about. */
  keep(toolCallId: string, decision: ToolApprovalDecision): void;
}

/**
 * A session an Agent keeps its transcript, queues and runs in (SPEC S1–S6), built by
 * `agentSession({ store, id })` from `rxagent/session`. One Agent uses it.
 *
 * @example
 * ```ts
 * import { agentSession, InMemorySessionStore } from "rxagent/session";
 * const agent = new Agent({ initialState: { model }, streamFn, session: agentSession({ store: new InMemorySessionStore(), id: "chat-1" }) });
 * await agent.resume();
 * ```
 */
export interface AgentSession {
  /** The session's id. */
  readonly id: string;
  /** Whether it is open for writing (after `resume()`, before `closeSession()`), by any Agent. */
  readonly isOpen: boolean;
  /** Whether it is open for writing by the Agent `host` belongs to. @internal */
  isOpenFor(host: SessionHost): boolean;
  /** Opens it for `host`, installs what the journal holds and finishes what it left open. @internal */
  resume$(host: SessionHost): Observable<AgentEvent>;
  /** Waits until what was written is on record, detaches `host` and releases the lease. @internal */
  close$(host: SessionHost): Observable<never>;
}
