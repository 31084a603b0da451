/**
 * How a turn ends and what comes next (SPEC L6, L7, L8): `finishTurn`, `turn_end`, then the next
 * turn — tool results or steering keep the inner loop going, follow-up the outer one — or
 * `agent_end`.
 *
 * @module
 */
import { type Observable } from "rxjs";
import { deferred } from "../rx/deferred.js";
import { just } from "../rx/values.js";
import { sequence } from "../rx/sequence.js";
import type { AssistantMessage, ToolResultMessage } from "../model/messages.js";
import { andThen, maybeAsync } from "../rx/maybe-async.js";
import type { AgentTurnContext, AgentTurnDecision } from "./loop-config.js";
import { poll } from "./queue-poll.js";
import type { LimitReached } from "../model/types.js";
import type { Run } from "./run.js";
import { NextTurn, type Step } from "./next-turn.js";

/**
 * `finishTurn`, `turn_end`, then the scheduling decision. `toolResults` are the turn's, in source
 * order; `hasMoreToolCalls`: the message made calls and not every one of their results asked to
 * stop (a resumed turn counts the results from before the stop too).
 */
export function finishTurn(run: Run, message: AssistantMessage, toolResults: ToolResultMessage[], hasMoreToolCalls: boolean): Observable<Step> {
  const lastTurn = run.turnContext(message, toolResults);
  // As in pi, a decision is its action: anything but `end` or `continue` is no decision.
  const decided = (decision: AgentTurnDecision | undefined | void): Observable<Step> =>
    run.emitter.oneThen({ type: "turn_end", message, toolResults }, () => nextStep(run, lastTurn, decision?.action, hasMoreToolCalls));
  const hook = run.config.finishTurn;
  if (!hook) return decided(undefined);
  return deferred(() => andThen(maybeAsync(() => hook(lastTurn, run.signal), "error"), decided));
}

/**
 * After `turn_end`: `end` ends the run; else steering is polled (never inside a batch), and the
 * run goes on with tool results or steering; when it would stop, follow-up is polled (the outer
 * loop); a `continue` decision asks once more (SPEC L8).
 */
function nextStep(run: Run, lastTurn: AgentTurnContext, action: string | undefined, hasMoreToolCalls: boolean): Observable<Step> {
  if (action === "end") return endRun(run);
  // A call limit in "end" mode answered the rest of the batch: the run ends here (SPEC R2).
  const callLimit = run.budget?.reached;
  if (callLimit) return endByLimit(run, callLimit);
  const limits = run.config.limits;
  const control = run.input.control;
  if (limits && control) {
    // Checked before the queues are polled: what they hold stays queued for the next run.
    const reached = control.requestLimit(limits, run.turns, run.usage);
    if (reached) return hasMoreToolCalls || action === "continue" || run.hasQueued() ? endByLimit(run, reached) : endRun(run);
  }
  return poll(run, run.steering, (steering) => {
    if (hasMoreToolCalls || steering.length > 0) return just(new NextTurn(steering, lastTurn));
    return poll(run, run.followUp, (followUp) => {
      if (followUp.length > 0) return just(new NextTurn(followUp, lastTurn));
      if (action === "continue") return just(new NextTurn([], lastTurn));
      return endRun(run);
    });
  });
}

/** An error or aborted response ends the run; `finishTurn` is told but cannot keep it going (SPEC L6). */
export function hardExit(run: Run, message: AssistantMessage): Observable<Step> {
  const close = (): Observable<Step> => sequence(run.emitter.one({ type: "turn_end", message, toolResults: [] }), endRun(run));
  const hook = run.config.finishTurn;
  if (!hook) return close();
  return deferred(() => andThen(maybeAsync(() => hook(run.turnContext(message, []), run.signal), "error"), close));
}

/** A limit ends the run: it is told (`onLimitReached`), then `agent_end` carries it. */
function endByLimit(run: Run, limit: LimitReached): Observable<Step> {
  run.limit = limit;
  run.config.onLimitReached?.(limit);
  return endRun(run);
}

/** `agent_end`, built when it is emitted: that is when the queue streams are let go (Q2, Q3). */
function endRun(run: Run): Observable<Step> {
  return deferred(() => run.emitter.one(run.endEvent()));
}
