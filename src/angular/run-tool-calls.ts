/**
 * The tool calls of the current run, as a list for a tool panel.
 *
 * @module
 */
import { type OperatorFunction, scan, startWith, switchMap } from "rxjs";
import type { AgentEvent } from "../model/types.js";
import { ofType } from "../operators/of-type.js";
import { type ToolCallState, toolCalls } from "../operators/tool-calls.js";

function upsert(calls: readonly ToolCallState[], call: ToolCallState): readonly ToolCallState[] {
  const index = calls.findIndex((known) => known.toolCallId === call.toolCallId);
  if (index < 0) return [...calls, call];
  const next = calls.slice();
  next[index] = call;
  return next;
}

/**
 * Every tool call of the current run (or of the last one, once it ended), in the order they
 * appeared, each as `toolCalls()` last described it: awaiting approval, running with its latest
 * partial result, done or failed. Each `agent_start` begins an empty list.
 *
 * ```text
 * events:         -a-S-U-E-a-|   (a agent_start; S, U, E a call's start, update and end)
 * runToolCalls(): xx-r-u-d-x-|   (x [], r [running], u [running with its update], d [done])
 * ```
 *
 * @example
 * ```ts
 * const calls = toSignal(agent.events$.pipe(runToolCalls()), { initialValue: [] });
 * ```
 */
export function runToolCalls(): OperatorFunction<AgentEvent, readonly ToolCallState[]> {
  return (events) =>
    events.pipe(
      ofType("agent_start"),
      // Also the run already going when this subscribes (a remote agent joined mid-run).
      startWith(undefined),
      switchMap(() => events.pipe(toolCalls(), scan(upsert, [] as readonly ToolCallState[]), startWith([] as readonly ToolCallState[]))),
    );
}
