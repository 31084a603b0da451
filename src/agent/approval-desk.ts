/**
 * Where an `Agent`'s runs wait for approvals (SPEC R1): each call that needs one asks here,
 * and `approve()` / `deny()` answer it. Answers given before the call asks again (a session
 * resumed in a fresh process) are kept until it does.
 *
 * @module
 */
import { Observable } from "rxjs";
import type { ToolApprovalDecision, ToolApprovalRequest } from "../model/tool-types.js";

/** @internal */
export class ApprovalDesk {
  // Both made on first use: most Agents never ask for an approval, and an idle one should hold nothing.
  /** Calls waiting now, by id: how to answer each. */
  private waiting: Map<string, (decision: ToolApprovalDecision) => void> | undefined;
  /** Answers waiting for their call to ask. */
  private kept: Map<string, ToolApprovalDecision> | undefined;

  /**
   * The loop's `requestApproval`: a kept answer at once (a value, so the run stays
   * synchronous), else an Observable that emits the answer when it is given. Unsubscribing (an
   * abort) withdraws the request.
   */
  request(request: ToolApprovalRequest): ToolApprovalDecision | Observable<ToolApprovalDecision> {
    const kept = this.kept?.get(request.toolCallId);
    if (kept) {
      this.kept!.delete(request.toolCallId);
      return kept;
    }
    return new Observable<ToolApprovalDecision>((subscriber) => {
      const { toolCallId } = request;
      const waiting = (this.waiting ??= new Map<string, (decision: ToolApprovalDecision) => void>());
      waiting.set(toolCallId, (decision) => {
        waiting.delete(toolCallId);
        subscriber.next(decision);
        subscriber.complete();
      });
      return () => {
        waiting.delete(toolCallId);
      };
    });
  }

  /** Answers a waiting call; false when none with this id waits. */
  answer(toolCallId: string, decision: ToolApprovalDecision): boolean {
    const answer = this.waiting?.get(toolCallId);
    if (!answer) return false;
    answer(decision);
    return true;
  }

  /** Keeps an answer for when its call asks (a resumed run). */
  keep(toolCallId: string, decision: ToolApprovalDecision): void {
    (this.kept ??= new Map<string, ToolApprovalDecision>()).set(toolCallId, decision);
  }

  /** Forgets kept answers (a new transcript, or a session closed). */
  forget(): void {
    this.kept = undefined;
  }
}
