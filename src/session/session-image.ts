/**
 * A journal replayed (SPEC S1, S5): the transcript, the queues and the last error it leaves,
 * and what a crash may have left open — a run that never ended and the tool calls it had
 * started. A pure fold over entries; loading a session is this, then reconciling (see
 * `resume-plan.ts`).
 *
 * @module
 */
import type { AgentMessage, RunOutcome } from "../model/types.js";
import type { AssistantMessage, Usage } from "../model/messages.js";
import { emptyUsage } from "../model/assistant-message.js";
import { addUsage } from "../model/usage-totals.js";
import type { ToolApprovalDecision, ToolApprovalRequest } from "../model/tool-types.js";
import type { JournalEntry, JournalQueue, ReplayPolicy, ToolEndedEntry } from "./journal-entry.js";

/** A message waiting in a queue, with the seq of the entry that queued it. */
export interface QueuedMessage {
  readonly seq: number;
  readonly message: AgentMessage;
}

/** What the journal knows of a tool call of the open run. */
export interface ToolCallRecord {
  /** The replay policy its tool had when the call started. */
  readonly replay: ReplayPolicy;
  /**
   * Whether its tool may have executed: `tool_executing` is on record, or the journal is of a
   * release that did not write it (then any started call may have).
   */
  readonly executed?: boolean;
  /** Its outcome, when the call finished but its result message was not committed. */
  readonly ended?: ToolEndedEntry;
  /** Its approval (SPEC R1): asked for, and the answer when one was given. */
  readonly approval?: { readonly request: ToolApprovalRequest; readonly answer?: ToolApprovalDecision };
}

/** The state a journal describes. */
export interface SessionImage {
  readonly sessionId: string;
  /** The seq of the last entry. */
  readonly seq: number;
  readonly messages: readonly AgentMessage[];
  readonly steering: readonly QueuedMessage[];
  readonly followUp: readonly QueuedMessage[];
  readonly errorMessage: string | undefined;
  /**
   * How the last run that ended ended (SPEC A9): its `run_ended` entry's, else — a journal of a
   * release before it — what its last message says ({@link outcomeOfTail}); none while one is open.
   */
  readonly outcome: RunOutcome | undefined;
  /** A run started and never ended: the process stopped while it ran. */
  readonly runOpen: boolean;
  /** The open run had been told to stop (`abort()`, or `finishTurn` deciding `end`). */
  readonly stopping: "aborted" | "ended" | undefined;
  /** Tool calls of the open run that started and have no result message yet, by id. */
  readonly toolCalls: ReadonlyMap<string, ToolCallRecord>;
  /** Tool calls of the open run whose result asked the loop to stop (SPEC L6). */
  readonly terminated: ReadonlySet<string>;
  /** What the session's runs used: every assistant message its runs committed (SPEC R5). */
  readonly usage: Usage;
  /** Where the session was forked from, if it was. */
  readonly forkedFrom?: { readonly sessionId: string; readonly seq: number };
}

/**
 * Folds `entries` (already checked, see `checkJournal`) into the state they describe.
 * Linear in the journal: the queues are maps by seq, the transcript one array.
 *
 * @example
 * ```ts
 * const image = replayJournal(loaded.entries);
 * image.messages; // what agent.state.messages was
 * ```
 */
export function replayJournal(entries: readonly JournalEntry[]): SessionImage {
  let sessionId = "";
  let forkedFrom: SessionImage["forkedFrom"];
  let messages: AgentMessage[] = [];
  const queues: Record<JournalQueue, Map<number, AgentMessage>> = { steering: new Map(), followUp: new Map() };
  let errorMessage: string | undefined;
  let outcome: RunOutcome | undefined;
  let runOpen = false;
  let stopping: SessionImage["stopping"];
  let toolCalls = new Map<string, ToolCallRecord>();
  let terminated = new Set<string>();
  const usage = emptyUsage();
  const forget = (seq: number): void => {
    queues.steering.delete(seq);
    queues.followUp.delete(seq);
  };
  for (const entry of entries) {
    switch (entry.type) {
      case "created":
        sessionId = entry.sessionId;
        forkedFrom = entry.forkedFrom;
        break;
      case "transcript":
        messages = entry.messages.slice();
        if (entry.reset) errorMessage = outcome = undefined;
        break;
      case "message":
        messages.push(entry.message);
        if ((entry.message as { role?: string }).role === "assistant") addUsage(usage, (entry.message as AssistantMessage).usage);
        if (entry.delivers !== undefined) forget(entry.delivers);
        if ((entry.message as { role?: string }).role === "toolResult") toolCalls.delete((entry.message as { toolCallId: string }).toolCallId);
        break;
      case "queued":
        queues[entry.queue].set(entry.seq, entry.message);
        break;
      case "cleared":
        for (const seq of entry.entries) queues[entry.queue].delete(seq);
        break;
      case "taken":
        // Taken is not delivered: a poll's messages count once they are committed.
        break;
      case "run_started":
        // A run started while one is open resumes it: what the stopped run's calls did still counts.
        if (!runOpen) {
          toolCalls = new Map();
          terminated = new Set();
        }
        runOpen = true;
        errorMessage = outcome = undefined;
        break;
      case "run_stopping":
        if (runOpen) stopping = entry.reason;
        break;
      case "run_ended":
        runOpen = false;
        stopping = undefined;
        errorMessage = entry.errorMessage;
        outcome = entry.outcome ?? outcomeOfTail(messages);
        toolCalls = new Map();
        terminated = new Set();
        break;
      case "tool_started":
        // A resumed run starts a call again; what the journal knew of it first stands.
        if (!toolCalls.has(entry.toolCallId)) toolCalls.set(entry.toolCallId, { replay: entry.replay, executed: entry.tracksExecution !== true });
        break;
      case "tool_executing": {
        const started = toolCalls.get(entry.toolCallId);
        if (started) toolCalls.set(entry.toolCallId, { ...started, executed: true });
        break;
      }
      case "approval_requested": {
        const started = toolCalls.get(entry.toolCallId);
        // Asked again by a resumed run: the answer the journal holds still stands until a new one.
        const answer = started?.approval?.answer;
        const request = { toolCallId: entry.toolCallId, toolName: entry.toolName, args: entry.args };
        toolCalls.set(entry.toolCallId, { replay: started?.replay ?? "never", executed: started?.executed ?? true, approval: answer ? { request, answer } : { request } });
        break;
      }
      case "approval_answered": {
        const started = toolCalls.get(entry.toolCallId);
        if (!started?.approval) break;
        const answer: ToolApprovalDecision = entry.approved
          ? entry.args === undefined
            ? { approved: true }
            : { approved: true, args: entry.args }
          : entry.reason === undefined
            ? { approved: false }
            : { approved: false, reason: entry.reason };
        toolCalls.set(entry.toolCallId, { ...started, approval: { request: started.approval.request, answer } });
        break;
      }
      case "tool_ended": {
        const started = toolCalls.get(entry.toolCallId);
        toolCalls.set(entry.toolCallId, started?.approval ? { replay: started.replay, executed: started.executed, ended: entry, approval: started.approval } : { replay: started?.replay ?? "never", executed: started?.executed ?? true, ended: entry });
        if (entry.result.terminate === true) terminated.add(entry.toolCallId);
        break;
      }
    }
  }
  // Maps iterate in insertion order, which is seq order here.
  const queued = (queue: Map<number, AgentMessage>): QueuedMessage[] => [...queue].map(([seq, message]) => ({ seq, message }));
  const image: SessionImage = {
    sessionId,
    seq: entries.length,
    messages,
    steering: queued(queues.steering),
    followUp: queued(queues.followUp),
    errorMessage,
    outcome,
    runOpen,
    stopping,
    toolCalls,
    terminated,
    usage,
  };
  return forkedFrom ? { ...image, forkedFrom } : image;
}

/**
 * How a run ended, as far as its transcript says, for a run whose end has no outcome on record
 * (a journal of a release before it, a crashed run closed by a resume): an `error` answer last is
 * `failed`, an `aborted` one `aborted`; anything else is not clear from the transcript alone (a
 * limit, an abort after the last answer, a failure of the Agent's own), so `undefined`.
 */
export function outcomeOfTail(messages: readonly AgentMessage[]): RunOutcome | undefined {
  const last = messages[messages.length - 1] as Partial<AssistantMessage> | undefined;
  if (last?.role !== "assistant") return undefined;
  return last.stopReason === "error" ? "failed" : last.stopReason === "aborted" ? "aborted" : undefined;
}
