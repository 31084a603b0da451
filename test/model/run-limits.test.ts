/**
 * Budgets and breakers (SPEC R2): each limit ends the run where it would ask the model again —
 * every call answered, the reason in `agent_end.limit`, the transcript valid for `continue()` —
 * or, for the call limits with `onLimit: "tell"`, tells the model instead. Never a throw. The
 * time limits run on the loop's scheduler, so they are exact in virtual time.
 */
import { filter, Observable, Subject, tap, timer } from "rxjs";
import { describe, expect, it } from "vitest";
import { agentLoop, agentLoopContinue } from "../../src/loop/agent-loop.js";
import { limitReached, MAX_DELAY_MS, requestLimit } from "../../src/model/run-limits.js";
import type { AgentEvent, AgentLoopConfig, AgentMessage, ToolResultMessage } from "../../src/index.js";
import { fauxProvider, fauxToolCall, type FauxScriptEntry } from "../../src/testing/index.js";
import { agentEnd, collectSync, committed, contextWith, model, roles, textOf, textResult, tool, user } from "../helpers/fixtures.js";
import { labelsByFrame, newScheduler, timerTool } from "../helpers/marbles.js";

const echo = tool("echo", (_id, args) => textResult(JSON.stringify(args)), { type: "object", properties: { n: { type: "number" } } });

/** A provider that asks for `echo` with `args(i)` on every request, for ever. */
function looping(args: (i: number) => Record<string, unknown> = (i) => ({ n: i })): ReturnType<typeof fauxProvider> {
  const script: FauxScriptEntry[] = Array.from({ length: 50 }, (_, i) => () => ({ content: [fauxToolCall("echo", args(i), `c${i}`)] }));
  return fauxProvider(script);
}

function run(config: Partial<AgentLoopConfig>, provider = looping()): { events: AgentEvent[]; provider: typeof provider; transcript: AgentMessage[] } {
  const events = collectSync(agentLoop([user("go")], contextWith([echo]), { model, ...config }, undefined, provider));
  return { events, provider, transcript: [user("go"), ...committed(events).slice(1)] };
}

function toolResults(events: readonly AgentEvent[]): ToolResultMessage[] {
  return committed(events).filter((m): m is ToolResultMessage => (m as ToolResultMessage).role === "toolResult");
}

describe("R2: run limits end the run cleanly", () => {
  it("R2: maxTurns 3: exactly three requests, every call answered, the reason in agent_end, the transcript ready for continue()", () => {
    const { events, provider, transcript } = run({ limits: { maxTurns: 3 } });
    expect(provider.requests).toHaveLength(3);
    const end = agentEnd(events);
    expect(end.limit).toEqual({ limit: "maxTurns", value: 3, used: 3, message: "The run reached its limit of 3 model requests." });
    expect(roles(end.messages)).toEqual(["user", "assistant", "toolResult", "assistant", "toolResult", "assistant", "toolResult"]);
    // Valid for continue(): the loop accepts it and asks the model again.
    const more = fauxProvider([{ content: "done" }]);
    expect(() => collectSync(agentLoopContinue(contextWith([echo], transcript), { model }, undefined, more))).not.toThrow();
    expect(more.requests).toHaveLength(1);
  });

  it("R2 Q1: a budget that ends a run while steering waits says so (the message stays untaken)", () => {
    const steering = new Subject<AgentMessage>();
    const provider = fauxProvider([{ content: "first answer" }, { content: "never asked" }]);
    const run$ = agentLoop([user("go")], contextWith([]), { model, limits: { maxTurns: 1 }, steering$: steering }, undefined, provider).pipe(
      // Sent while the first answer streams: it would open a second turn.
      tap((e) => e.type === "message_end" && (e.message as { role: string }).role === "assistant" && steering.next(user("and also this"))),
    );
    const events = collectSync(run$);
    expect(provider.requests).toHaveLength(1);
    expect(agentEnd(events).limit).toMatchObject({ limit: "maxTurns", value: 1 });
    expect(agentEnd(events).untaken?.steering.map((m) => textOf(m))).toEqual(["and also this"]);
  });

  it("R2: a tool's timeoutMs, needsApproval and concurrencyKey are checked with the tool set", () => {
    const provider = fauxProvider([{ content: "x" }]);
    const start = (extra: Record<string, unknown>) => () => agentLoop([user("go")], contextWith([tool("t", () => textResult("x"), { type: "object" }, extra)]), { model }, undefined, provider);
    expect(start({ timeoutMs: Number.POSITIVE_INFINITY })).toThrow('Tool "t": timeoutMs must be a positive number of milliseconds up to 2147483647, got Infinity.');
    expect(start({ needsApproval: "yes" })).toThrow('Tool "t": needsApproval must be a boolean or a function of the arguments.');
    expect(start({ concurrencyKey: "path" })).toThrow('Tool "t": concurrencyKey must be a function of the arguments.');
  });

  it("R2: onLimitReached hears the limit before agent_end", () => {
    const heard: string[] = [];
    const events = collectSync(
      agentLoop([user("go")], contextWith([echo]), { model, limits: { maxTurns: 2 }, onLimitReached: (limit) => heard.push(`${limit.limit}`) }, undefined, looping()).pipe(tap((e) => e.type === "agent_end" && heard.push("agent_end"))),
    );
    expect(heard).toEqual(["maxTurns", "agent_end"]);
    expect(agentEnd(events).limit?.limit).toBe("maxTurns");
  });

  it("R2: a run that ends on its own at the limit reports no limit", () => {
    const { events } = run({ limits: { maxTurns: 1 } }, fauxProvider([{ content: "hi" }]));
    expect(agentEnd(events).limit).toBeUndefined();
  });

  it("R2 R5: maxTokens: the run stops before the request that would go over what it used", () => {
    const script: FauxScriptEntry[] = Array.from({ length: 10 }, (_, i) => ({ content: [fauxToolCall("echo", { n: i }, `c${i}`)], usage: { totalTokens: 400, input: 300, output: 100 } }));
    const { events, provider } = run({ limits: { maxTokens: 1000 } }, fauxProvider(script));
    expect(provider.requests).toHaveLength(3);
    const end = agentEnd(events);
    expect(end.limit).toMatchObject({ limit: "maxTokens", value: 1000, used: 1200 });
    expect(end.usage).toMatchObject({ input: 900, output: 300, totalTokens: 1200 });
  });

  it("R2 R5: maxCost counts usage.cost.total", () => {
    const cost = { input: 0.01, output: 0.02, cacheRead: 0, cacheWrite: 0, total: 0.03 };
    const script: FauxScriptEntry[] = Array.from({ length: 10 }, (_, i) => ({ content: [fauxToolCall("echo", { n: i }, `c${i}`)], usage: { cost } }));
    const { events, provider } = run({ limits: { maxCost: 0.05 } }, fauxProvider(script));
    expect(provider.requests).toHaveLength(2);
    expect(agentEnd(events).limit).toMatchObject({ limit: "maxCost", value: 0.05 });
    expect(agentEnd(events).usage.cost.total).toBeCloseTo(0.06);
  });

  it("R2 T3: limits that cannot mean anything are refused at call time with the name of the limit", () => {
    const provider = fauxProvider([{ content: "x" }]);
    const start = (limits: unknown) => () => agentLoop([user("go")], contextWith([]), { model, limits: limits as AgentLoopConfig["limits"] }, undefined, provider);
    expect(start({ maxTurns: 0 })).toThrow("limits.maxTurns must be a positive integer, got 0.");
    expect(start({ maxToolCalls: 2.5 })).toThrow("limits.maxToolCalls must be a positive integer, got 2.5.");
    expect(start({ maxCost: -1 })).toThrow("limits.maxCost must be a positive number, got -1.");
    expect(start({ timeoutMs: Number.NaN })).toThrow("limits.timeoutMs must be a positive number of milliseconds up to 2147483647, got NaN.");
    // A timer cannot wait longer: setTimeout would fire such a delay at once.
    expect(start({ timeoutMs: Number.POSITIVE_INFINITY })).toThrow("limits.timeoutMs must be a positive number of milliseconds up to 2147483647, got Infinity.");
    expect(start({ toolTimeoutMs: 2 ** 31 })).toThrow("limits.toolTimeoutMs must be a positive number of milliseconds up to 2147483647, got 2147483648.");
    expect(start({ maxRepeatedCalls: 1 })).toThrow("limits.maxRepeatedCalls must be at least 2 (the call that repeats the one before), got 1.");
    expect(start({ onLimit: "stop" })).toThrow('limits.onLimit must be "end" or "tell", got stop.');
    expect(start("fast")).toThrow("limits must be an object, got string.");
    expect(start(null)).toThrow("limits must be an object, got null.");
    // Numbers only: a string that reads as one is refused, not compared.
    expect(start({ maxTokens: "100" })).toThrow("limits.maxTokens must be a positive number, got 100.");
    expect(start({ maxTurns: "3" })).toThrow("limits.maxTurns must be a positive integer, got 3.");
    expect(start({ maxRepeatedCalls: 2.5 })).toThrow("limits.maxRepeatedCalls must be a positive integer, got 2.5.");
    expect(start({ timeoutMs: "5" })).toThrow("limits.timeoutMs must be a positive number of milliseconds up to 2147483647, got 5.");
    expect(start({ toolTimeoutMs: 0 })).toThrow("limits.toolTimeoutMs must be a positive number of milliseconds up to 2147483647, got 0.");
    // The bounds themselves are allowed.
    expect(start({ timeoutMs: MAX_DELAY_MS, maxRepeatedCalls: 2, maxCost: 0.01 })).not.toThrow();
  });

  it("R2: maxConcurrency is a positive integer", () => {
    const provider = fauxProvider([{ content: "x" }]);
    const start = (maxConcurrency: unknown) => () => agentLoop([user("go")], contextWith([]), { model, maxConcurrency: maxConcurrency as number }, undefined, provider);
    expect(start("2")).toThrow("maxConcurrency must be a positive integer, got 2.");
    expect(start(0)).toThrow("maxConcurrency must be a positive integer, got 0.");
    expect(start(1)).not.toThrow();
  });

  it("R2: each limit's reason reads right, in the singular too", () => {
    const one = run({ limits: { maxTurns: 1 } });
    expect(agentEnd(one.events).limit?.message).toBe("The run reached its limit of 1 model request.");
    const oneCall = run({ limits: { maxToolCalls: 1 } }, fauxProvider([{ content: [fauxToolCall("echo", { n: 1 }, "a"), fauxToolCall("echo", { n: 2 }, "b")] }]));
    expect(agentEnd(oneCall.events).limit?.message).toBe("The run reached its limit of 1 tool call.");
    expect(limitReached("maxTokens", 500, 512).message).toBe("The run reached its token budget (500 tokens).");
    expect(limitReached("maxCost", 0.25, 0.3).message).toBe("The run reached its cost budget (0.25).");
    expect(limitReached("timeoutMs", 30, 30).message).toBe("The run reached its time limit (30 ms).");
    expect(limitReached("maxRepeatedCalls", 3, 3).message).toBe("The same tool call came 3 times in a row with the same arguments.");
  });

  it("R2 R5: a budget used up exactly is reached; one not yet used up is not", () => {
    const usage = (totalTokens: number, cost: number) => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost } });
    expect(requestLimit({ maxTokens: 100 }, 1, usage(100, 0))).toMatchObject({ limit: "maxTokens", value: 100, used: 100 });
    expect(requestLimit({ maxTokens: 100 }, 1, usage(99, 0))).toBeUndefined();
    expect(requestLimit({ maxCost: 0.5 }, 1, usage(0, 0.5))).toMatchObject({ limit: "maxCost", value: 0.5, used: 0.5 });
    expect(requestLimit({ maxCost: 0.5 }, 1, usage(0, 0.49))).toBeUndefined();
    expect(requestLimit({ maxTurns: 2 }, 2, usage(0, 0))).toMatchObject({ limit: "maxTurns", value: 2, used: 2 });
    expect(requestLimit({ maxTurns: 2 }, 1, usage(0, 0))).toBeUndefined();
    expect(requestLimit({}, 1_000, usage(1e9, 1e9))).toBeUndefined();
  });

  it("R2 Q1: queued input decides a limit at the end of a turn: a queue stream with nothing sent, or a poll callback, ends on its own", () => {
    const steering$ = new Subject<AgentMessage>();
    const quiet = run({ limits: { maxTurns: 1 }, steering$ }, fauxProvider([{ content: "done" }]));
    expect(agentEnd(quiet.events).limit).toBeUndefined();
    const polled = run({ limits: { maxTurns: 1 }, getSteeringMessages: () => [], getFollowUpMessages: () => [] }, fauxProvider([{ content: "done" }]));
    expect(agentEnd(polled.events).limit).toBeUndefined();
    expect(roles(agentEnd(polled.events).messages)).toEqual(["user", "assistant"]);
  });
});

describe("R2: call limits", () => {
  it("R2: maxToolCalls 3 over batches of two: the 4th call is answered with an error, the run ends after that turn", () => {
    const script: FauxScriptEntry[] = [0, 1, 2].map((t) => ({ content: [fauxToolCall("echo", { n: 2 * t }, `a${t}`), fauxToolCall("echo", { n: 2 * t + 1 }, `b${t}`)] }));
    const { events, provider } = run({ limits: { maxToolCalls: 3 } }, fauxProvider(script));
    expect(provider.requests).toHaveLength(2);
    expect(toolResults(events).map((r) => [r.toolCallId, r.isError])).toEqual([
      ["a0", false],
      ["b0", false],
      ["a1", false],
      ["b1", true],
    ]);
    expect(textOf(toolResults(events)[3])).toBe('Tool call "echo" was not run: the run has used its 3 tool calls. Answer with what you have.');
    expect(agentEnd(events).limit).toEqual({ limit: "maxToolCalls", value: 3, used: 3, message: "The run reached its limit of 3 tool calls." });
  });

  it("R2: with onLimit 'tell' the model reads the refusal and the run goes on", () => {
    const script: FauxScriptEntry[] = [{ content: [fauxToolCall("echo", { n: 1 }, "a"), fauxToolCall("echo", { n: 2 }, "b")] }, { content: "I will answer with what I have." }];
    const { events, provider } = run({ limits: { maxToolCalls: 1, onLimit: "tell" } }, fauxProvider(script));
    expect(provider.requests).toHaveLength(2);
    expect(toolResults(events).map((r) => r.isError)).toEqual([false, true]);
    expect(textOf(provider.requests[1]!.messages.at(-1))).toMatch(/was not run: the run has used its 1 tool call\./);
    expect(agentEnd(events).limit).toBeUndefined();
  });

  it("R2: the breaker fires at the 3rd identical call in a row (across turns); the call does not run", () => {
    let executed = 0;
    const counted = tool("echo", () => (executed++, textResult("same")), { type: "object", properties: { n: { type: "number" } } });
    const provider = looping(() => ({ n: 7 }));
    const events = collectSync(agentLoop([user("go")], contextWith([counted]), { model, limits: { maxRepeatedCalls: 3 } }, undefined, provider));
    expect(executed).toBe(2);
    expect(provider.requests).toHaveLength(3);
    expect(textOf(toolResults(events)[2])).toBe('Tool call "echo" was not run: it is the 3rd call in a row with the same arguments. Use the results you have, or try something else.');
    expect(agentEnd(events).limit).toMatchObject({ limit: "maxRepeatedCalls", value: 3, used: 3 });
  });

  it("R2: arguments a prepareArguments hook made that JSON cannot write (a BigInt): the breaker compares what the model sent, and the run does not fail", () => {
    const kinds: string[] = [];
    const big = tool("big", (_id, args) => (kinds.push(typeof (args as { n: unknown }).n), textResult("ok")), { type: "object" }, { prepareArguments: (sent) => ({ n: BigInt((sent as { n: number }).n) }) });
    const provider = fauxProvider([{ content: [fauxToolCall("big", { n: 1 }, "1")] }, { content: [fauxToolCall("big", { n: 2 }, "2")] }, { content: [fauxToolCall("big", { n: 2 }, "3")] }, { content: "done" }]);
    const events = collectSync(agentLoop([user("go")], contextWith([big]), { model, limits: { maxRepeatedCalls: 2 } }, undefined, provider));
    expect(kinds).toEqual(["bigint", "bigint"]);
    expect(toolResults(events).map(textOf)).toEqual(["ok", "ok", 'Tool call "big" was not run: it is the 2nd call in a row with the same arguments. Use the results you have, or try something else.']);
    expect(agentEnd(events).limit).toMatchObject({ limit: "maxRepeatedCalls", value: 2, used: 2 });
  });

  it("R2: the same arguments in another key order are the same call; other arguments reset the count", () => {
    let n = 0;
    const script: FauxScriptEntry[] = [
      { content: [fauxToolCall("echo", { a: 1, b: 2 }, "1")] },
      { content: [fauxToolCall("echo", { b: 2, a: 1 }, "2")] },
      { content: [fauxToolCall("echo", { a: 1, b: 3 }, "3")] },
      { content: [fauxToolCall("echo", { a: 1, b: 3 }, "4")] },
      { content: "done" },
    ];
    const counted = tool("echo", () => (n++, textResult("x")));
    const events = collectSync(agentLoop([user("go")], contextWith([counted]), { model, limits: { maxRepeatedCalls: 2, onLimit: "tell" } }, undefined, fauxProvider(script)));
    expect(toolResults(events).map((r) => [r.toolCallId, r.isError])).toEqual([
      ["1", false],
      ["2", true],
      ["3", false],
      ["4", true],
    ]);
    expect(n).toBe(2);
    expect(agentEnd(events).limit).toBeUndefined();
  });
});

describe("R2: time limits on the loop's scheduler", () => {
  it("R2 R4 L10: toolTimeoutMs 5 stops a 10-frame tool at frame 5: its signal aborts, it is unsubscribed, the model reads the timeout", () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const slow = cold("10ms (r|)", { r: textResult("late") });
      let signal: AbortSignal | undefined;
      const t = tool("slow", (_id, _args, s) => ((signal = s), slow));
      const provider = fauxProvider([{ content: [fauxToolCall("slow", {}, "1"), fauxToolCall("fast", {}, "2")] }, { content: "ok" }]);
      const events: AgentEvent[] = [];
      const run$ = agentLoop([user("go")], contextWith([t, timerTool("fast", 3)]), { model, scheduler, limits: { toolTimeoutMs: 5 } }, undefined, provider);
      expectObservable(run$.pipe(tap((e) => events.push(e)), filter((e) => e.type === "tool_execution_end"), labelsByFrame(scheduler))).toBe("3ms a 1ms (b|)", {
        a: ["tool_execution_end:2"],
        b: ["tool_execution_end:1"],
      });
      expectSubscriptions(slow.subscriptions).toBe("^----!");
      scheduler.flush();
      expect(signal!.aborted).toBe(true);
      expect(textOf(toolResults(events)[0])).toBe('Tool "slow" timed out after 5 ms and was stopped.');
      expect(textOf(toolResults(events)[1])).toBe("fast");
    });
  });

  it("R2: a tool's own timeoutMs wins over the run's", () => {
    const scheduler = newScheduler();
    scheduler.run(({ flush }) => {
      const provider = fauxProvider([{ content: [fauxToolCall("a", {}, "1"), fauxToolCall("b", {}, "2")] }, { content: "ok" }]);
      const events: AgentEvent[] = [];
      agentLoop([user("go")], contextWith([timerTool("a", 8, "a", { timeoutMs: 20 }), timerTool("b", 8)]), { model, scheduler, limits: { toolTimeoutMs: 5 } }, undefined, provider).subscribe((e) => events.push(e));
      flush();
      expect(toolResults(events).map((r) => [r.toolCallId, r.isError, textOf(r)])).toEqual([
        ["1", false, "a"],
        ["2", true, 'Tool "b" timed out after 5 ms and was stopped.'],
      ]);
    });
  });

  it("R2 L10: timeoutMs aborts the run at its frame: a streaming answer ends aborted, agent_end says why", () => {
    const scheduler = newScheduler();
    scheduler.run(({ expectObservable }) => {
      const provider = fauxProvider([{ content: "a long answer that streams slowly, one delta per frame" }], { scheduler, chunkSize: 2 });
      const events: AgentEvent[] = [];
      const run$ = agentLoop([user("go")], contextWith([]), { model, scheduler, limits: { timeoutMs: 6 } }, undefined, provider);
      expectObservable(run$.pipe(tap((e) => events.push(e)), filter((e) => e.type === "agent_end"), labelsByFrame(scheduler))).toBe("6ms (a|)", { a: ["agent_end"] });
      scheduler.flush();
      const end = agentEnd(events);
      expect(end.limit).toEqual({ limit: "timeoutMs", value: 6, used: 6, message: "The run reached its time limit (6 ms)." });
      expect((end.messages.at(-1) as { stopReason: string }).stopReason).toBe("aborted");
    });
  });

  it("R2: a run that ends before its time limit cancels the timer (nothing fires later)", () => {
    const scheduler = newScheduler();
    scheduler.run(({ flush }) => {
      const events: AgentEvent[] = [];
      agentLoop([user("go")], contextWith([]), { model, scheduler, limits: { timeoutMs: 100 } }, undefined, fauxProvider([{ content: "hi" }])).subscribe((e) => events.push(e));
      expect(scheduler.actions.length).toBe(0);
      flush();
      expect(agentEnd(events).limit).toBeUndefined();
    });
  });
});

// keep rxjs imports used by helper types
void Observable;
void timer;
