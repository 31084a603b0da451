/** `toolCalls` (rxagent/operators): each tool call's state after each event of its lifecycle. */
import { describe, it } from "vitest";
import type { AgentEvent } from "../../src/index.js";
import { toolCalls, type ToolCallState } from "../../src/operators/index.js";
import { marbles } from "../helpers/rxjs-marbles.js";
import { ok } from "./events.js";

const partial = { content: [{ type: "text" as const, text: "half" }] };
const failure = { content: [{ type: "text" as const, text: "denied" }] };
const events: Record<string, AgentEvent> = {
  a: { type: "agent_start" },
  S: { type: "tool_execution_start", toolCallId: "1", toolName: "read", args: { path: "a" } },
  U: { type: "tool_execution_update", toolCallId: "1", toolName: "read", args: { path: "a" }, partialResult: partial },
  E: { type: "tool_execution_end", toolCallId: "1", toolName: "read", result: ok, isError: false },
  T: { type: "tool_execution_start", toolCallId: "2", toolName: "rm", args: { path: "b" } },
  r: { type: "tool_approval_request", toolCallId: "2", toolName: "rm", args: { path: "b" } },
  y: { type: "tool_approval_end", toolCallId: "2", toolName: "rm", approved: true, args: { path: "c" } },
  n: { type: "tool_approval_end", toolCallId: "2", toolName: "rm", approved: false, reason: "not today" },
  F: { type: "tool_execution_end", toolCallId: "2", toolName: "rm", result: failure, isError: true },
};

const read = { toolCallId: "1", toolName: "read", args: { path: "a" } };
const rm = { toolCallId: "2", toolName: "rm", args: { path: "b" } };
const states: Record<string, ToolCallState> = {
  s: { ...read, status: "running" },
  u: { ...read, status: "running", partialResult: partial },
  e: { ...read, status: "done", partialResult: partial, result: ok },
  t: { ...rm, status: "running" },
  r: { ...rm, status: "awaiting-approval" },
  y: { ...rm, args: { path: "c" }, status: "running" },
  n: { ...rm, status: "failed", deniedBecause: "not today" },
  f: { ...rm, status: "failed", deniedBecause: "not today", result: failure },
};

describe("toolCalls", () => {
  it(
    "running from its start, with each partial result, then done with its result; other events are left out",
    marbles((m) => {
      m.expect(m.cold("-a-S-U-E-|", events).pipe(toolCalls())).toBeObservable("---s-u-e-|", states);
    }),
  );

  it(
    "a call that asks: awaiting-approval, then running with the arguments the approval gave",
    marbles((m) => {
      m.expect(m.cold("-T-r-y-|", events).pipe(toolCalls())).toBeObservable("-t-r-y-|", states);
    }),
  );

  it(
    "a denied call: failed with the reason, then its error result",
    marbles((m) => {
      m.expect(m.cold("-T-r-n-F-|", events).pipe(toolCalls())).toBeObservable("-t-r-n-f-|", states);
    }),
  );

  it(
    "calls side by side keep their own state; an id used again after its end starts afresh",
    marbles((m) => {
      m.expect(m.cold("-S-T-U-E-S-|", events).pipe(toolCalls())).toBeObservable("-s-t-u-e-s-|", states);
    }),
  );

  it(
    "an approval answer for a call it never saw changes nothing",
    marbles((m) => {
      m.expect(m.cold("-y-n-|", events).pipe(toolCalls())).toBeObservable("-----|", states);
    }),
  );
});
