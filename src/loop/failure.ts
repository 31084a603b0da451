/**
 * Failure recovery (SPEC A6): a hook, listener or `convertToLlm` threw, so the run ends with a
 * normalized failure instead of an error notification.
 *
 * @module
 */
import { EMPTY, type Observable } from "rxjs";
import { normalizedFailureMessage } from "../model/assistant-message.js";
import { describeError } from "../model/describe-error.js";
import type { Message, ToolResultMessage } from "../model/messages.js";
import type { AgentEvent } from "../model/types.js";
import { errorOutcome, toolResultMessage } from "../tools/tool-result.js";
import { Emitter } from "../engine/emitter.js";
import type { Run } from "./run.js";
import { unansweredToolCalls } from "./run-state.js";

/** `emit` still hears the failure, but a listener failing on it changes nothing more. */
const ignore = (): undefined => undefined;

/**
 * Whether `error` is what an abort of `signal` makes things fail with: the signal's own reason,
 * or an `AbortError` / `TimeoutError` (what `fetch` and timers reject with when aborted).
 */
function isAbortsOwn(error: unknown, signal: AbortSignal): boolean {
  if (error === signal.reason) return true;
  const name = (error as { name?: unknown } | null | undefined)?.name;
  return name === "AbortError" || name === "TimeoutError";
}

/**
 * Closes what the run's events left open and ends it with an `error` assistant message, or an
 * `aborted` one when the run's signal had fired before the failure (a user's abort, the run's
 * time limit; the outcome is still `failed` unless the error is the abort's own): a message whose start was seen is committed by its end; tool calls left without a
 * result get one, so the transcript stays valid for the next request; polled or prepared
 * messages that never reached their turn are committed after them. Committed messages stay.
 * Nothing when the run had already ended.
 *
 * ```text
 * run:      -a-t-S-U-#           (agent_start, turn_start, message_start, update, then a listener throws)
 * failure:           (ETA|)      (message_end of the failed message with the partial, turn_end, agent_end)
 * ```
 */
export function failure(run: Run, error: unknown, aborted: boolean): Observable<AgentEvent> {
  const { state } = run;
  if (state.ended) return EMPTY;
  const reason = describeError(error);
  const events: AgentEvent[] = [];
  // A run's first event is `agent_start`, observed before anything can throw: only the turn may be closed.
  if (!state.turnOpen) events.push({ type: "turn_start" });
  const open = state.streamingMessage as Message | undefined;
  if (open && open.role !== "assistant") {
    const end: AgentEvent = { type: "message_end", message: open };
    events.push(end);
    // Committed, and a tool result answers its call.
    run.observe(end);
  }
  const now = run.now();
  const toolResults: ToolResultMessage[] = [];
  // While an assistant message streams, the calls of the one before all have results (SPEC L3).
  for (const call of unansweredToolCalls(run.state)) {
    const outcome = errorOutcome(call, `Tool call not completed: the run failed (${reason}).`);
    const message = toolResultMessage(outcome, now);
    toolResults.push(message);
    run.append(message);
    if (run.state.executing.includes(call.id)) {
      events.push({ type: "tool_execution_end", toolCallId: call.id, toolName: call.name, result: outcome.result, isError: true });
    }
    events.push({ type: "message_start", message }, { type: "message_end", message });
  }
  for (const message of run.waiting.slice()) {
    run.append(message);
    events.push({ type: "message_start", message }, { type: "message_end", message });
  }
  // What `agent_end.outcome` says (SPEC L15): the abort's own error (a hook's fetch rejecting with
  // the signal's reason) leaves the outcome to the abort or the time limit; any other fails the run.
  if (!aborted || !isAbortsOwn(error, run.signal)) run.failed = true;
  const partial = open?.role === "assistant" ? open : undefined;
  const failed = normalizedFailureMessage(run.config.model, reason, aborted ? "aborted" : "error", now, partial);
  run.append(failed);
  if (!partial) events.push({ type: "message_start", message: failed });
  events.push({ type: "message_end", message: failed }, { type: "turn_end", message: failed, toolResults }, run.endEvent());
  return new Emitter(run.input.emit, ignore, run.emitter.turn).all(events);
}
