/**
 * What was steered or queued as follow-up and has not landed in the transcript yet.
 *
 * @module
 */
import { distinctUntilChanged, filter, map, merge, mergeMap, type Observable, pairwise, scan, startWith } from "rxjs";
import type { AgentMessage } from "../model/types.js";
import { messageText } from "./message-text.js";

/**
 * A message waiting in one of the agent's queues, as sent through {@link injectAgent}'s commands.
 *
 * @example
 * ```ts
 * // template: @for (message of chat.queued(); track $index) { <li>{{ message.text }} ({{ message.kind }})</li> }
 * ```
 */
export interface QueuedMessage {
  /** `steering` lands after the current tool batch; `followUp` when the run would otherwise stop. */
  readonly kind: "steering" | "followUp";
  /** Its text (a message given as an object: the text of its content). */
  readonly text: string;
}

/** What the commands tell: a message was queued, or the agent refused it after all (a remote agent's request failed). */
export type QueueCommand = { readonly queued: QueuedMessage } | { readonly dropped: QueuedMessage };

type Change = QueueCommand | { readonly landed: string };

function without(queued: readonly QueuedMessage[], index: number): readonly QueuedMessage[] {
  return index < 0 ? queued : [...queued.slice(0, index), ...queued.slice(index + 1)];
}

function apply(queued: readonly QueuedMessage[], change: Change): readonly QueuedMessage[] {
  if ("queued" in change) return [...queued, change.queued];
  if ("dropped" in change) return without(queued, queued.indexOf(change.dropped));
  // Queues hand their messages over in order, so the first with this text is the one that landed.
  return without(
    queued,
    queued.findIndex((message) => message.text === change.landed),
  );
}

/**
 * The messages queued through `commands` that have not yet joined the transcript: each one is
 * listed from when it is queued until a message with its text is appended to the transcript of
 * `states` (or it is dropped). It leaves the list in the same state change that adds it to the
 * transcript, so a view never shows it twice. Neither the agent's state nor its events tell what
 * its queues hold, so only what passed through `commands` is seen; an abort leaves it listed, as
 * the agent keeps it queued for the next run.
 *
 * @example
 * ```ts
 * const queued = toSignal(queuedMessages(commands, agent.state$), { initialValue: [] });
 * ```
 */
export function queuedMessages(commands: Observable<QueueCommand>, states: Observable<{ readonly messages: readonly AgentMessage[] }>): Observable<readonly QueuedMessage[]> {
  const landed = states.pipe(
    map((state) => state.messages),
    distinctUntilChanged(),
    pairwise(),
    // What was appended; a transcript replaced by a shorter one (a reset) appends nothing.
    mergeMap(([before, after]) => (after.length > before.length ? after.slice(before.length) : [])),
    // Answers and tool results are the agent's own; anything else may be a queued message.
    filter((message) => {
      const role = (message as { role?: unknown }).role;
      return role !== "assistant" && role !== "toolResult";
    }),
    map((message) => ({ landed: messageText(message) })),
  );
  return merge(commands, landed).pipe(
    scan((queued: readonly QueuedMessage[], change: Change) => apply(queued, change), []),
    startWith([] as readonly QueuedMessage[]),
  );
}
