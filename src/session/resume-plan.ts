/**
 * What a resume does with the state a journal left (SPEC S5): nothing, close the run that never
 * ended, ask the model again, or finish the turn whose tool calls a stopped process left open.
 *
 * @module
 */
import type { AssistantMessage, ToolCall } from "../model/messages.js";
import type { AgentMessage, RunOutcome } from "../model/types.js";
import { errorOutcome } from "../tools/tool-result.js";
import type { ToolApprovalDecision, ToolApprovalRequest, ToolCallOutcome } from "../model/tool-types.js";
import { deniedText } from "../run-control/tool-approval.js";
import { outcomeOfTail, type SessionImage } from "./session-image.js";

/** The text the model reads for a call that may or may not have taken effect (replay `"never"`). */
export const INTERRUPTED_TOOL_TEXT = "interrupted: the process stopped while this tool ran; it may or may not have taken effect";

/** The error a run that was aborted and then cut short by a crash is closed with. */
export const ABORTED_RUN_TEXT = "The run was aborted; the process stopped before it ended.";

/** The decision. */
export type ResumePlan =
  /** No run was open: the session is ready. */
  | { readonly kind: "idle" }
  /**
   * A run was open but had nothing left to do: it is closed with this error (or none), and this
   * outcome when the journal makes it clear (an abort on record, an `error` or `aborted` answer last).
   */
  | { readonly kind: "close"; readonly errorMessage: string | undefined; readonly outcome: RunOutcome | undefined }
  /** A run was open and the transcript asks for more: continue as `continue()` would (the model, or a queued batch). */
  | { readonly kind: "continue" }
  /**
   * A run stopped inside a tool batch: the calls without a result run again or get `settled`.
   * `aborted`: the run had been aborted, so it resumes aborted (its open calls get the abort's
   * results, and it ends as an aborted run does).
   */
  | {
      readonly kind: "tools";
      readonly message: AssistantMessage;
      readonly settled: ReadonlyMap<string, ToolCallOutcome>;
      readonly aborted: boolean;
      /** Calls that were waiting for approval (SPEC R1): they wait again, and the run waits for a first answer before it resumes. */
      readonly approvals: readonly ToolApprovalRequest[];
      /** Answers the journal holds for calls that run again (`replay: "safe"`): they are not asked twice. */
      readonly answers: ReadonlyMap<string, ToolApprovalDecision>;
      /** The calls answered before the stop whose results asked the loop to stop (SPEC L6). */
      readonly terminated: ReadonlySet<string>;
    };

/** A run closed with no error, whose end the journal does not make clear (`finishTurn` or a limit ended it, or it never began). */
const UNCLEAR_CLOSE: ResumePlan = Object.freeze({ kind: "close", errorMessage: undefined, outcome: undefined });
/** A run that had been aborted (or timed out: the journal cannot tell) and was cut short. */
const ABORTED_CLOSE: ResumePlan = Object.freeze({ kind: "close", errorMessage: ABORTED_RUN_TEXT, outcome: "aborted" });

const roleOf = (message: AgentMessage | undefined): string | undefined => (message as { role?: string } | undefined)?.role;

/**
 * Decides from `image`. A call that never started runs as usual, and so does one whose tool
 * never executed (`tool_started` with no `tool_executing`); one that finished has its recorded
 * outcome; one whose tool executed and never finished runs again only if its tool declared
 * `replay: "safe"`, else it gets {@link INTERRUPTED_TOOL_TEXT} as an error result.
 *
 * @example
 * ```ts
 * const plan = planResume(replayJournal(entries));
 * if (plan.kind === "tools") plan.settled; // the calls that will not run
 * ```
 */
export function planResume(image: SessionImage): ResumePlan {
  if (!image.runOpen) return { kind: "idle" };
  const { messages } = image;
  // `finishTurn` decided `end` after the batch: the turn is whole, the run is over.
  if (image.stopping === "ended") return UNCLEAR_CLOSE;
  let at = messages.length - 1;
  while (at >= 0 && roleOf(messages[at]) === "toolResult") at--;
  const last = messages[at] as AssistantMessage | undefined;
  if (image.stopping === "aborted" && (!last || roleOf(last) !== "assistant")) return ABORTED_CLOSE;
  if (!last || roleOf(last) !== "assistant") {
    // The run's prompt was never committed (the process stopped before its `message_end`): nothing to continue.
    const onlySystem = messages.every((m) => roleOf(m) === "system");
    return onlySystem ? UNCLEAR_CLOSE : { kind: "continue" };
  }
  if (last.stopReason === "error" || last.stopReason === "aborted") return { kind: "close", errorMessage: last.errorMessage, outcome: outcomeOfTail([last]) };
  const answered = new Set<string>();
  for (let i = at + 1; i < messages.length; i++) answered.add((messages[i] as { toolCallId: string }).toolCallId);
  const open = last.content.filter((block): block is ToolCall => block.type === "toolCall" && !answered.has(block.id));
  if (open.length === 0) {
    // Told to stop before the crash (an abort, `finishTurn` → `end`): not continued.
    if (image.stopping === "aborted") return ABORTED_CLOSE;
    // Every call answered: the turn ends as it would have (`finishTurn`, then the next turn).
    if (at < messages.length - 1 && !everyResultTerminated(image, answered)) return { kind: "tools", message: last, settled: new Map(), aborted: false, approvals: [], answers: new Map(), terminated: terminatedOf(image, answered) };
    // No call made, or every result asked to stop: the run was polling its queues.
    return image.steering.length > 0 || image.followUp.length > 0 ? { kind: "continue" } : UNCLEAR_CLOSE;
  }
  const settled = new Map<string, ToolCallOutcome>();
  const approvals: ToolApprovalRequest[] = [];
  const answers = new Map<string, ToolApprovalDecision>();
  for (const call of open) {
    const record = image.toolCalls.get(call.id);
    if (!record) continue;
    const answer = record.approval?.answer;
    if (record.ended) settled.set(call.id, { toolCall: call, result: record.ended.result, isError: record.ended.isError, ...(record.ended.durationMs === undefined ? {} : { durationMs: record.ended.durationMs }) });
    // Waiting for a human when the process stopped: it never ran, so it waits again (SPEC R1).
    else if (record.approval && !answer) approvals.push(record.approval.request);
    else if (answer && !answer.approved) settled.set(call.id, errorOutcome(call, deniedText(call, answer.reason)));
    // Its tool may have executed (or the journal cannot tell): run again only when it is safe.
    else if (record.replay !== "safe" && record.executed !== false) settled.set(call.id, errorOutcome(call, INTERRUPTED_TOOL_TEXT));
    // Safe, or never executed (stopped in preflight or after its approval): it runs as usual.
    else if (answer) answers.set(call.id, answer);
  }
  return { kind: "tools", message: last, settled, aborted: image.stopping === "aborted", approvals, answers, terminated: terminatedOf(image, answered) };
}

function terminatedOf(image: SessionImage, answered: ReadonlySet<string>): ReadonlySet<string> {
  return new Set([...answered].filter((id) => image.terminated.has(id)));
}

function everyResultTerminated(image: SessionImage, answered: ReadonlySet<string>): boolean {
  for (const id of answered) if (!image.terminated.has(id)) return false;
  return answered.size > 0;
}
