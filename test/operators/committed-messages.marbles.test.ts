/** `committedMessages` (rxagent/operators): each message as it joins the transcript. */
import { describe, it } from "vitest";
import type { AgentEvent, ToolResultMessage } from "../../src/index.js";
import { committedMessages } from "../../src/operators/index.js";
import { marbles } from "../helpers/rxjs-marbles.js";
import { answer, ok, prompt, textDelta, update } from "./events.js";

const reply = answer("ok");
const result: ToolResultMessage = { role: "toolResult", toolCallId: "1", toolName: "t", content: ok.content, isError: false, timestamp: 0 };
const events: Record<string, AgentEvent> = {
  p: { type: "message_end", message: prompt },
  s: { type: "message_start", message: reply },
  u: update(reply, textDelta(reply, "ok")),
  e: { type: "message_end", message: reply },
  S: { type: "tool_execution_start", toolCallId: "1", toolName: "t", args: {} },
  E: { type: "tool_execution_end", toolCallId: "1", toolName: "t", result: ok, isError: false },
  r: { type: "message_end", message: result },
};

describe("committedMessages", () => {
  it(
    "emits each message at its message_end, in transcript order",
    marbles((m) => {
      m.expect(m.cold("-p-s-u-e-S-E-r-|", events).pipe(committedMessages())).toBeObservable("-p-----e-----r-|", { p: prompt, e: reply, r: result });
    }),
  );

  it(
    "unsubscribes its source with its subscriber",
    marbles((m) => {
      const source = m.cold("-p-s-e-|", events);
      m.expect(source.pipe(committedMessages()), "^--!").toBeObservable("-p--", { p: prompt });
      m.expect(source).toHaveSubscriptions("^--!");
    }),
  );
});
