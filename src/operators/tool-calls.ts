/**
 * `toolCalls`: each tool call's lifecycle, as the state of the call after each of its events.
 *
 * @module
 */
import { filter, map, type OperatorFunction, pipe, scan } from "rxjs";
import type { AgentToolResult } from "../model/tool-types.js";
import type { AgentEvent } from "../model/types.js";
import { type AgentEventOf, ofType } from "./of-type.js";

/** Where a tool call is: waiting for a human's approval, running, or ended with its result. */
export type ToolCallStatus = "awaiting-approval" | "running" | "done" | "failed";

/** One tool call as its events so far describe it. */
export interface ToolCallState {
  readonly toolCallId: string;
  readonly toolName: string;
  /** The arguments it runs with (an approval may have edited them). */
  readonly args: unknown;
  readonly status: ToolCallStatus;
  /** The last partial result the tool reported while running. */
  readonly partialResult?: AgentToolResult;
  /** The result, once `done` or `failed`. */
  readonly result?: AgentToolResult;
  /** Why an approval was denied, when it was. */
  readonly deniedBecause?: string;
}

type CallEvent = AgentEventOf<"tool_execution_start" | "tool_execution_update" | "tool_execution_end" | "tool_approval_request" | "tool_approval_end">;

/** The calls in flight, by id, and the one the last event changed. */
interface Fold {
  readonly live: ReadonlyMap<string, ToolCallState>;
  readonly changed: ToolCallState | undefined;
}

function next(previous: ToolCallState | undefined, event: CallEvent): ToolCallState | undefined {
  const base = { toolCallId: event.toolCallId, toolName: event.toolName, args: previous?.args };
  switch (event.type) {
    case "tool_approval_request":
      return { ...base, args: event.args, status: "awaiting-approval" };
    case "tool_approval_end": {
      if (!previous) return undefined;
      if (event.approved) return { ...previous, args: event.args ?? previous.args, status: "running" };
      return { ...previous, status: "failed", ...(event.reason === undefined ? {} : { deniedBecause: event.reason }) };
    }
    case "tool_execution_start":
      return { ...base, args: event.args, status: "running" };
    case "tool_execution_update":
      return { ...base, args: previous?.args ?? event.args, status: "running", partialResult: event.partialResult };
    case "tool_execution_end":
      return { ...(previous ?? base), status: event.isError ? "failed" : "done", result: event.result };
  }
}

function fold({ live }: Fold, event: CallEvent): Fold {
  const changed = next(live.get(event.toolCallId), event);
  if (!changed) return { live, changed: undefined };
  const calls = new Map(live);
  // An ended call leaves the map: a long run holds only the calls in flight.
  if (changed.status === "done" || (changed.status === "failed" && event.type === "tool_execution_end")) calls.delete(changed.toolCallId);
  else calls.set(changed.toolCallId, changed);
  return { live: calls, changed };
}

const FIRST: Fold = { live: new Map(), changed: undefined };

/**
 * The state of a tool call after each event of its lifecycle: `awaiting-approval` when it asks
 * for a human, `running` from its start (and with each partial result), then `done` or `failed`
 * with its result. For a list of tool calls in a UI: key the rows by `toolCallId`.
 *
 * ```text
 * events:      -S-U-r-E-|   (S start of call 1, U its update, r the approval request of call 2, E end of call 1)
 * toolCalls(): -a-b-c-d-|   (a 1 running, b 1 running with its partial result, c 2 awaiting-approval, d 1 done)
 * ```
 *
 * @example
 * ```ts
 * agent.events$.pipe(toolCalls()).subscribe((call) => rows.set(call.toolCallId, call));
 * ```
 */
export function toolCalls(): OperatorFunction<AgentEvent, ToolCallState> {
  return pipe(
    ofType("tool_approval_request", "tool_approval_end", "tool_execution_start", "tool_execution_update", "tool_execution_end"),
    scan(fold, FIRST),
    map((state) => state.changed),
    filter((changed): changed is ToolCallState => changed !== undefined),
  );
}
