/** runToolCalls: the tool calls of the current run as one list, emptied by each agent_start. */
import { Subject } from "rxjs";
import { describe, expect, it } from "vitest";
import { runToolCalls } from "../../src/angular/run-tool-calls.js";
import type { AgentEvent } from "../../src/model/types.js";
import type { ToolCallState } from "../../src/operators/tool-calls.js";
import { marbles } from "../helpers/rxjs-marbles.js";

const ok = { content: [{ type: "text" as const, text: "done" }] };
const partial = { content: [{ type: "text" as const, text: "half" }] };
const events: Record<string, AgentEvent> = {
  a: { type: "agent_start" },
  S: { type: "tool_execution_start", toolCallId: "1", toolName: "read", args: { path: "a" } },
  U: { type: "tool_execution_update", toolCallId: "1", toolName: "read", args: { path: "a" }, partialResult: partial },
  E: { type: "tool_execution_end", toolCallId: "1", toolName: "read", result: ok, isError: false },
  r: { type: "tool_approval_request", toolCallId: "2", toolName: "rm", args: { path: "b" } },
};

const read = { toolCallId: "1", toolName: "read", args: { path: "a" } };
const running: ToolCallState = { ...read, status: "running" };
const updated: ToolCallState = { ...read, status: "running", partialResult: partial };
const done: ToolCallState = { ...read, status: "done", partialResult: partial, result: ok };
const asking: ToolCallState = { toolCallId: "2", toolName: "rm", args: { path: "b" }, status: "awaiting-approval" };
const lists: Record<string, readonly ToolCallState[]> = { x: [], s: [running], u: [updated], e: [done], q: [done, asking], w: [running, asking] };

describe("runToolCalls", () => {
  it(
    "a call is one row that changes in place; a second call is a second row; agent_start empties the list",
    marbles((m) => {
      const source = m.hot("-a-S-U-E-r-a-|", events);
      m.expect(source.pipe(runToolCalls())).toBeObservable("xx-s-u-e-q-x-|", lists);
    }),
  );

  it(
    "a run already going when it subscribes is listed from there (a remote agent joined mid-run)",
    marbles((m) => {
      const source = m.hot("--S-r-|", events);
      m.expect(source.pipe(runToolCalls())).toBeObservable("x-s-w-|", lists);
    }),
  );

  it("unsubscribing leaves the events with no subscriber", () => {
    const events$ = new Subject<AgentEvent>();
    const subscription = events$.pipe(runToolCalls()).subscribe();
    events$.next({ type: "agent_start" });
    expect(events$.observed).toBe(true);
    subscription.unsubscribe();
    expect(events$.observed).toBe(false);
  });
});
