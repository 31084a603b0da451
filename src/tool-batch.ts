/**
 * The tool calls of one assistant message (SPEC T4, L9, L10).
 *
 * Parallel (the default): preflight in source order with `concatMap`, then the allowed calls
 * run together with `mergeMap`, so `tool_execution_end` arrives in completion order; the
 * tool-result messages follow in the assistant's source order. Sequential: each call is
 * prepared, run and finished before the next starts.
 *
 * @module
 */
import { concatMap, defer, EMPTY, from, mergeMap, type Observable } from "rxjs";
import { concat } from "./internal/concat.js";
import type { ToolCall, ToolResultMessage } from "./messages.js";
import type { Emitter } from "./internal/emitter.js";
import {
  ABORTED_TOOL_TEXT,
  errorToolResult,
  executeToolCall,
  finalizeToolCall,
  prepareToolCall,
  type ToolCallEnvironment,
  type ToolCallPreparation,
  toolResultMessage,
} from "./tool-call.js";
import type { AgentEvent, ToolCallOutcome, ToolExecutionMode } from "./types.js";

/** What a finished batch leaves behind. */
export interface ToolBatchResult {
  /** One result message per call, in source order. */
  messages: ToolResultMessage[];
  /** True when every result asked the loop to stop (SPEC L6). */
  terminate: boolean;
}

/** The text the model reads for each call of a message cut at the token limit (SPEC L9). */
export function truncatedToolCallText(toolName: string): string {
  return `Tool call "${toolName}" was not executed: the response was cut off at the output token limit, so its arguments may be incomplete. Issue the call again with complete arguments.`;
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
  return event;
}

function resultMessageEvents(emitter: Emitter, message: ToolResultMessage): Observable<AgentEvent> {
  return emitter.all([
    { type: "message_start", message },
    { type: "message_end", message },
  ]);
}

/** Executes a prepared call: its updates, then its outcome through `afterToolCall`, handed to `done`. */
function runPrepared(
  prepared: Extract<ToolCallPreparation, { kind: "prepared" }>,
  env: ToolCallEnvironment,
  emitter: Emitter,
  done: (outcome: ToolCallOutcome) => Observable<AgentEvent>,
): Observable<AgentEvent> {
  const { toolCall } = prepared;
  return executeToolCall(prepared, env).pipe(
    concatMap((note) =>
      note.type === "update"
        ? emitter.one({ type: "tool_execution_update", toolCallId: toolCall.id, toolName: toolCall.name, args: toolCall.arguments, partialResult: note.partialResult })
        : env.afterToolCall
          ? finalizeToolCall(prepared, note, env).pipe(concatMap(done))
          : // No hook: the outcome is the executed result, without an `of` + inner subscription per call (issue 6).
            done({ toolCall, result: note.result, isError: note.isError, durationMs: note.durationMs }),
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

function preflight(call: ToolCall, index: number, duplicates: Set<number>, env: ToolCallEnvironment): Observable<ToolCallPreparation> {
  if (!duplicates.has(index)) return prepareToolCall(call, env);
  const outcome = { toolCall: call, result: errorToolResult(`Duplicate tool call id "${call.id}" in one message: this call was not executed.`), isError: true };
  return from([{ kind: "immediate", outcome } as ToolCallPreparation]);
}

/**
 * Runs the batch and fills `into` when it completes. Never errors for tool failures: each call
 * ends with exactly one result (SPEC T3, L10).
 */
export function executeToolBatch(
  calls: readonly ToolCall[],
  env: ToolCallEnvironment,
  mode: ToolExecutionMode,
  emitter: Emitter,
  into: ToolBatchResult,
): Observable<AgentEvent> {
  return defer(() => {
    const outcomes: ToolCallOutcome[] = new Array(calls.length);
    const duplicates = duplicateIds(calls);
    const finish = (): Observable<AgentEvent> =>
      defer(() => {
        into.terminate = outcomes.length > 0 && outcomes.every((o) => o.result.terminate === true);
        return EMPTY;
      });
    const record = (index: number, outcome: ToolCallOutcome): ToolResultMessage => {
      outcomes[index] = outcome;
      const message = toolResultMessage(outcome, env.now());
      into.messages.push(message);
      return message;
    };

    if (mode === "sequential") {
      const oneByOne = from(calls).pipe(
        concatMap((call, index) => {
          const complete = (outcome: ToolCallOutcome): Observable<AgentEvent> =>
            concat(emitter.one(endEvent(outcome)), defer(() => resultMessageEvents(emitter, record(index, outcome))));
          return concat(
            emitter.one(startEvent(call)),
            preflight(call, index, duplicates, env).pipe(
              concatMap((preparation) => (preparation.kind === "immediate" ? complete(preparation.outcome) : runPrepared(preparation, env, emitter, complete))),
            ),
          );
        }),
      );
      return concat(oneByOne, finish());
    }

    const preparations: ToolCallPreparation[] = new Array(calls.length);
    const preflightAll = from(calls).pipe(
      concatMap((call, index) =>
        concat(
          emitter.one(startEvent(call)),
          preflight(call, index, duplicates, env).pipe(
            concatMap((preparation) => {
              preparations[index] = preparation;
              if (preparation.kind !== "immediate") return EMPTY;
              outcomes[index] = preparation.outcome;
              return emitter.one(endEvent(preparation.outcome));
            }),
          ),
        ),
      ),
    );
    const executeAll = defer(() =>
      from(preparations.map((preparation, index) => ({ preparation, index }))).pipe(
        mergeMap(({ preparation, index }) => {
          if (preparation.kind === "immediate") return EMPTY;
          const complete = (outcome: ToolCallOutcome): Observable<AgentEvent> => {
            outcomes[index] = outcome;
            return emitter.one(endEvent(outcome));
          };
          if (env.signal.aborted) return complete({ toolCall: preparation.toolCall, result: errorToolResult(ABORTED_TOOL_TEXT), isError: true });
          return runPrepared(preparation, env, emitter, complete);
        }),
      ),
    );
    const resultsInSourceOrder = defer(() => from(outcomes.map((outcome, index) => ({ outcome, index })))).pipe(
      concatMap(({ outcome, index }) => resultMessageEvents(emitter, record(index, outcome))),
    );
    return concat(preflightAll, executeAll, resultsInSourceOrder, finish());
  });
}

/** Every call of a message cut at the token limit gets an error result, none runs (SPEC L9). */
export function failTruncatedToolCalls(calls: readonly ToolCall[], env: ToolCallEnvironment, emitter: Emitter, into: ToolBatchResult): Observable<AgentEvent> {
  return from(calls).pipe(
    concatMap((call) => {
      const outcome: ToolCallOutcome = { toolCall: call, result: errorToolResult(truncatedToolCallText(call.name)), isError: true };
      const message = toolResultMessage(outcome, env.now());
      into.messages.push(message);
      return concat(emitter.one(startEvent(call)), emitter.one(endEvent(outcome)), resultMessageEvents(emitter, message));
    }),
  );
}
