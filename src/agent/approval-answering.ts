/**
 * How an answer to an approval reaches its call (SPEC R1, S5), for `approve()`, `deny()` and
 * the streams given to `answerApprovals()`.
 *
 * @module
 */
import type { Observable, Subscription } from "rxjs";
import { describeError } from "../model/describe-error.js";
import type { AgentEvent } from "../model/types.js";
import type { ToolApprovalDecision } from "../model/tool-types.js";
import type { AgentRunner } from "./agent-runner.js";
import type { AgentStateStore } from "./agent-state.js";
import type { ParkedRun } from "./parked-run.js";

/**
 * Gives `decision` to the call `toolCallId`: at once when it waits; when it asks, if its run
 * announced it and it does not wait yet; and when a parked run (a resumed session's) waits for
 * it, that run goes on with every answer it has. Throws when no call with this id waits.
 *
 * @param resume Starts a parked run; throws when it cannot (the calls then still wait).
 * @internal
 */
export function answerApproval(
  toolCallId: string,
  decision: ToolApprovalDecision,
  store: AgentStateStore,
  runner: Pick<AgentRunner, "desk" | "active">,
  resume: (parked: ParkedRun) => Observable<AgentEvent>,
): void {
  if (runner.desk.answer(toolCallId, decision)) return;
  // Announced and not waiting yet (a listener answering the request event): kept for the wait.
  if (runner.active && store.pendingApprovals.some((request) => request.toolCallId === toolCallId)) {
    runner.desk.keep(toolCallId, decision);
    return;
  }
  const parked = store.parked;
  if (parked && !runner.active && parked.approvals.some((request) => request.toolCallId === toolCallId)) {
    store.parked = undefined;
    let resumed: Observable<AgentEvent>;
    try {
      resumed = resume(parked);
    } catch (error) {
      // The run cannot start (no streamFn, a bad option): the calls still wait, unanswered.
      store.parked = parked;
      throw error;
    }
    runner.desk.keep(toolCallId, decision);
    for (const [id, kept] of parked.answers) runner.desk.keep(id, kept);
    // A run never errors: its failures are its events and the state's `errorMessage`.
    resumed.subscribe();
    return;
  }
  throw new Error(`No tool call "${toolCallId}" is waiting for approval.`);
}

/**
 * Gives each answer of `answers` to `answer` until unsubscribed. An answer `answer` refuses, and
 * the stream's error, go to the state's `errorMessage` (and `outcome`, while no run goes: SPEC
 * A9); a refused answer does not stop the stream.
 * @internal
 */
export function answerApprovalsFrom(
  answers: Observable<ToolApprovalDecision & { toolCallId: string }>,
  answer: (toolCallId: string, decision: ToolApprovalDecision) => void,
  store: AgentStateStore,
): Subscription {
  return answers.subscribe({
    next: ({ toolCallId, ...decision }) => {
      try {
        answer(toolCallId, decision as ToolApprovalDecision);
      } catch (error) {
        store.failedOutsideRun(describeError(error));
      }
    },
    error: (error: unknown) => {
      store.streamFailed("answerApprovals", error);
    },
  });
}
