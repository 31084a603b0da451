/** `textDeltas` (rxagent/operators): each piece of the assistant's text, as it streams. */
import { describe, it } from "vitest";
import type { AgentEvent } from "../../src/index.js";
import { textDeltas } from "../../src/operators/index.js";
import { marbles } from "../helpers/rxjs-marbles.js";
import { answer, textDelta, thinkingDelta, update } from "./events.js";

const partial = answer("Hello", "hmm");
const events: Record<string, AgentEvent> = {
  s: { type: "message_start", message: partial },
  a: update(partial, textDelta(partial, "Hel")),
  t: update(partial, thinkingDelta(partial, "hmm")),
  b: update(partial, textDelta(partial, "lo")),
  e: { type: "message_end", message: partial },
};

describe("textDeltas", () => {
  it(
    "emits the text deltas only, in order, in their frames",
    marbles((m) => {
      m.expect(m.cold("-s-a-t-b-e-|", events).pipe(textDeltas())).toBeObservable("---a---b---|", { a: "Hel", b: "lo" });
    }),
  );

  it(
    "passes the source's error",
    marbles((m) => {
      m.expect(m.cold("-a-#", events).pipe(textDeltas())).toBeObservable("-a-#", { a: "Hel" });
    }),
  );
});
