/**
 * `committedMessages`: the messages as they join the transcript.
 *
 * @module
 */
import { map, type OperatorFunction, pipe } from "rxjs";
import type { AgentEvent, AgentMessage } from "../model/types.js";
import { ofType } from "./of-type.js";

/**
 * Each message once it is final and in the transcript (its `message_end`): the prompt, each
 * assistant answer, each tool result, steering and follow-up messages, in transcript order.
 *
 * ```text
 * events:              -p-s-u-e-S-E-r-|   (p the prompt's message_end; s, u, e the answer's start, update, end;
 *                                         S, E a tool's start and end; r its result's message_end)
 * committedMessages(): -p-----e-----r-|
 * ```
 *
 * @example
 * ```ts
 * agent.events$.pipe(committedMessages()).subscribe((message) => journal.append(message));
 * ```
 */
export function committedMessages(): OperatorFunction<AgentEvent, AgentMessage> {
  return pipe(
    ofType("message_end"),
    map((event) => event.message),
  );
}
