/**
 * Between two turns (SPEC L7): `prepareNextTurn`, one more steering poll when nothing is pending,
 * then `turn_start` and the step that appends the turn's pending messages.
 *
 * ```text
 * nextTurn:  prepareNextTurn → steering poll if nothing is pending → turn_start → Append
 * ```
 *
 * Part of the phase after `turn_end` (`turn-end.ts`): a synchronous hook and poll add no step of
 * their own, an asynchronous one is composed with `concatMap`.
 *
 * @module
 */
import { concatMap, type Observable } from "rxjs";
import type { AgentMessage } from "../model/types.js";
import { fromHook } from "../rx/from-hook.js";
import type { AgentTurnContext } from "./loop-config.js";
import { messagesOrNone } from "./queue-poll.js";
import type { Run } from "./run.js";
import { Append, type Phase } from "./steps.js";

/**
 * The next turn, opened with `pending` (tool results' turn: the steering just polled; the outer
 * loop: the follow-up) after `lastTurn`.
 */
export function nextTurn(run: Run, pending: AgentMessage[], lastTurn: AgentTurnContext): Observable<Phase> {
  const queued = (prepared: AgentMessage[]): Observable<Phase> =>
    pending.length > 0
      ? openTurn(run, [...prepared, ...pending])
      : run.poll(run.steering, (polled) => openTurn(run, [...prepared, ...polled]));
  const hook = run.config.prepareNextTurn;
  if (!hook) return queued([]);
  return fromHook(() => hook(lastTurn, run.signal)).pipe(
    concatMap((update) => {
      if (!update) return queued([]);
      run.update(update);
      return queued(run.took(messagesOrNone(update.messages, "prepareNextTurn messages")));
    }),
  );
}

/** `turn_start`, then the step that appends the turn's pending messages. */
function openTurn(run: Run, messages: AgentMessage[]): Observable<Phase> {
  return run.emitter.tell([{ type: "turn_start" }], new Append(messages));
}
