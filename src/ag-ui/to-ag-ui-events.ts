/**
 * The operator that tells one rxagent run in AG-UI's words.
 *
 * @module
 */
import { catchError, concat, concatMap, defer, from, type Observable, type OperatorFunction, takeWhile } from "rxjs";
import type { AgentEvent } from "../model/types.js";
import type { ToAgUiEventsOptions } from "./ag-ui-options.js";
import { AgUiRunMapping } from "./ag-ui-run-mapping.js";
import type { AgUiEvent } from "./ag-ui-types.js";

export type { ToAgUiEventsOptions } from "./ag-ui-options.js";

/**
 * Maps the events of one run (`agent.prompt$(…)`, or `agent.events$` from before the run to its
 * `agent_end`) to AG-UI events, a run the AG-UI client's verifier accepts:
 *
 * - `RUN_STARTED` on subscribe; `STEP_STARTED` / `STEP_FINISHED` per turn (`turn 1`, `turn 2`, …);
 * - each assistant answer is one AG-UI message (id `<runId>-<n>`): its text blocks as
 *   `TEXT_MESSAGE_START` / `_CONTENT` / `_END`, its thinking as `REASONING_*`, its tool calls as
 *   `TOOL_CALL_START` (with the answer as `parentMessageId`) / `_ARGS` / `_END`, as they stream;
 *   what a final message holds that never streamed is told whole at its `message_end`, and what an
 *   answer left open (an aborted or failed stream) is closed there;
 * - each call's result as `TOOL_CALL_RESULT` at its `tool_execution_end` (completion order), or at
 *   its result message for a call that never ran (a `length` stop);
 * - `agent_end` ends the run: `completed` → `RUN_FINISHED` (success), `aborted` → `RUN_FINISHED`
 *   (cancelled), `failed` → `RUN_ERROR` (code `failed`), `limit` → `RUN_ERROR` (code `limit`, the
 *   limit's sentence), with the token usage of the answers this AG-UI run told, per model;
 * - approvals: see {@link ToAgUiEventsOptions.approvals}; by default the run ends in an interrupt
 *   once every call still going waits for approval, and this Observable completes there (the
 *   rxagent run goes on waiting);
 * - a source that completes without `agent_end`, or errors, ends with `RUN_ERROR` (code
 *   `incomplete`): the Observable never errors.
 *
 * It completes after the run's last event and unsubscribes from the source then. When the source
 * is `agent.prompt$()`, unsubscribing aborts the run: to keep a run waiting for approvals, map
 * `agent.events$` instead (as `createAgUiHandler` does).
 *
 * ```text
 * source: -a-t-m-s-d-e-M-n-E-|      a agent_start, t turn_start, m/M message_start/end, s/d/e text
 * output: R--S---T-C-X---F-(D|)     start/delta/end, n turn_end, E agent_end; R RUN_STARTED,
 *                                   S/F STEP_STARTED/FINISHED, T/C/X TEXT_MESSAGE_*, D RUN_FINISHED
 * ```
 *
 * @example
 * ```ts
 * agent.prompt$("Hello").pipe(toAgUiEvents({ threadId: "t1", runId: "r1" })).subscribe((event) => send(event));
 * ```
 * @param options - The ids of the AG-UI run, and how approvals, errors and state are told.
 * @return The operator.
 */
export function toAgUiEvents(options: ToAgUiEventsOptions): OperatorFunction<AgentEvent, AgUiEvent> {
  return (source: Observable<AgentEvent>) =>
    defer(() => {
      const mapping = new AgUiRunMapping(options);
      const mapped = source.pipe(
        concatMap((event) => mapping.next(event)),
        // A failing source is a failed run, told like one: the AG-UI stream itself stays valid.
        catchError(() => from(mapping.incomplete())),
      );
      return concat(
        from(mapping.start()),
        mapped,
        defer(() => from(mapping.incomplete())),
      ).pipe(takeWhile((event) => event.type !== "RUN_FINISHED" && event.type !== "RUN_ERROR", true));
    });
}
