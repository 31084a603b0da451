/**
 * `toAgUiEvents` frame by frame: which AG-UI events each rxagent event becomes, in which frame,
 * when the AG-UI run ends (and the source is let go), and what a resumed run starts from; then
 * a real loop on the faux provider in virtual time, mapped frame by frame.
 */
import { map } from "rxjs";
import { describe, it } from "vitest";
import type { AgentEvent, AssistantMessage } from "../../src/index.js";
import { agentLoop } from "../../src/loop/agent-loop.js";
import { fauxProvider, fauxToolCall } from "../../src/testing/index.js";
import { byFrame, timerTool } from "../helpers/marbles.js";
import { emptyAssistantMessage } from "../../src/model/assistant-message.js";
import { toAgUiEvents, type AgUiEvent } from "../../src/ag-ui/index.js";
import { marbles } from "../helpers/rxjs-marbles.js";
import { model, textResult } from "./support.js";

const ids = { threadId: "t1", runId: "r1" };
const answer: AssistantMessage = { ...emptyAssistantMessage(model, 0), content: [{ type: "text", text: "Hi" }] };
const request = { toolCallId: "c2", toolName: "rm", args: { path: "b" } };

const source: Record<string, AgentEvent> = {
  a: { type: "agent_start" },
  t: { type: "turn_start" },
  m: { type: "message_start", message: answer },
  s: { type: "message_update", message: answer, assistantMessageEvent: { type: "text_start", contentIndex: 0, partial: answer } },
  d: { type: "message_update", message: answer, assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: "Hi", partial: answer } },
  e: { type: "message_update", message: answer, assistantMessageEvent: { type: "text_end", contentIndex: 0, content: "Hi", partial: answer } },
  M: { type: "message_end", message: answer },
  n: { type: "turn_end", message: answer, toolResults: [] },
  E: { type: "agent_end", messages: [], usage: answer.usage, outcome: "completed" },
  A: { type: "agent_end", messages: [], usage: answer.usage, outcome: "aborted" },
  L: { type: "agent_end", messages: [], usage: answer.usage, outcome: "limit", limit: { limit: "maxTurns", value: 1, used: 1, message: "The run reached its limit of 1 model request." } },
  "1": { type: "tool_execution_start", toolCallId: "c1", toolName: "ls", args: {} },
  "2": { type: "tool_execution_start", toolCallId: "c2", toolName: "rm", args: { path: "b" } },
  q: { type: "tool_approval_request", ...request },
  T: { type: "message_end", message: { role: "toolResult", toolCallId: "c1", toolName: "ls", content: [{ type: "text", text: "a b" }], isError: false, timestamp: 0 } },
  y: { type: "tool_approval_end", toolCallId: "c2", toolName: "rm", approved: true },
  r: { type: "tool_execution_end", toolCallId: "c1", toolName: "ls", result: textResult("a b"), isError: false },
  R: { type: "tool_execution_end", toolCallId: "c2", toolName: "rm", result: textResult("removed"), isError: false },
};

const out: Record<string, AgUiEvent> = {
  R: { type: "RUN_STARTED", ...ids, protocolVersion: "1.0" },
  S: { type: "STEP_STARTED", stepName: "turn 1" },
  F: { type: "STEP_FINISHED", stepName: "turn 1" },
  T: { type: "TEXT_MESSAGE_START", messageId: "r1-1", role: "assistant" },
  C: { type: "TEXT_MESSAGE_CONTENT", messageId: "r1-1", delta: "Hi" },
  X: { type: "TEXT_MESSAGE_END", messageId: "r1-1" },
  D: { type: "RUN_FINISHED", ...ids, outcome: { type: "success" } },
  U: {
    type: "RUN_FINISHED",
    ...ids,
    outcome: { type: "success" },
    usage: [{ provider: "faux", model: "faux-1", inputTokens: 0, outputTokens: 0, totalTokens: 0, cachedInputTokens: 0, cacheWriteInputTokens: 0 }],
  },
  K: { type: "RUN_FINISHED", ...ids, outcome: { type: "cancelled" } },
  L: { type: "RUN_ERROR", message: "The run reached its limit of 1 model request.", code: "limit" },
  I: {
    type: "RUN_FINISHED",
    ...ids,
    outcome: {
      type: "interrupt",
      interrupts: [
        {
          id: "c2",
          reason: "tool_approval",
          message: 'Approve the call of "rm"?',
          toolCallId: "c2",
          responseSchema: { type: "object", properties: { approved: { type: "boolean" }, reason: { type: "string" }, args: { type: "object" } }, required: ["approved"] },
          metadata: { toolName: "rm", args: { path: "b" } },
        },
      ],
    },
  },
  P: { type: "TOOL_CALL_RESULT", messageId: "c1-result", toolCallId: "c1", content: "a b", role: "tool" },
  Q: { type: "TOOL_CALL_RESULT", messageId: "c2-result", toolCallId: "c2", content: "removed", role: "tool" },
  G: { type: "RUN_ERROR", message: "The agent run failed", code: "incomplete" },
  q: { type: "CUSTOM", name: "rxagent.tool_approval_request", value: request },
  y: { type: "CUSTOM", name: "rxagent.tool_approval_end", value: { toolCallId: "c2", toolName: "rm", approved: true } },
};

describe("toAgUiEvents", () => {
  it(
    "RUN_STARTED on subscribe, a step per turn, the text as it streams, RUN_FINISHED with agent_end, and the source let go there",
    marbles((m) => {
      const run = m.cold("-a-t-m-s-d-e-M-n-E-|", source);
      // The answer's usage (all zero here): one entry for its provider and model.
      m.expect(run.pipe(toAgUiEvents(ids))).toBeObservable("R--S---T-C-X---F-(U|)", out);
      m.expect(run).toHaveSubscriptions("^----------------!");
    }),
  );

  it(
    "aborted is a cancelled RUN_FINISHED; a limit is RUN_ERROR with its sentence",
    marbles((m) => {
      m.expect(m.cold("-a-A", source).pipe(toAgUiEvents(ids))).toBeObservable("R--(K|)", out);
      m.expect(m.cold("-a-L", source).pipe(toAgUiEvents(ids))).toBeObservable("R--(L|)", out);
    }),
  );

  it(
    "a call waits for approval while another runs: when the other ends, its result, the step's end and the interrupt, then complete",
    marbles((m) => {
      const run = m.cold("-a-t-1-2-q-r-R-E|", source);
      m.expect(run.pipe(toAgUiEvents(ids))).toBeObservable("R--S-------(PFI|)", out);
      m.expect(run).toHaveSubscriptions("^----------!");
    }),
  );

  it(
    "the approval given before the others ended: no interrupt, the run goes on to its end",
    marbles((m) => {
      const run = m.cold("-a-t-1-2-q-y-r-R-n-E|", source);
      m.expect(run.pipe(toAgUiEvents(ids))).toBeObservable("R--S---------P-Q-F-(D|)", out);
    }),
  );

  it(
    "approvals as CUSTOM events: each request and answer told, no interrupt",
    marbles((m) => {
      const run = m.cold("-1-2-q-r-y-R-E|", source);
      m.expect(run.pipe(toAgUiEvents({ ...ids, approvals: "custom" }))).toBeObservable("R----q-P-y-Q-(D|)", out);
    }),
  );

  it(
    "a resumed run starts from the calls that wait: the answer's result, then the run's end",
    marbles((m) => {
      const run = m.cold("-y-R-T-E|", source);
      // `T` commits the result of a call the run before told: it is not told again.
      m.expect(run.pipe(toAgUiEvents({ ...ids, waiting: [request] }))).toBeObservable("R--Q---(D|)", out);
    }),
  );

  it(
    "a source that errors, or completes without agent_end, ends the run with RUN_ERROR (incomplete); the Observable itself never errors",
    marbles((m) => {
      m.expect(m.cold("-a-#", source).pipe(toAgUiEvents(ids))).toBeObservable("R--(G|)", out);
      m.expect(m.cold("-a-|", source).pipe(toAgUiEvents(ids))).toBeObservable("R--(G|)", out);
    }),
  );

  it(
    "with a stateKey, the run's view is kept under that key with STATE_DELTA",
    marbles((m) => {
      const delta = (path: string, value: unknown): AgUiEvent => ({ type: "STATE_DELTA", delta: [{ op: "add", path, value }] });
      const values = {
        ...out,
        v: delta("/agent~1view", { status: "running", pendingApprovals: [] }),
        p: delta("/agent~1view/pendingApprovals", [request]),
        o: delta("/agent~1view/pendingApprovals", []),
        e: delta("/agent~1view", { status: "completed", pendingApprovals: [] }),
      };
      const run = m.cold("-1-2-q-y-r-R-E|", source);
      m.expect(run.pipe(toAgUiEvents({ ...ids, stateKey: "agent/view" }))).toBeObservable("(Rv)-p-o-P-Q-(eD|)", values);
    }),
  );
});

/** A short name for an AG-UI event: its type, and the call it is about. */
function agUiLabel(event: AgUiEvent): string {
  return "toolCallId" in event ? `${event.type}:${event.toolCallId}` : event.type;
}

describe("toAgUiEvents on a real loop in virtual time", () => {
  it(
    "two tools in parallel: each call's start, arguments and end as the provider streams them, each result when its tool ends, the second turn's text, the end",
    marbles((m) => {
      // request 1: start 0, call a 1-3, call b 4-6, done 7; tools a (2 frames) ends 9, b (5 frames) ends 12;
      // request 2: start 12, text 13-15, done 16.
      const provider = fauxProvider([{ content: [fauxToolCall("ls", {}, "a"), fauxToolCall("rm", {}, "b")] }, { content: "ok" }], { scheduler: m.scheduler, delay: 1 });
      const tools = [timerTool("ls", 2), timerTool("rm", 5)];
      const run = agentLoop([{ role: "user", content: "go", timestamp: 0 }], { messages: [], tools }, { model, scheduler: m.scheduler }, undefined, provider);
      m.expect(run.pipe(toAgUiEvents(ids), map(agUiLabel), byFrame(m.scheduler))).toBeObservable("abcdefg--h--ijkl(m|)", {
        a: ["RUN_STARTED", "STEP_STARTED"],
        b: ["TOOL_CALL_START:a"],
        c: ["TOOL_CALL_ARGS:a"],
        d: ["TOOL_CALL_END:a"],
        e: ["TOOL_CALL_START:b"],
        f: ["TOOL_CALL_ARGS:b"],
        g: ["TOOL_CALL_END:b"],
        h: ["TOOL_CALL_RESULT:a"],
        i: ["TOOL_CALL_RESULT:b", "STEP_FINISHED", "STEP_STARTED"],
        j: ["TEXT_MESSAGE_START"],
        k: ["TEXT_MESSAGE_CONTENT"],
        l: ["TEXT_MESSAGE_END"],
        m: ["STEP_FINISHED", "RUN_FINISHED"],
      });
    }),
  );
});
