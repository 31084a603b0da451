/**
 * When an Observable tool's progress reaches the events (SPEC T1): a value that stands is shown
 * in its own frame, not when the next value arrives; the value completion follows in the same
 * frame is the result only. Each run is an rxjs-marbles context (run mode: frame 1 = 1 ms); the
 * lines are asserted once its virtual time has been flushed.
 */
import { describe, expect, it } from "vitest";
import { runAgentLoop } from "../../src/loop/agent-loop.js";
import type { AgentEvent } from "../../src/index.js";
import { fauxProvider, fauxToolCall } from "../../src/testing/index.js";
import { contextWith, model, textOf, textResult, tool, user } from "../helpers/fixtures.js";
import { marbles } from "../helpers/rxjs-marbles.js";

/** Tool events only, as `u:<text>` for an update and `E:<text>` for the end. */
function toolEvents(event: AgentEvent): string | undefined {
  if (event.type === "tool_execution_update") return `u:${textOf(event.partialResult)}`;
  if (event.type === "tool_execution_end") return `E:${textOf(event.result)}`;
  return undefined;
}

/** The tool's events of one run in virtual time (rxjs-marbles' context), as `"<frame> <label>"` lines. */
function toolTimeline(results: string, values: Record<string, string>): string[] {
  const lines: string[] = [];
  marbles((m) => {
    const mapped = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, textResult(v)]));
    const t = tool("t", () => m.cold(results, mapped));
    const provider = fauxProvider([{ content: [fauxToolCall("t", {}, "a")] }, { content: "ok" }]);
    runAgentLoop({ prompts: [user("go")], context: contextWith([t]), config: { model, scheduler: m.scheduler }, streamFn: provider }).subscribe((event) => {
      const label = toolEvents(event);
      if (label) lines.push(`${m.scheduler.now()} ${label}`);
    });
  })();
  return lines;
}

describe("T1: Observable tool progress is delivered when it is emitted", () => {
  it("T1: an update emitted at 300 ms reaches the events at 300 ms, the result at 1 000 ms", () => {
    expect(toolTimeline("300ms p 699ms (r|)", { p: "30%", r: "done" })).toEqual(["300 u:30%", "1000 E:done"]);
  });

  it("T1: values followed by another in the same frame are updates at once; the one completion follows is the result only", () => {
    expect(toolTimeline("-(pqr|)", { p: "1", q: "2", r: "3" })).toEqual(["1 u:1", "1 u:2", "1 E:3"]);
  });

  it("T1: a value that stood before completion is shown in its frame and is then the result", () => {
    expect(toolTimeline("-p 9ms |", { p: "only" })).toEqual(["1 u:only", "11 E:only"]);
  });

  it(
    "T1: an abort in the frame of an emission answers the call once, with nothing after its end",
    marbles((m) => {
      const lines: string[] = [];
      const controller = new AbortController();
      const t = tool("t", () => m.cold("-p 9ms q", { p: textResult("p"), q: textResult("q") }));
      const provider = fauxProvider([{ content: [fauxToolCall("t", {}, "a")] }, { content: "ok" }]);
      runAgentLoop({ prompts: [user("go")], context: contextWith([t]), config: { model, scheduler: m.scheduler }, streamFn: provider, signal: controller.signal }).subscribe((event) => {
        const label = toolEvents(event);
        if (label) lines.push(`${m.scheduler.now()} ${label}`);
        // abort in the frame p is emitted, before its zero-delay show runs
        if (event.type === "tool_execution_start") m.scheduler.schedule(() => controller.abort(), 1);
      });
      m.flush();
      expect(lines).toEqual(["1 E:Operation aborted"]);
    }),
  );
});
