/**
 * The tool calls of one assistant message (SPEC T4, L9, L10).
 *
 * Parallel (the loop's default): preflight in source order with `concatMap`, then the allowed calls
 * run together with `mergeMap`, so `tool_execution_end` arrives in completion order; the
 * tool-result messages follow in the assistant's source order. Sequential: each call is
 * prepared, run and finished before the next starts. Either way the batch hands its result —
 * one message per call, in source order — to the continuation once every call is answered.
 *
 * @module
 */
import { EMPTY, type Observable } from "rxjs";
import { concatInPlace } from "../rx/concat-in-place.js";
import { deferred } from "../rx/deferred.js";
import { andThen, andThenValue } from "../rx/maybe-async.js";
import { concatEach, followedBy, mergeEach, sequence } from "../rx/sequence.js";
import type { ToolCall, ToolResultMessage } from "../model/messages.js";
import type { AgentEvent } from "../model/types.js";
import type { Emitter } from "../loop/emitter.js";
import { executeToolCall } from "./execute-tool-call.js";
import { finalizeToolCall } from "./finalize-tool-call.js";
import { notStarted, prepareToolCall, type PreparedToolCall, type ToolCallEnvironment, type ToolCallPreparation } from "./prepare-tool-call.js";
import { approvalRequestEvent } from "./tool-approval.js";
import { errorOutcome, toolResultMessage, truncatedToolCallText } from "./tool-result.js";
import type { ToolCallOutcome } from "./tool-types.js";

/** What a finished batch leaves behind. */
export interface ToolBatchResult {
  /** One result message per call, in source order. */
  readonly messages: ToolResultMessage[];
  /** True when every result asked the loop to stop (SPEC L6). */
  readonly terminate: boolean;
}

/** Goes on once the batch is done. */
export type AfterBatch<T> = (batch: ToolBatchResult) => Observable<T>;

function startEvent(call: ToolCall): AgentEvent {
  return { type: "tool_execution_start", toolCallId: call.id, toolName: call.name, args: call.arguments };
}

function endEvent(outcome: ToolCallOutcome): AgentEvent {
  const event: AgentEvent = {
    type: "tool_execution_end",
    toolCallId: outcome.toolCall.id,
    toolName: outcome.toolCall.name,
    result: outcome.result,
    isError: outcome.isError,
  };
  if (outcome.durationMs !== undefined) event.durationMs = outcome.durationMs;
  if (outcome.cancellation !== undefined) event.cancellation = outcome.cancellation;
  return event;
}

function resultMessageEvents(emitter: Emitter, message: ToolResultMessage): Observable<AgentEvent> {
  return emitter.all([
    { type: "message_start", message },
    { type: "message_end", message },
  ]);
}

function batchResult(messages: ToolResultMessage[], outcomes: readonly ToolCallOutcome[]): ToolBatchResult {
  return { messages, terminate: outcomes.length > 0 && outcomes.every((o) => o.result.terminate === true) };
}

/** Executes a prepared call (exported for run control's scheduling): its updates, then its outcome through `afterToolCall`, handed to `done`. */
export function runPrepared(prepared: PreparedToolCall, env: ToolCallEnvironment, emitter: Emitter, done: (outcome: ToolCallOutcome) => Observable<AgentEvent>): Observable<AgentEvent> {
  const recorded = emitter.executing?.(prepared.toolCall);
  if (!recorded) return execute(prepared, env, emitter, done);
  // The moment it executes is on record first (a resume then knows it never ran without it); an
  // abort that came meanwhile stops it before it runs.
  return recorded.pipe(concatInPlace(() => (env.signal.aborted ? done(notStarted(prepared.toolCall)) : execute(prepared, env, emitter, done))));
}

function execute(prepared: PreparedToolCall, env: ToolCallEnvironment, emitter: Emitter, done: (outcome: ToolCallOutcome) => Observable<AgentEvent>): Observable<AgentEvent> {
  const { toolCall } = prepared;
  return executeToolCall(prepared, env).pipe(
    concatInPlace((note) =>
      note.type === "update"
        ? emitter.one({ type: "tool_execution_update", toolCallId: toolCall.id, toolName: toolCall.name, args: toolCall.arguments, partialResult: note.partialResult })
        : env.afterToolCall
          ? finalizeToolCall(prepared, note, env).pipe(concatInPlace(done))
          : // No hook: the outcome is the executed result, without an `of` and an inner subscription per call.
            // It goes only to `done` (events and the result message read `cancellation` when it is set), so one shape will do.
            done({ toolCall, result: note.result, isError: note.isError, durationMs: note.durationMs, cancellation: note.cancellation }),
    ),
  );
}

/** Ids seen earlier in the same message get an error result instead of running twice. */
function duplicateIds(calls: readonly ToolCall[]): Set<number> {
  const seen = new Set<string>();
  const duplicates = new Set<number>();
  calls.forEach((call, index) => (seen.has(call.id) ? duplicates.add(index) : seen.add(call.id)));
  return duplicates;
}

/** The call's preparation, a value when nothing in it waits (SPEC L12). */
function preflight(call: ToolCall, index: number, duplicates: Set<number>, env: ToolCallEnvironment): ToolCallPreparation | Observable<ToolCallPreparation> {
  const settled = env.settled?.get(call.id);
  if (settled) return { kind: "immediate", outcome: settled };
  if (duplicates.has(index)) return { kind: "immediate", outcome: errorOutcome(call, `Duplicate tool call id "${call.id}" in one message: this call was not executed.`) };
  const prepared = prepareToolCall(call, env);
  // Without run control, preflight is pi's. With it, a call nothing applies to comes back as it was, still a value.
  const control = env.control;
  if (!control) return prepared;
  return andThenValue(prepared, (preparation) => (preparation.kind === "prepared" ? control.admit(preparation, env) : preparation));
}

/**
 * Runs the batch, each call from start to result before the next (`sequential`), else prepared
 * in source order and run together within run control's limits (SPEC R3), then hands its result
 * to `then`. Never errors for tool failures: each call ends with exactly
 * one result (SPEC T3, L10).
 *
 * ```text
 * parallel; call a takes 2 frames, call b 1 frame (S start, E end, R result message):
 * frame:   0       1     2
 * events:  Sa Sb   Eb    Ea Ra Rb, then then(batch)
 *          (ends in completion order, result messages in source order)
 * ```
 */
export function executeToolBatch<T>(calls: readonly ToolCall[], env: ToolCallEnvironment, sequential: boolean, emitter: Emitter, then: AfterBatch<T>): Observable<AgentEvent | T> {
  return deferred(() => {
    const duplicates = duplicateIds(calls);
    return sequential ? oneByOne(calls, duplicates, env, emitter, then) : together(calls, duplicates, env, emitter, then);
  });
}

/** Sequential: each call from start to result message before the next one starts. */
function oneByOne<T>(calls: readonly ToolCall[], duplicates: Set<number>, env: ToolCallEnvironment, emitter: Emitter, then: AfterBatch<T>): Observable<AgentEvent | T> {
  const outcomes: ToolCallOutcome[] = [];
  const messages: ToolResultMessage[] = [];
  const complete = (outcome: ToolCallOutcome): Observable<AgentEvent> =>
    emitter.oneThen(endEvent(outcome), () => {
      const message = toolResultMessage(outcome, env.now());
      outcomes.push(outcome);
      messages.push(message);
      return resultMessageEvents(emitter, message);
    });
  const calling = concatEach(calls, (call, index) =>
    emitter.oneThen(startEvent(call), () =>
      andThen(preflight(call, index, duplicates, env), (preparation) => {
        if (preparation.kind === "immediate") return complete(preparation.outcome);
        const run = (ready: PreparedToolCall): Observable<AgentEvent> => (env.signal.aborted ? complete(notStarted(ready.toolCall)) : runPrepared(ready, env, emitter, complete));
        // Only run control marks a call for approval.
        const control = env.control;
        if (!preparation.approval || !control) return run(preparation);
        return emitter.oneThen(approvalRequestEvent(preparation), () => control.awaitApproval(preparation, env, emitter, run, complete));
      }),
    ),
  );
  return followedBy(calling, () => then(batchResult(messages, outcomes)));
}

/** Parallel: preflight all in source order, execute the allowed calls together, then the result messages in source order. */
function together<T>(calls: readonly ToolCall[], duplicates: Set<number>, env: ToolCallEnvironment, emitter: Emitter, then: AfterBatch<T>): Observable<AgentEvent | T> {
  return preflightAll(calls, duplicates, env, emitter, (preparations) =>
    executeAll(preparations, env, emitter, (outcomes) => resultsInSourceOrder(outcomes, env, emitter, then)),
  );
}

function preflightAll<T>(
  calls: readonly ToolCall[],
  duplicates: Set<number>,
  env: ToolCallEnvironment,
  emitter: Emitter,
  then: (preparations: readonly ToolCallPreparation[]) => Observable<T>,
): Observable<AgentEvent | T> {
  // Filled at each call's index, in source order (concatEach).
  const preparations: ToolCallPreparation[] = [];
  const preparing = concatEach(calls, (call, index) =>
    emitter.oneThen(startEvent(call), () =>
      andThen(preflight(call, index, duplicates, env), (preparation) => {
        preparations[index] = preparation;
        if (preparation.kind === "immediate") return emitter.one(endEvent(preparation.outcome));
        return preparation.approval ? emitter.one(approvalRequestEvent(preparation)) : EMPTY;
      }),
    ),
  );
  return followedBy(preparing, () => then(preparations));
}

function executeAll<T>(
  preparations: readonly ToolCallPreparation[],
  env: ToolCallEnvironment,
  emitter: Emitter,
  then: (outcomes: readonly ToolCallOutcome[]) => Observable<T>,
): Observable<AgentEvent | T> {
  const outcomes: (ToolCallOutcome | undefined)[] = preparations.map((preparation) => (preparation.kind === "immediate" ? preparation.outcome : undefined));
  const completeAt =
    (index: number) =>
    (outcome: ToolCallOutcome): Observable<AgentEvent> => {
      outcomes[index] = outcome;
      return emitter.one(endEvent(outcome));
    };
  const control = env.control;
  const scheduled = control && (env.maxConcurrency !== undefined || preparations.some((p) => p.kind === "prepared" && (p.approval === true || p.key !== undefined)));
  const executing = scheduled
    ? control.schedule(preparations, env, emitter, completeAt)
    : mergeEach(preparations, (preparation, index) => {
        if (preparation.kind === "immediate") return EMPTY;
        const complete = completeAt(index);
        if (env.signal.aborted) return complete(notStarted(preparation.toolCall));
        return runPrepared(preparation, env, emitter, complete);
      });
  return followedBy(executing, () => then(outcomes as ToolCallOutcome[]));
}

function resultsInSourceOrder<T>(outcomes: readonly ToolCallOutcome[], env: ToolCallEnvironment, emitter: Emitter, then: AfterBatch<T>): Observable<AgentEvent | T> {
  const messages: ToolResultMessage[] = [];
  const reporting = concatEach(outcomes, (outcome) => {
    const message = toolResultMessage(outcome, env.now());
    messages.push(message);
    return resultMessageEvents(emitter, message);
  });
  return followedBy(reporting, () => then(batchResult(messages, outcomes)));
}

/** Every call of a message cut at the token limit gets an error result, none runs (SPEC L9). */
export function failTruncatedToolCalls<T>(calls: readonly ToolCall[], env: ToolCallEnvironment, emitter: Emitter, then: AfterBatch<T>): Observable<AgentEvent | T> {
  return deferred(() => {
    const messages: ToolResultMessage[] = [];
    const failing = concatEach(calls, (call) => {
      const outcome = errorOutcome(call, truncatedToolCallText(call.name));
      const message = toolResultMessage(outcome, env.now());
      messages.push(message);
      return sequence(emitter.one(startEvent(call)), emitter.one(endEvent(outcome)), resultMessageEvents(emitter, message));
    });
    return followedBy(failing, () => then({ messages, terminate: false }));
  });
}
