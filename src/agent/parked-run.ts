/**
 * A resumed run that waits for approvals (SPEC R1, S5): the session makes it, the Agent's state
 * holds it. In a file of its own, so the state and the session port need not import each other.
 *
 * @module
 */
import type { ResumedTurn } from "../loop/run.js";
import type { ToolApprovalDecision, ToolApprovalRequest } from "../model/tool-types.js";

/** A resumed run whose batch waits for approvals: it goes on when the first one is answered (SPEC R1). @internal */
export interface ParkedRun extends ResumedTurn {
  readonly approvals: readonly ToolApprovalRequest[];
  /** Answers the journal kept for calls of the batch. */
  readonly answers: ReadonlyMap<string, ToolApprovalDecision>;
}
