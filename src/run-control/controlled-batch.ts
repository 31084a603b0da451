/**
 * A tool batch under run control (SPEC R1–R3): each prepared call through the run's call limits,
 * its tool's concurrency key and its approval rule, then the executions through approvals, keyed
 * lanes and concurrency slots. Only `runControl` refers to this file.
 *
 * @module
 */
import { concatMap, defer, from, groupBy, mergeMap, Observable, of } from "rxjs";
import { describeError } from "../model/describe-error.js";
import type { AgentEvent } from "../model/types.js";
import type { Emitter } from "../engine/emitter.js";
import { ConcurrencySlots } from "./concurrency-slots.js";
import { notStarted, type PreparedToolCall, type ToolCallEnvironment, type ToolCallPreparation } from "../tools/prepare-tool-call.js";
import { awaitApproval, withApprovalNeed } from "./tool-approval.js";
import { runPrepared } from "../tools/tool-batch.js";
import { errorOutcome } from "../tools/tool-result.js";
import type { ToolCallOutcome } from "../model/tool-types.js";

/**
 * A prepared call through the run's call limits, its tool's concurrency key and its approval rule
 * (SPEC R1–R3). Synchronous unless an approval rule answers later (SPEC L12).
 */
export function admitCall(prepared: PreparedToolCall, env: ToolCallEnvironment): Observable<ToolCallPreparation> {
  const { toolCall, tool } = prepared;
  const refused = env.budget?.admit(toolCall, prepared.args);
  if (refused !== undefined) return of({ kind: "immediate", outcome: errorOutcome(toolCall, refused) });
  let keyed: PreparedToolCall = prepared;
  if (tool.concurrencyKey) {
    try {
      const key = tool.concurrencyKey(prepared.args);
      if (key !== undefined) keyed = { ...prepared, key: String(key) };
    } catch (error) {
      return of({ kind: "immediate", outcome: errorOutcome(toolCall, `concurrencyKey of tool "${tool.name}" failed: ${describeError(error)}`) });
    }
  }
  return withApprovalNeed(keyed, env);
}

/** A call through its approval (when it needs one), then executed; `complete` gets its outcome. */
function approvedThenRun(prepared: PreparedToolCall, env: ToolCallEnvironment, emitter: Emitter, complete: (outcome: ToolCallOutcome) => Observable<AgentEvent>, run: (prepared: PreparedToolCall) => Observable<AgentEvent>): Observable<AgentEvent> {
  return prepared.approval ? awaitApproval(prepared, env, emitter, run, complete) : run(prepared);
}

/**
 * The batch with run control (SPEC R1, R3): calls with the same concurrency key form one lane,
 * run in source order (`groupBy` + `concatMap`); other calls are lanes of their own; lanes run
 * side by side. A call waits for its approval before it takes one of the `maxConcurrency` slots,
 * so a call waiting for a human holds no slot.
 *
 * ```text
 * maxConcurrency 2; a, b, c take 2 frames each; a and c share a key:
 * a: --|        b: --|        c:   --|   (c after a: same key; b beside a)
 * ```
 */
export function scheduleCalls(
  preparations: readonly ToolCallPreparation[],
  env: ToolCallEnvironment,
  emitter: Emitter,
  completeAt: (index: number) => (outcome: ToolCallOutcome) => Observable<AgentEvent>,
): Observable<AgentEvent> {
  const slots = env.maxConcurrency !== undefined ? new ConcurrencySlots(env.maxConcurrency) : undefined;
  const prepared = preparations.flatMap((preparation, index) => (preparation.kind === "prepared" ? [{ preparation, index }] : []));
  const lanes = from(prepared).pipe(
    groupBy(({ preparation, index }) => preparation.key ?? index),
    mergeMap((lane) =>
      lane.pipe(
        concatMap(({ preparation, index }) => {
          const complete = completeAt(index);
          const run = (ready: PreparedToolCall): Observable<AgentEvent> => {
            const execute = defer(() => (env.signal.aborted ? complete(notStarted(ready.toolCall)) : runPrepared(ready, env, emitter, complete)));
            return slots ? slots.take(execute) : execute;
          };
          return approvedThenRun(preparation, env, emitter, complete, run);
        }),
      ),
    ),
  );
  if (!slots) return lanes;
  // Closed before the lanes are torn down: a slot freed by the teardown starts no waiting call.
  return new Observable<AgentEvent>((subscriber) => {
    // Added before the lanes subscribe, so it runs first even when they are torn down while subscribing.
    subscriber.add(() => slots.close());
    return lanes.subscribe(subscriber);
  });
}
