/**
 * `toAgUiEvents` on whole runs of a real Agent, read by the AG-UI client's own checks: its
 * schema enforcement and its event verifier (the ones `HttpAgent` runs on every stream). Text,
 * thinking, parallel tool calls, a failure, an abort, a limit, an answer cut off mid tool call,
 * and an approval that ends the run in an interrupt and a resumed run after it.
 */
import { of, tap } from "rxjs";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { AssistantMessageEvent, StreamFn } from "../../src/index.js";
import { emptyAssistantMessage } from "../../src/model/assistant-message.js";
import { fauxProvider, fauxText, fauxThinking, fauxToolCall } from "../../src/testing/index.js";
import { toAgUiEvents, type AgUiEvent } from "../../src/ag-ui/index.js";
import { fauxAgent, model, textResult, tool, typesOf, verified } from "./support.js";

const ids = { threadId: "t1", runId: "r1" };

function ofType<T extends AgUiEvent["type"]>(events: readonly { type: string }[], type: T): Extract<AgUiEvent, { type: T }>[] {
  return events.filter((event) => event.type === type) as Extract<AgUiEvent, { type: T }>[];
}

describe("toAgUiEvents, read by @ag-ui/client's verifier", () => {
  it("the client's checks do refuse a broken stream (a run finished with a text message open)", async () => {
    const broken: AgUiEvent[] = [
      { type: "RUN_STARTED", ...ids },
      { type: "TEXT_MESSAGE_START", messageId: "m", role: "assistant" },
      { type: "RUN_FINISHED", ...ids },
    ];
    await expect(verified(of(...broken))).rejects.toThrow(/text messages are still active/);
  });

  it("a text answer: run, step, one text message whose deltas make the answer, success with usage", async () => {
    const agent = fauxAgent([{ content: "Hello from rxagent.", usage: { input: 10, output: 5, cacheRead: 2 } }]);
    const events = await verified(agent.prompt$("Hi").pipe(toAgUiEvents(ids)));
    expect(typesOf(events)).toEqual(["RUN_STARTED", "STEP_STARTED", "TEXT_MESSAGE_START", ...Array(5).fill("TEXT_MESSAGE_CONTENT"), "TEXT_MESSAGE_END", "STEP_FINISHED", "RUN_FINISHED"]);
    expect(ofType(events, "TEXT_MESSAGE_CONTENT").map((event) => event.delta).join("")).toBe("Hello from rxagent.");
    expect(ofType(events, "RUN_FINISHED")[0]).toEqual({
      type: "RUN_FINISHED",
      ...ids,
      outcome: { type: "success" },
      usage: [{ provider: "faux", model: "faux-1", inputTokens: 12, outputTokens: 5, totalTokens: 17, cachedInputTokens: 2, cacheWriteInputTokens: 0 }],
    });
  });

  it("thinking, then two tool calls run in parallel, then a second turn's text: every call started, closed and answered", async () => {
    const weather = tool("weather", async (_id, args) => textResult(`${(args as { city: string }).city}: 18°C`));
    const agent = fauxAgent(
      [{ content: [fauxThinking("Two cities."), fauxToolCall("weather", { city: "Oslo" }, "c1"), fauxToolCall("weather", { city: "Rome" }, "c2")] }, { content: "Oslo 18°C, Rome 18°C." }],
      [weather],
    );
    const events = await verified(agent.prompt$("Weather?").pipe(toAgUiEvents(ids)));
    expect(ofType(events, "TOOL_CALL_START").map((event) => [event.toolCallId, event.toolCallName, event.parentMessageId])).toEqual([
      ["c1", "weather", "r1-1"],
      ["c2", "weather", "r1-1"],
    ]);
    for (const id of ["c1", "c2"]) {
      const args = ofType(events, "TOOL_CALL_ARGS").filter((event) => event.toolCallId === id).map((event) => event.delta).join("");
      expect(JSON.parse(args)).toEqual({ city: id === "c1" ? "Oslo" : "Rome" });
    }
    expect(ofType(events, "TOOL_CALL_RESULT").map((event) => [event.toolCallId, event.content])).toEqual([
      ["c1", "Oslo: 18°C"],
      ["c2", "Rome: 18°C"],
    ]);
    expect(ofType(events, "REASONING_MESSAGE_CONTENT").map((event) => event.delta).join("")).toBe("Two cities.");
    expect(ofType(events, "STEP_STARTED").map((event) => event.stepName)).toEqual(["turn 1", "turn 2"]);
    expect(ofType(events, "TEXT_MESSAGE_START").map((event) => event.messageId)).toEqual(["r1-2"]);
    expect(events.at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" } });
  });

  it("a provider error ends the run with RUN_ERROR (code failed), its text redacted of credential shapes", async () => {
    const agent = fauxAgent([{ content: [fauxText("Partial")], stopReason: "error", errorMessage: "HTTP 401: bad key sk-abcdefghijklmnopqrstuvwxyz123456" }]);
    const events = await verified(agent.prompt$("Hi").pipe(toAgUiEvents(ids)));
    const error = events.at(-1) as Extract<AgUiEvent, { type: "RUN_ERROR" }>;
    expect(error).toMatchObject({ type: "RUN_ERROR", code: "failed" });
    expect(error.message).toContain("HTTP 401");
    expect(error.message).not.toContain("sk-abcdefghijklmnopqrstuvwxyz123456");
  });

  it("an abort while a tool runs: the call is answered, the run finishes cancelled", async () => {
    const slow = tool("slow", (_id, _args, signal) => new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(new Error("stopped")))));
    const agent = fauxAgent([{ content: [fauxToolCall("slow", {}, "s1")] }], [slow]);
    const run = agent.prompt$("Go").pipe(tap((event) => event.type === "tool_execution_start" && agent.abort()), toAgUiEvents(ids));
    const events = await verified(run);
    expect(ofType(events, "TOOL_CALL_RESULT").map((event) => event.toolCallId)).toEqual(["s1"]);
    expect(events.at(-1)).toEqual({ type: "RUN_FINISHED", ...ids, outcome: { type: "cancelled" }, usage: expect.any(Array) });
  });

  it("a run limit ends the run with RUN_ERROR (code limit) and the limit's sentence", async () => {
    const echo = tool("echo", async () => textResult("again"));
    const agent = new Agent({
      initialState: { model, tools: [echo] },
      streamFn: fauxProvider([{ content: [fauxToolCall("echo", {}, "e1")] }, { content: [fauxToolCall("echo", {}, "e2")] }]),
      limits: { maxTurns: 1 },
    });
    const events = await verified(agent.prompt$("Loop").pipe(toAgUiEvents(ids)));
    expect(events.at(-1)).toMatchObject({ type: "RUN_ERROR", code: "limit" });
    expect((events.at(-1) as unknown as { message: string }).message).toBe("The run reached its limit of 1 model request.");
  });

  it("an answer cut off in the middle of a tool call: the call and the text are closed before the run ends", async () => {
    const partial = { ...emptyAssistantMessage(model, 0), content: [{ type: "text" as const, text: "Let me" }, { type: "toolCall" as const, id: "x1", name: "echo", arguments: {} }] };
    const cut: AssistantMessageEvent[] = [
      { type: "start", partial },
      { type: "text_start", contentIndex: 0, partial },
      { type: "text_delta", contentIndex: 0, delta: "Let me", partial },
      { type: "toolcall_start", contentIndex: 1, partial },
      { type: "toolcall_delta", contentIndex: 1, delta: '{"a":', partial },
      { type: "error", reason: "error", error: { ...partial, stopReason: "error", errorMessage: "connection reset" } },
    ];
    const agent = new Agent({ initialState: { model }, streamFn: (() => of(...cut)) as StreamFn });
    const events = await verified(agent.prompt$("Go").pipe(toAgUiEvents(ids)));
    expect(typesOf(events)).toEqual([
      "RUN_STARTED",
      "STEP_STARTED",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
      "TOOL_CALL_START",
      "TOOL_CALL_ARGS",
      "TOOL_CALL_END",
      "STEP_FINISHED",
      "RUN_ERROR",
    ]);
  });

  it("an approval: the run ends in an interrupt once only the waiting call is left; the resumed run maps its end", async () => {
    const rm = tool("rm", async () => textResult("removed"), { needsApproval: true });
    const ls = tool("ls", async () => textResult("a b"));
    const agent = fauxAgent([{ content: [fauxToolCall("ls", {}, "l1"), fauxToolCall("rm", { path: "b" }, "r1")], usage: { output: 7 } }, { content: "Done.", usage: { output: 3 } }], [ls, rm]);
    const interrupted = verified(agent.events$.pipe(toAgUiEvents(ids)));
    const prompted = agent.prompt("Tidy up");
    const first = await interrupted;
    expect(ofType(first, "TOOL_CALL_RESULT").map((event) => event.toolCallId)).toEqual(["l1"]);
    expect(first.at(-1)).toMatchObject({
      type: "RUN_FINISHED",
      outcome: { type: "interrupt", interrupts: [{ id: "r1", reason: "tool_approval", toolCallId: "r1", metadata: { toolName: "rm", args: { path: "b" } } }] },
    });
    expect(agent.state.pendingApprovals.map((request) => request.toolCallId)).toEqual(["r1"]);

    const resumed = verified(agent.events$.pipe(toAgUiEvents({ threadId: "t1", runId: "r2", waiting: agent.state.pendingApprovals })));
    agent.approve("r1");
    const second = await resumed;
    await prompted;
    expect(typesOf(second)).toEqual(["RUN_STARTED", "TOOL_CALL_RESULT", "STEP_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "STEP_FINISHED", "RUN_FINISHED"]);
    // Each AG-UI run reports the answers it told: the resumed run not the interrupted run's.
    expect(first.at(-1)).toMatchObject({ usage: [{ outputTokens: 7 }] });
    expect(second.at(-1)).toMatchObject({ outcome: { type: "success" }, usage: [{ outputTokens: 3 }] });
  });
});
