/**
 * `ofType`: the events of the named types, narrowed to them.
 *
 * @module
 */
import { filter, type OperatorFunction } from "rxjs";
import type { AgentEvent } from "../model/types.js";

/** The event of type `T`. */
export type AgentEventOf<T extends AgentEvent["type"]> = Extract<AgentEvent, { type: T }>;

/**
 * Only the events of the given types, typed as those: `event.result` of a
 * `tool_execution_end` needs no `if (event.type === …)` after it. As NgRx's `ofType`.
 *
 * ```text
 * events:                -s-u-u-e-S-E-|   (s/e message start/end, u update, S/E tool start/end)
 * ofType("message_end"):  -------e-----|
 * ```
 *
 * @example
 * ```ts
 * agent.events$.pipe(ofType("tool_execution_end")).subscribe((end) => console.log(end.toolName, end.isError));
 * ```
 */
export function ofType<T extends AgentEvent["type"]>(...types: [T, ...T[]]): OperatorFunction<AgentEvent, AgentEventOf<T>> {
  if (types.length === 1) {
    const only = types[0];
    return filter((event): event is AgentEventOf<T> => event.type === only);
  }
  const wanted: ReadonlySet<string> = new Set(types);
  return filter((event): event is AgentEventOf<T> => wanted.has(event.type));
}
