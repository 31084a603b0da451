/**
 * The tool calls of one assistant message (SPEC T4, L9, L10): parallel and sequential batches,
 * truncated messages, aborts — every call gets exactly one result, in source order.
 */
import { EMPTY, lastValueFrom, map, NEVER, Observable, timer, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../../src/loop/agent-loop.js";
import type { AgentEvent, AgentLoopConfig, AgentTool, AgentToolResult, ToolResultMessage } from "../../src/index.js";
import { fauxProvider, fauxToolCall, type FauxReply } from "../../src/testing/index.js";
import { Emitter } from "../../src/engine/emitter.js";
import { executeToolBatch, ToolBatchResult } from "../../src/tools/tool-batch.js";
import { truncatedToolCallText } from "../../src/tools/tool-result.js";
import { agentEnd, collectSync, committed, contextWith, model, roles, textOf, textResult, tool, toolEnvironment, types, user } from "../helpers/fixtures.js";
import { deferred, flushPromises } from "../helpers/controlled-promise.js";
import { labelsByFrame, newScheduler, timerTool } from "../helpers/marbles.js";

function resultsOf(events: readonly AgentEvent[]): ToolResultMessage[] {
  return committed(events).filter((m): m is ToolResultMessage => (m as { role: string }).role === "toolResult");
}

function toolEvents(events: readonly AgentEvent[]): string[] {
  return events.flatMap((e) => (e.type.startsWith("tool_execution") ? [`${e.type.replace("tool_execution_", "")}:${(e as { toolCallId: string }).toolCallId}`] : []));
}

/** A synchronous run of one batch followed by a text reply. */
function runBatch(tools: AgentTool[], calls: FauxReply["content"], config: Partial<AgentLoopConfig> = {}): AgentEvent[] {
  const provider = fauxProvider([{ content: calls }, { content: "done" }]);
  return collectSync(agentLoop([user("go")], contextWith(tools), { model, ...config }, undefined, provider));
}

describe("T4: parallel batches", () => {
  it("T4: preflight runs in source order for every call before any call executes", () => {
    const log: string[] = [];
    const logging = (name: string) => tool(name, () => (log.push(`execute ${name}`), textResult(name)));
    runBatch([logging("a"), logging("b"), logging("c")], [fauxToolCall("a", {}, "1"), fauxToolCall("b", {}, "2"), fauxToolCall("c", {}, "3")], {
      beforeToolCall: ({ toolCall }) => void log.push(`before ${toolCall.name}`),
    });
    expect(log).toEqual(["before a", "before b", "before c", "execute a", "execute b", "execute c"]);
  });

  it("T4: a call decided in preflight (unknown tool, blocked) ends before the others run; results stay in source order", () => {
    const events = runBatch([tool("ok", () => textResult("fine"))], [fauxToolCall("ok", {}, "1"), fauxToolCall("missing", {}, "2"), fauxToolCall("ok", { block: true }, "3")], {
      beforeToolCall: ({ args }) => ((args as { block?: boolean }).block ? { block: true, reason: "blocked" } : undefined),
    });
    expect(toolEvents(events)).toEqual(["start:1", "start:2", "end:2", "start:3", "end:3", "end:1"]);
    expect(resultsOf(events).map((r) => [r.toolCallId, r.isError, textOf(r)])).toEqual([
      ["1", false, "fine"],
      ["2", true, 'Tool "missing" not found. Available tools: ok.'],
      ["3", true, "blocked"],
    ]);
  });

  it("T4: a tool with executionMode 'sequential' makes the whole batch sequential", () => {
    const scheduler = newScheduler();
    scheduler.run(({ expectObservable }) => {
      const tools = [timerTool("a", 10), timerTool("b", 10, "b", { executionMode: "sequential" }), timerTool("c", 10)];
      const provider = fauxProvider([{ content: [fauxToolCall("a", {}, "1"), fauxToolCall("b", {}, "2"), fauxToolCall("c", {}, "3")] }, { content: "done" }]);
      const run$ = agentLoop([user("go")], contextWith(tools), { model, scheduler }, undefined, provider);
      const ends = run$.pipe(labelsByFrame(scheduler, { updates: false }), map((labels) => labels.filter((l) => l.startsWith("tool_execution"))));
      expectObservable(ends).toBe("a 9ms b 9ms c 9ms (d|)", {
        a: ["tool_execution_start:1"],
        b: ["tool_execution_end:1", "tool_execution_start:2"],
        c: ["tool_execution_end:2", "tool_execution_start:3"],
        d: ["tool_execution_end:3"],
      });
    });
  });

  it("T4: a tool with executionMode 'parallel' in a batch without sequential tools runs concurrently", () => {
    const scheduler = newScheduler();
    scheduler.run(({ expectObservable }) => {
      const tools = [timerTool("a", 10, "a", { executionMode: "parallel" }), timerTool("b", 10)];
      const provider = fauxProvider([{ content: [fauxToolCall("a", {}, "1"), fauxToolCall("b", {}, "2")] }, { content: "done" }]);
      const run$ = agentLoop([user("go")], contextWith(tools), { model, scheduler }, undefined, provider);
      const ends = run$.pipe(labelsByFrame(scheduler, { updates: false }), map((labels) => labels.filter((l) => l.startsWith("tool_execution"))));
      expectObservable(ends).toBe("a 9ms (b|)", { a: ["tool_execution_start:1", "tool_execution_start:2"], b: ["tool_execution_end:1", "tool_execution_end:2"] });
    });
  });

  it("T4: global sequential mode prepares, runs and finishes each call before the next one's preflight", () => {
    const log: string[] = [];
    const logging = (name: string) => tool(name, () => (log.push(`execute ${name}`), textResult(name)));
    const events = runBatch([logging("a"), logging("b")], [fauxToolCall("a", {}, "1"), fauxToolCall("b", {}, "2")], {
      toolExecution: "sequential",
      beforeToolCall: ({ toolCall }) => void log.push(`before ${toolCall.name}`),
      afterToolCall: ({ toolCall }) => void log.push(`after ${toolCall.name}`),
    });
    expect(log).toEqual(["before a", "execute a", "after a", "before b", "execute b", "after b"]);
    const all = types(events);
    const first = all.indexOf("tool_execution_start");
    expect(all.slice(first, first + 8)).toEqual([
      "tool_execution_start",
      "tool_execution_end",
      "message_start",
      "message_end",
      "tool_execution_start",
      "tool_execution_end",
      "message_start",
      "message_end",
    ]);
  });

  it("T4: turn_end.toolResults and the transcript hold the results in source order, whatever the completion order", async () => {
    const answers = { slow: deferred<AgentToolResult>(), fast: deferred<AgentToolResult>() };
    const held = (name: keyof typeof answers) => tool(name, () => answers[name].promise);
    const provider = fauxProvider([{ content: [fauxToolCall("slow", {}, "1"), fauxToolCall("fast", {}, "2")] }, { content: "done" }]);
    const run = lastValueFrom(agentLoop([user("go")], contextWith([held("slow"), held("fast")]), { model }, undefined, provider).pipe(toArray()));
    // The second call completes first: its result is handled before the first one settles.
    answers.fast.resolve(textResult("fast"));
    await flushPromises();
    answers.slow.resolve(textResult("slow"));
    const events = await run;
    expect(toolEvents(events)).toEqual(["start:1", "start:2", "end:2", "end:1"]);
    const turnEnd = events.find((e): e is Extract<AgentEvent, { type: "turn_end" }> => e.type === "turn_end")!;
    expect(turnEnd.toolResults.map(textOf)).toEqual(["slow", "fast"]);
    expect(provider.requests[1]!.messages.slice(-2).map(textOf)).toEqual(["slow", "fast"]);
  });

  it("T4: duplicate tool-call ids in one message: the repeat gets an error result and does not run", () => {
    let runs = 0;
    const t = tool("t", () => (runs++, textResult("ran")));
    for (const toolExecution of ["parallel", "sequential"] as const) {
      runs = 0;
      const events = runBatch([t], [fauxToolCall("t", {}, "same"), fauxToolCall("t", {}, "same")], { toolExecution });
      expect(runs).toBe(1);
      expect(resultsOf(events).map((r) => [r.toolCallId, r.isError, textOf(r)])).toEqual([
        ["same", false, "ran"],
        ["same", true, 'Duplicate tool call id "same" in one message: this call was not executed.'],
      ]);
    }
  });
});

describe("L9: a length stop never executes its tool calls", () => {
  it("L9: a length stop never executes its tool calls; each gets an error result asking to re-issue it, and the model is asked again", () => {
    let ran = false;
    let hooked = false;
    const t = tool("write", () => ((ran = true), textResult("written")));
    const provider = fauxProvider([{ content: [fauxToolCall("write", { path: "a" }, "1"), fauxToolCall("write", { path: "b" }, "2")], stopReason: "length" }, { content: "retrying" }]);
    const events = collectSync(agentLoop([user("go")], contextWith([t]), { model, beforeToolCall: () => void (hooked = true) }, undefined, provider));
    expect(ran).toBe(false);
    expect(hooked).toBe(false);
    expect(toolEvents(events)).toEqual(["start:1", "end:1", "start:2", "end:2"]);
    const results = resultsOf(events);
    expect(results.map((r) => [r.toolCallId, r.isError, textOf(r)])).toEqual([
      ["1", true, truncatedToolCallText("write")],
      ["2", true, truncatedToolCallText("write")],
    ]);
    expect(textOf(results[0])).toMatch(/cut off at the output token limit.*Issue the call again/);
    expect(provider.requests).toHaveLength(2);
    expect(roles(agentEnd(events).messages)).toEqual(["user", "assistant", "toolResult", "toolResult", "assistant"]);
  });

  it("L9: a length stop without tool calls ends the run like any stop", () => {
    const provider = fauxProvider([{ content: "cut", stopReason: "length" }]);
    const events = collectSync(agentLoop([user("go")], { messages: [] }, { model }, undefined, provider));
    expect(roles(agentEnd(events).messages)).toEqual(["user", "assistant"]);
  });
});

describe("L10: aborts in a batch — every tool call gets exactly one result", () => {
  it("L10: abort during parallel preflight: calls not yet started get 'Operation aborted'", () => {
    const controller = new AbortController();
    let executed = 0;
    const t = tool("t", () => (executed++, textResult("ran")));
    const provider = fauxProvider([{ content: [fauxToolCall("t", {}, "1"), fauxToolCall("t", { stop: true }, "2"), fauxToolCall("t", {}, "3")] }]);
    const events = collectSync(
      agentLoop([user("go")], contextWith([t]), {
        model,
        beforeToolCall: ({ args }) => {
          if ((args as { stop?: boolean }).stop) controller.abort();
        },
      }, controller.signal, provider),
    );
    expect(executed).toBe(0);
    const results = resultsOf(events);
    expect(results.map((r) => [r.toolCallId, r.isError, textOf(r)])).toEqual([
      ["1", true, "Operation aborted"],
      ["2", true, "Operation aborted"],
      ["3", true, "Operation aborted"],
    ]);
    expect(toolEvents(events).filter((e) => e.startsWith("end"))).toHaveLength(3);
    expect(agentEnd(events).messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });
    expect(provider.requests).toHaveLength(1);
  });

  it("L10: abort during sequential execution: the running call and the calls after it get one result each", () => {
    const scheduler = newScheduler();
    const events: AgentEvent[] = [];
    scheduler.run(({ cold }) => {
      const controller = new AbortController();
      cold("5ms x").subscribe(() => controller.abort());
      const provider = fauxProvider([{ content: [fauxToolCall("a", {}, "1"), fauxToolCall("b", {}, "2"), fauxToolCall("c", {}, "3")] }]);
      agentLoop([user("go")], contextWith([timerTool("a", 3), timerTool("b", 10), timerTool("c", 10)]), { model, scheduler, toolExecution: "sequential" }, controller.signal, provider).subscribe((e) => events.push(e));
    });
    expect(resultsOf(events).map((r) => [r.toolCallId, textOf(r), r.timestamp])).toEqual([
      ["1", "a", 3],
      ["2", "Operation aborted", 5],
      ["3", "Operation aborted", 5],
    ]);
    expect(types(events).at(-1)).toBe("agent_end");
  });

  it("L10: a promise tool that ignores the signal still delivers its own result after a graceful abort", async () => {
    const controller = new AbortController();
    const stubbornAnswer = deferred<AgentToolResult>();
    const started: string[] = [];
    const stubborn = tool("stubborn", () => (started.push("stubborn"), stubbornAnswer.promise));
    const quick = tool("quick", (_id, _p, signal) => new Promise<AgentToolResult>((resolve, reject) => (started.push("quick"), signal.addEventListener("abort", () => reject(new Error("stopped by signal"))))));
    const provider = fauxProvider([{ content: [fauxToolCall("stubborn", {}, "1"), fauxToolCall("quick", {}, "2")] }]);
    const run = lastValueFrom(agentLoop([user("go")], contextWith([stubborn, quick]), { model }, controller.signal, provider).pipe(toArray()));
    await flushPromises();
    expect(started).toEqual(["stubborn", "quick"]);
    controller.abort();
    // quick's rejection is handled while stubborn still works; stubborn finishes only after that.
    await flushPromises();
    stubbornAnswer.resolve(textResult("finished anyway"));
    const events = await run;
    expect(resultsOf(events).map((r) => [r.toolCallId, r.isError, textOf(r)])).toEqual([
      ["1", false, "finished anyway"],
      ["2", true, "stopped by signal"],
    ]);
    expect(agentEnd(events).messages.at(-1)).toMatchObject({ stopReason: "aborted" });
  });

  it("L10: hard cancel of a batch of promise tools: their signal fires, nothing is emitted afterwards", async () => {
    const fired: string[] = [];
    const answers = [deferred<AgentToolResult>(), deferred<AgentToolResult>()];
    const waiting = (name: string, answer: number) =>
      tool(name, (_id, _p, signal) => {
        signal.addEventListener("abort", () => fired.push(name));
        return answers[answer]!.promise;
      });
    const provider = fauxProvider([{ content: [fauxToolCall("a", {}, "1"), fauxToolCall("b", {}, "2")] }, { content: "never" }]);
    const events: AgentEvent[] = [];
    const subscription = agentLoop([user("go")], contextWith([waiting("a", 0), waiting("b", 1)]), { model }, undefined, provider).subscribe((e) => events.push(e));
    const before = events.length;
    subscription.unsubscribe();
    expect(fired).toEqual(["a", "b"]);
    // Both tools settle after the cancel: nothing of theirs may come out.
    answers.forEach((answer, i) => answer.resolve(textResult(["a", "b"][i]!)));
    await flushPromises();
    expect(events.length).toBe(before);
    expect(provider.requests).toHaveLength(1);
  });

  it("L10: hard cancel unsubscribes every running Observable tool of a parallel batch", () => {
    const unsubscribed: string[] = [];
    const hanging = (name: string) => tool(name, () => new Observable<AgentToolResult>(() => () => unsubscribed.push(name)));
    const provider = fauxProvider([{ content: [fauxToolCall("a", {}, "1"), fauxToolCall("b", {}, "2")] }]);
    const subscription = agentLoop([user("go")], contextWith([hanging("a"), hanging("b")]), { model }, undefined, provider).subscribe();
    expect(unsubscribed).toEqual([]);
    subscription.unsubscribe();
    expect(unsubscribed.sort()).toEqual(["a", "b"]);
  });

  it("L10: a tool that never settles and ignores its signal is cut off by the abort (Observable)", () => {
    const controller = new AbortController();
    const t = tool("hang", () => NEVER as Observable<AgentToolResult>);
    const provider = fauxProvider([{ content: [fauxToolCall("hang", {}, "1")] }]);
    const events: AgentEvent[] = [];
    let done = false;
    agentLoop([user("go")], contextWith([t]), { model }, controller.signal, provider).subscribe({ next: (e) => events.push(e), complete: () => (done = true) });
    expect(done).toBe(false);
    controller.abort();
    expect(done).toBe(true);
    expect(resultsOf(events).map(textOf)).toEqual(["Operation aborted"]);
  });
});

describe("T4 with timers: completion order vs source order", () => {
  it("T4: tool_execution_end follows completion, the result messages follow the source", () => {
    const scheduler = newScheduler();
    const events: AgentEvent[] = [];
    scheduler.run(() => {
      const tools = ["a", "b", "c", "d"].map((name, i) => tool(name, () => timer([40, 10, 30, 20][i]!).pipe(map(() => textResult(name)))));
      const provider = fauxProvider([{ content: ["a", "b", "c", "d"].map((n) => fauxToolCall(n, {}, n)) }, { content: "done" }]);
      agentLoop([user("go")], contextWith(tools), { model, scheduler }, undefined, provider).subscribe((e) => events.push(e));
    });
    expect(toolEvents(events).filter((e) => e.startsWith("end"))).toEqual(["end:b", "end:d", "end:c", "end:a"]);
    expect(resultsOf(events).map((r) => r.toolCallId)).toEqual(["a", "b", "c", "d"]);
    expect(resultsOf(events).map((r) => r.durationMs)).toEqual([40, 10, 30, 20]);
  });
});

describe("T4: the batch's events and result", () => {
  const endsOf = (events: readonly AgentEvent[]) => events.filter((e): e is Extract<AgentEvent, { type: "tool_execution_end" }> => e.type === "tool_execution_end");

  it("T4: tool_execution_end has durationMs for a call that ran and none for one decided in preflight; no cancellation key unless aborted (R4)", () => {
    for (const toolExecution of ["parallel", "sequential"] as const) {
      for (const afterToolCall of [undefined, () => undefined]) {
        const events = runBatch([tool("ok", () => textResult("fine"))], [fauxToolCall("ok", {}, "1"), fauxToolCall("missing", {}, "2")], { toolExecution, afterToolCall });
        const ran = endsOf(events).find((e) => e.toolCallId === "1");
        const missing = endsOf(events).find((e) => e.toolCallId === "2");
        expect(ran).toMatchObject({ toolCallId: "1", isError: false });
        expect(typeof ran!.durationMs).toBe("number");
        expect("cancellation" in ran!).toBe(false);
        expect(missing).toMatchObject({ toolCallId: "2", isError: true });
        expect("durationMs" in missing!).toBe(false);
        expect("cancellation" in missing!).toBe(false);
      }
    }
  });

  it("T4: an empty batch (a resumed turn whose calls all have results) asks for no stop, in either mode (L6)", () => {
    for (const sequential of [false, true]) {
      const env = toolEnvironment();
      const batches: ToolBatchResult[] = [];
      const events: unknown[] = [];
      executeToolBatch([], env, sequential, new Emitter(undefined)).subscribe((e) => (e instanceof ToolBatchResult ? batches.push(e) : events.push(e)));
      expect(events).toEqual([]);
      expect(batches).toEqual([{ messages: [], terminate: false }]);
    }
  });
});
