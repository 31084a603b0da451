/** `assistantText` (rxagent/operators): the assistant message's whole text, each time it grows. */
import { describe, it } from "vitest";
import type { AgentEvent } from "../../src/index.js";
import { assistantText } from "../../src/operators/index.js";
import { marbles } from "../helpers/rxjs-marbles.js";
import { answer, prompt, textDelta, thinkingDelta, update } from "./events.js";

const empty = answer("");
const hel = answer("Hel", "hmm");
const hello = answer("Hello", "hmm");
const events: Record<string, AgentEvent> = {
  p: { type: "message_end", message: prompt },
  s: { type: "message_start", message: empty },
  a: update(hel, textDelta(hel, "Hel")),
  t: update(hel, thinkingDelta(hel, "hmm")),
  b: update(hello, textDelta(hello, "lo")),
  e: { type: "message_end", message: hello },
};

describe("assistantText", () => {
  it(
    "emits the text at the start, after each change, never twice the same; other roles and thinking are left out",
    marbles((m) => {
      m.expect(m.cold("-p-s-a-t-b-e-|", events).pipe(assistantText())).toBeObservable("---x-y---z---|", { x: "", y: "Hel", z: "Hello" });
    }),
  );

  it(
    "each message's start goes out, even with the text the one before ended with (two tool-call-only answers)",
    marbles((m) => {
      const first = answer("");
      const second = answer("");
      const starts = { s: { type: "message_start", message: first } as AgentEvent, e: { type: "message_end", message: first } as AgentEvent, t: { type: "message_start", message: second } as AgentEvent, f: { type: "message_end", message: second } as AgentEvent };
      m.expect(m.cold("-s-e-t-f-|", starts).pipe(assistantText())).toBeObservable("-x---x---|", { x: "" });
    }),
  );

  it(
    "starts again with the next assistant message",
    marbles((m) => {
      const next = answer("Bye");
      const more = { ...events, n: { type: "message_start", message: answer("") } as AgentEvent, c: { type: "message_end", message: next } as AgentEvent };
      m.expect(m.cold("-s-b-e-n-c|", more).pipe(assistantText())).toBeObservable("-x-z---x-w|", { x: "", z: "Hello", w: "Bye" });
    }),
  );
});
