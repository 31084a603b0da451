/**
 * The tool calls of one assistant message (SPEC T4, L9, L10).
 *
 * Parallel (the loop's default): preflight in source order with `concatMap`, then the allowed
 * calls run together with `mergeMap`, so `tool_execution_end` arrives in completion order; the
 * tool-result messages follow in the assistant's source order (`concatMap`). Sequential: each
 * call is prepared, run and finished before the next starts (`concatMap`). Either way the batch
 * ends with its {@link ToolBatchResult}: one message per call, in source order.
 *
 * @module
 */
import { concat, concatMap, defer, EMPTY, from, ignoreElements, mergeMap, type Observable, of } from "rxjs";
import type { ToolCall, ToolResultMessage } from "../model/messages.js";
import type { AgentEvent } from "../model/types.js";
import type { Emitter } from "../engine/emitter.js";
import { usesRunControl } from "./run-control-port.js";
import { executeToolCall } from "./execute-tool-call.js";
import { finalizeToolCall } from "./finalize-tool-call.js";
import { beforeToolCall, checkToolCall, notStarted, type PreparedToolCall, type ToolCallEnvironment, type ToolCallPreparation } from "./prepare-tool-call.js";
import { errorOutcome, toolResultMessage, truncatedToolCallText } from "./tool-result.js";
import type { ToolCallOutcome } from "../model/tool-types.js";

/** What a finished batch leaves behind: the last value of a batch, after its events. */
export class ToolBatchResult {
  constructor(
    /** One result message per call, in source order. */
    readonly messages: ToolResultMessage[],
    /** True when every result asked the loop to stop (SPEC L6). */
    readonly terminate: boolean,
  ) {}
}

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

/** The `tool_approval_request` event of a call. */
export function approvalRequestEvent(prepared: PreparedToolCall): AgentEvent {
  const { toolCall } = prepared;
  return { type: "tool_approval_request", toolCallId: toolCall.id, toolName: toolCall.name, args: prepared.args };
}

/** `message_start` and `message_end` of a call's result message. */
function reported(emitter: Emitter, message: ToolResultMessage): Observable<AgentEvent> {
  return emitter.all([
    { type: "message_start", message },
    { type: "message_end", message },
  ]);
}

/** The batch's result as it is (the default `finish`). */
const asIs = (result: ToolBatchResult): ToolBatchResult => result;

function batchResult(messages: ToolResultMessage[], outcomes: readonly ToolCallOutcome[]): ToolBatchResult {
  return new ToolBatchResult(messages, outcomes.length > 0 && outcomes.every((o) => o.result.terminate === true));
}

/**
 * Executes a prepared call (exported for run control's scheduling): its updates, then its
 * outcome through `afterToolCall`, handed to `done`. With a session, the moment it executes is
 * on record first (a resume then knows it never ran without it); an abort that came meanwhile
 * stops it before it runs.
 */
export function runPrepared(prepared: PreparedToolCall, env: ToolCallEnvironment, emitter: Emitter, done: (outcome: ToolCallOutcome) => Observable<AgentEvent>): Observable<AgentEvent> {
  const executing = emitter.executing;
  if (!executing) return execute(prepared, env, emitter, done);
  return defer(() => {
    const recorded = executing(prepared.toolCall);
    if (!recorded) return execute(prepared, env, emitter, done);
    return concat(
      recorded.pipe(ignoreElements()),
      defer(() => (env.signal.aborted ? done(notStarted(prepared.toolCall)) : execute(prepared, env, emitter, done))),
    );
  });
}

function execute(prepared: PreparedToolCall, env: ToolCallEnvironment, emitter: Emitter, done: (outcome: ToolCallOutcome) => Observable<AgentEvent>): Observable<AgentEvent> {
  const { toolCall } = prepared;
  return executeToolCall(prepared, env).pipe(
    concatMap((note) =>
      note.type === "update"
        ? emitter.one({ type: "tool_execution_update", toolCallId: toolCall.id, toolName: toolCall.name, args: toolCall.arguments, partialResult: note.partialResult })
        : env.afterToolCall
          ? finalizeToolCall(prepared, note, env).pipe(concatMap(done))
          : // No hook: the outcome is the executed result, handed on as it is.
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

/**
 * The call's preparation, now, through `project` (as `concatMap(project)` would; called where
 * its result is subscribed at once, inside `concatMap`'s projection or a `defer`): a
 * settled or duplicate call is decided at once; else it is checked, then goes through
 * `beforeToolCall` and run control when they apply to it. Synchronous when nothing in it waits
 * (SPEC L12).
 */
function preflight<T>(call: ToolCall, index: number, duplicates: Set<number>, env: ToolCallEnvironment, project: (preparation: ToolCallPreparation) => Observable<T>): Observable<T> {
  const settled = env.settled?.get(call.id);
  if (settled) return project({ kind: "immediate", outcome: settled });
  if (duplicates.has(index)) return project({ kind: "immediate", outcome: errorOutcome(call, `Duplicate tool call id "${call.id}" in one message: this call was not executed.`) });
  const checked = checkToolCall(call, env);
  // Without run control, preflight is pi's; with it, only calls it applies to go through it.
  const control = env.control && (env.budget || (checked.kind === "prepared" && usesRunControl(checked.tool))) ? env.control : undefined;
  // Decided, or nothing left that could wait: `concatMap(project)` without the operator.
  if (checked.kind === "immediate" || (!env.beforeToolCall && !control)) return project(checked);
  const hooked = env.beforeToolCall ? beforeToolCall(checked, env) : of<ToolCallPreparation>(checked);
  const admitted = control ? hooked.pipe(concatMap((preparation) => (preparation.kind === "prepared" ? control.admit(preparation, env) : of(preparation)))) : hooked;
  return admitted.pipe(concatMap(project));
}

/**
 * The batch, each call from start to result before the next (`sequential`), else prepared in
 * source order and run together within run control's limits (SPEC R3); its last value is the
 * {@link ToolBatchResult} through `finish` (the loop makes its next step of it, so nothing maps
 * the batch's events on their way out). Never errors for tool failures: each call ends with
 * exactly one result (SPEC T3, L10).
 *
 * ```text
 * parallel; call a takes 2 frames, call b 1 frame (S start, E end, R result message, B the result):
 * frame:   0       1     2
 * events:  Sa Sb   Eb    Ea Ra Rb B
 *          (ends in completion order, result messages in source order)
 * ```
 */
export function executeToolBatch<T = ToolBatchResult>(calls: readonly ToolCall[], env: ToolCallEnvironment, sequential: boolean, emitter: Emitter, finish: (result: ToolBatchResult) => T = asIs as (result: ToolBatchResult) => T): Observable<AgentEvent | T> {
  const duplicates = duplicateIds(calls);
  return sequential ? oneByOne(calls, duplicates, env, emitter, finish) : together(calls, duplicates, env, emitter, finish);
}

/** Sequential: each call from start to result message before the next one starts. */
function oneByOne<T>(calls: readonly ToolCall[], duplicates: Set<number>, env: ToolCallEnvironment, emitter: Emitter, finish: (result: ToolBatchResult) => T): Observable<AgentEvent | T> {
  const outcomes: ToolCallOutcome[] = [];
  const messages: ToolResultMessage[] = [];
  const complete = (outcome: ToolCallOutcome): Observable<AgentEvent> =>
    concat(
      emitter.one(endEvent(outcome)),
      defer(() => {
        const message = toolResultMessage(outcome, env.now());
        outcomes.push(outcome);
        messages.push(message);
        return reported(emitter, message);
      }),
    );
  const run = (ready: PreparedToolCall): Observable<AgentEvent> => (env.signal.aborted ? complete(notStarted(ready.toolCall)) : runPrepared(ready, env, emitter, complete));
  const calling = from(calls).pipe(
    concatMap((call, index) =>
      concat(
        emitter.one(startEvent(call)),
        defer(() =>
          preflight(call, index, duplicates, env, (preparation) => {
            if (preparation.kind === "immediate") return complete(preparation.outcome);
            // Only run control marks a call for approval.
            const control = env.control;
            if (!preparation.approval || !control) return run(preparation);
            return concat(emitter.one(approvalRequestEvent(preparation)), defer(() => control.awaitApproval(preparation, env, emitter, run, complete)));
          }),
        ),
      ),
    ),
  );
  return concat(calling, defer(() => of(finish(batchResult(messages, outcomes)))));
}

/** Parallel: preflight all in source order, execute the allowed calls together, then the result messages in source order. */
function together<T>(calls: readonly ToolCall[], duplicates: Set<number>, env: ToolCallEnvironment, emitter: Emitter, finish: (result: ToolBatchResult) => T): Observable<AgentEvent | T> {
  // Each call's preparation, then its outcome, at its index: filled in by the stages below.
  const preparations: ToolCallPreparation[] = [];
  const outcomes: ToolCallOutcome[] = [];
  // Each call's start, then its preflight, in source order: one concatMap over both.
  // A loop, not `flatMap`: V8's flatMap is several times slower, and this runs once per batch.
  const items: (AgentEvent | number)[] = [];
  for (let index = 0; index < calls.length; index++) items.push(startEvent(calls[index]!), index);
  const preflighting = from(items).pipe(
    concatMap((item) =>
      typeof item !== "number"
        ? emitter.one(item)
        : preflight(calls[item]!, item, duplicates, env, (preparation) => {
            preparations[item] = preparation;
            if (preparation.kind === "immediate") {
              outcomes[item] = preparation.outcome;
              return emitter.one(endEvent(preparation.outcome));
            }
            return preparation.approval ? emitter.one(approvalRequestEvent(preparation)) : EMPTY;
          }),
    ),
  );
  const completeAt =
    (index: number) =>
    (outcome: ToolCallOutcome): Observable<AgentEvent> => {
      outcomes[index] = outcome;
      return emitter.one(endEvent(outcome));
    };
  const execution = (preparation: ToolCallPreparation, index: number): Observable<AgentEvent> => {
    if (preparation.kind === "immediate") return EMPTY;
    const complete = completeAt(index);
    return env.signal.aborted ? complete(notStarted(preparation.toolCall)) : runPrepared(preparation, env, emitter, complete);
  };
  // Read when subscribed (`from` reads its array then), after the preflight filled the
  // preparations in. One call: `mergeMap` of one value is its one inner Observable, without the operator.
  const unscheduled = calls.length === 1 ? defer(() => execution(preparations[0]!, 0)) : from(preparations).pipe(mergeMap(execution));
  const control = env.control;
  // With run control, the preparations decide whether it schedules the batch.
  const executing = control
    ? defer(() => {
        const scheduled = env.maxConcurrency !== undefined || preparations.some((p) => p.kind === "prepared" && (p.approval === true || p.key !== undefined));
        return scheduled ? control.schedule(preparations, env, emitter, completeAt) : unscheduled;
      })
    : unscheduled;
  // The result messages in source order; the batch's result goes out with the last of them.
  const messages: ToolResultMessage[] = [];
  const reported = (outcome: ToolCallOutcome): AgentEvent[] => {
    const message = toolResultMessage(outcome, env.now());
    messages.push(message);
    return [
      { type: "message_start", message },
      { type: "message_end", message },
    ];
  };
  const reporting = defer(() => {
    // Nothing waits on the events, or one message: each message is made when it goes out either way, so all go out at once.
    if (emitter.wait === undefined || outcomes.length === 1) {
      const events: AgentEvent[] = [];
      for (const outcome of outcomes) events.push(...reported(outcome));
      return emitter.tell(events, finish(batchResult(messages, outcomes)));
    }
    if (outcomes.length === 0) return of(finish(batchResult(messages, outcomes)));
    const last = outcomes.length - 1;
    return from(outcomes).pipe(
      concatMap((outcome, index) => {
        const events = reported(outcome);
        return index === last ? emitter.tell(events, finish(batchResult(messages, outcomes))) : emitter.all(events);
      }),
    );
  });
  return concat(preflighting, executing, reporting);
}

/** Every call of a message cut at the token limit gets an error result, none runs (SPEC L9). */
export function failTruncatedToolCalls<T = ToolBatchResult>(calls: readonly ToolCall[], env: ToolCallEnvironment, emitter: Emitter, finish: (result: ToolBatchResult) => T = asIs as (result: ToolBatchResult) => T): Observable<AgentEvent | T> {
  return defer(() => {
    const messages: ToolResultMessage[] = [];
    const failing = from(calls).pipe(
      concatMap((call) => {
        const outcome = errorOutcome(call, truncatedToolCallText(call.name));
        const message = toolResultMessage(outcome, env.now());
        messages.push(message);
        return concat(emitter.one(startEvent(call)), emitter.one(endEvent(outcome)), reported(emitter, message));
      }),
    );
    return concat(failing, defer(() => of(finish(new ToolBatchResult(messages, false)))));
  });
}
