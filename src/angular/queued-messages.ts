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

type Change = { readonly queued: QueuedMessage } | { readonly landed: string };

function apply(queued: readonly QueuedMessage[], change: Change): readonly QueuedMessage[] {
  if ("queued" in change) return [...queued, change.queued];
  // Queues hand their messages over in order, so the first with this text is the one that landed.
  const index = queued.findIndex((message) => message.text === change.landed);
  return index < 0 ? queued : [...queued.slice(0, index), ...queued.slice(index + 1)];
}

/**
 * The messages sent to `sent` that have not yet joined the transcript: each one is listed from
 * when it is sent until a message with its text is appended to the transcript of `states`. It
 * leaves the list in the same state change that adds it to the transcript, so a view never
 * shows it twice. Neither the agent's state nor its events tell what its queues hold, so only
 * what passed through `sent` is seen; an abort leaves it listed, as the agent keeps it queued
 * for the next run.
 *
 * @example
 * ```ts
 * const queued = toSignal(queuedMessages(sent, agent.state$), { initialValue: [] });
 * ```
 */
export function queuedMessages(sent: Observable<QueuedMessage>, states: Observable<{ readonly messages: readonly AgentMessage[] }>): Observable<readonly QueuedMessage[]> {
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
    map((message): Change => ({ landed: messageText(message) })),
  );
  return merge(sent.pipe(map((queued): Change => ({ queued }))), landed).pipe(
    scan(apply, [] as readonly QueuedMessage[]),
    startWith([] as readonly QueuedMessage[]),
  );
}
