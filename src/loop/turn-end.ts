/**
 * How a turn ends and what comes next (SPEC L6, L7, L8): `finishTurn`, `turn_end`, then the next
 * turn — tool results or steering keep the inner loop going, follow-up the outer one — or
 * `agent_end`.
 *
 * @module
 */
import { concatMap, defer, type Observable } from "rxjs";
import { fromHook } from "../rx/from-hook.js";
import type { AgentTurnDecision } from "./loop-config.js";
import type { AgentEvent, LimitReached } from "../model/types.js";
import type { Run } from "./run.js";
import { nextTurn } from "./next-turn.js";
import { AfterTurn, End, type FinishTurn, type Phase } from "./steps.js";

const END = new End();

/**
 * `finishTurn`, then `turn_end`. An error or aborted response ends the run: `finishTurn` is told
 * but cannot keep it going (SPEC L6).
 */
export function finishTurn(run: Run, end: FinishTurn): Observable<Phase> {
  const { message, toolResults } = end;
  const lastTurn = run.turnContext(message, toolResults);
  // As in pi, a decision is its action: anything but `end` or `continue` is no decision.
  const decided = (decision: AgentTurnDecision | undefined | void): Observable<Phase> =>
    run.emitter.tell([{ type: "turn_end", message, toolResults }], end.hardExit ? END : new AfterTurn(lastTurn, decision?.action, end.hasMoreToolCalls));
  const hook = run.config.finishTurn;
  return hook ? fromHook(() => hook(lastTurn, run.signal)).pipe(concatMap(decided)) : decided(undefined);
}

/**
 * After `turn_end`: `end` ends the run; else steering is polled (never inside a batch), and the
 * run goes on with tool results or steering; when it would stop, follow-up is polled (the outer
 * loop); a `continue` decision asks once more (SPEC L8). The next turn opens in this phase
 * (`next-turn.ts`), each poll composed as `concatMap` would.
 */
export function afterTurn(run: Run, { lastTurn, action, hasMoreToolCalls }: AfterTurn): Observable<Phase> {
  if (action === "end") return endRun(run);
  // A call limit in "end" mode answered the rest of the batch: the run ends here (SPEC R2).
  const callLimit = run.budget?.reached;
  if (callLimit) return endByLimit(run, callLimit);
  const limits = run.config.limits;
  if (limits) {
    // Checked before the queues are polled: what they hold stays queued for the next run.
    const reached = run.input.control.requestLimit(limits, run.turns, run.usage);
    if (reached) return hasMoreToolCalls || action === "continue" || run.hasQueued() ? endByLimit(run, reached) : endRun(run);
  }
  if (hasMoreToolCalls) return run.poll(run.steering, (steering) => nextTurn(run, steering, lastTurn));
  return run.poll(run.steering, (steering) => {
    if (steering.length > 0) return nextTurn(run, steering, lastTurn);
    return run.poll(run.followUp, (followUp) => {
      if (followUp.length > 0) return nextTurn(run, followUp, lastTurn);
      return action === "continue" ? nextTurn(run, [], lastTurn) : endRun(run);
    });
  });
}

/** A limit ends the run: it is told (`onLimitReached`), then `agent_end` carries it. */
function endByLimit(run: Run, limit: LimitReached): Observable<AgentEvent> {
  run.limit = limit;
  run.config.onLimitReached?.(limit);
  return endRun(run);
}

/** `agent_end`, built when it is emitted: that is when the queue streams are let go (Q2, Q3). */
export function endRun(run: Run): Observable<AgentEvent> {
  return defer(() => run.emitter.one(run.endEvent()));
}
