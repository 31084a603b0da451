/** `ofType` (rxagent/operators): the events of the named types, narrowed to them. */
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/index.js";
import { ofType } from "../../src/operators/index.js";
import { marbles } from "../helpers/rxjs-marbles.js";
import { answer, ok, prompt } from "./events.js";

const events: Record<string, AgentEvent> = {
  a: { type: "agent_start" },
  p: { type: "message_end", message: prompt },
  S: { type: "tool_execution_start", toolCallId: "1", toolName: "t", args: {} },
  E: { type: "tool_execution_end", toolCallId: "1", toolName: "t", result: ok, isError: false },
  e: { type: "message_end", message: answer("ok") },
};

describe("ofType", () => {
  it(
    "keeps the events of one type, in their frames",
    marbles((m) => {
      const source = m.cold("-a-p-S-E-e-|", events);
      m.expect<AgentEvent>(source.pipe(ofType("message_end"))).toBeObservable("---p-----e-|", events);
    }),
  );

  it(
    "keeps the events of several types",
    marbles((m) => {
      const source = m.cold("-a-p-S-E-e-|", events);
      m.expect<AgentEvent>(source.pipe(ofType("tool_execution_start", "tool_execution_end"))).toBeObservable("-----S-E---|", events);
    }),
  );

  it(
    "passes errors and unsubscribes its source with its subscriber",
    marbles((m) => {
      const source = m.cold("-a-E-#", events);
      m.expect<AgentEvent>(source.pipe(ofType("tool_execution_end"))).toBeObservable("---E-#", events);
      m.expect(source).toHaveSubscriptions("^----!");
    }),
  );

  it("narrows the event to its type (checked by the type check: no cast below)", () => {
    const seen: boolean[] = [];
    const ends = [events.E!, events.a!];
    // `end.isError` and `end.result` exist only on tool_execution_end: this compiles because ofType narrowed.
    marbles((m) => {
      m.cold("-x-y|", { x: ends[0]!, y: ends[1]! })
        .pipe(ofType("tool_execution_end"))
        .subscribe((end) => seen.push(end.isError, end.result.content.length === 1));
    })();
    expect(seen).toEqual([false, true]);
  });
});
