/**
 * `textDeltas`: the assistant's text as it streams, piece by piece.
 *
 * @module
 */
import { filter, map, type OperatorFunction, pipe } from "rxjs";
import type { AgentEvent } from "../model/types.js";
import { ofType } from "./of-type.js";

/**
 * Each piece of text the model streams (`text_delta` updates of the assistant message), in
 * order; thinking and tool-call deltas are left out. For appending to a view, or a terminal.
 *
 * ```text
 * events:       -s-a-b-t-e-|   (a, b text deltas "Hel", "lo"; t a thinking delta)
 * textDeltas(): ---a-b-----|   ("Hel", "lo")
 * ```
 *
 * @example
 * ```ts
 * agent.events$.pipe(textDeltas()).subscribe((piece) => process.stdout.write(piece));
 * ```
 */
export function textDeltas(): OperatorFunction<AgentEvent, string> {
  return pipe(
    ofType("message_update"),
    map((event) => event.assistantMessageEvent),
    filter((update): update is Extract<typeof update, { type: "text_delta" }> => update.type === "text_delta"),
    map((update) => update.delta),
  );
}
