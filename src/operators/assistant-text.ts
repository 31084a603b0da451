/**
 * `assistantText`: the text of the assistant message being written, whole, each time it grows.
 *
 * @module
 */
import { distinctUntilChanged, filter, map, type OperatorFunction, pipe } from "rxjs";
import type { AssistantMessage } from "../model/messages.js";
import type { AgentEvent, AgentMessage } from "../model/types.js";
import { ofType } from "./of-type.js";

function isAssistant(message: AgentMessage): message is AssistantMessage {
  return (message as { role?: string }).role === "assistant";
}

/** The text blocks of `message`, joined. */
function textOf(message: AssistantMessage): string {
  let text = "";
  for (const block of message.content) if (block.type === "text") text += block.text;
  return text;
}

/**
 * The assistant message's text so far: at its start (often `""`), after each change while it
 * streams, and at its end; never the same text twice in a row within one message. For a view
 * that renders the answer whole (a signal, an `async` pipe) rather than appending pieces.
 *
 * ```text
 * events:          -s-a-t-b-e-|   (s start, a "Hel", t thinking, b "lo", e end of the assistant message)
 * assistantText(): -x-y---z---|   (x "", y "Hel", z "Hello")
 * ```
 *
 * @example
 * ```ts
 * readonly answer = toSignal(agent.events$.pipe(assistantText()), { initialValue: "" });
 * ```
 */
export function assistantText(): OperatorFunction<AgentEvent, string> {
  return pipe(
    ofType("message_start", "message_update", "message_end"),
    filter((event) => isAssistant(event.message)),
    map((event) => ({ start: event.type === "message_start", text: textOf(event.message as AssistantMessage) })),
    // Each message's start goes out (a new answer, even with the text the last one ended with).
    distinctUntilChanged((previous, current) => !current.start && previous.text === current.text),
    map(({ text }) => text),
  );
}
