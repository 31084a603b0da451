/**
 * `agent_end.outcome` (SPEC L15): how a run of the bare `agentLoop` ended — completed, aborted by
 * the user, failed, or ended by a limit — told apart where `errorMessage` alone cannot. Whole
 * runs in virtual time.
 */
import { map, NEVER, Observable, timer } from "rxjs";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../../src/loop/agent-loop.js";
import type { AgentEvent, AgentLoopConfig, AgentMessage, AssistantMessage, LimitReached, Message, StreamFn } from "../../src/index.js";
import { fauxProvider, fauxToolCall, type FauxScriptEntry } from "../../src/testing/index.js";
import { agentEnd, contextWith, model, textResult, tool, user } from "../helpers/fixtures.js";
import { newScheduler, timerTool } from "../helpers/marbles.js";

const echo = tool("echo", () => textResult("echoed"));
const slow = timerTool("slow", 10);

/**
 * One run in virtual time: the provider answers one event per frame; `abortAt` aborts the loop's
 * signal at that frame. Returns the run's events.
 */
function run(script: FauxScriptEntry[], config: Partial<AgentLoopConfig> = {}, options: { abortAt?: number; abortReason?: unknown; streamFn?: StreamFn; controller?: AbortController } = {}): AgentEvent[] {
  const scheduler = newScheduler();
  const events: AgentEvent[] = [];
  const controller = options.controller ?? new AbortController();
  scheduler.run(() => {
    if (options.abortAt !== undefined) scheduler.schedule(() => controller.abort(options.abortReason), options.abortAt);
    const streamFn = options.streamFn ?? fauxProvider(script, { scheduler, delay: 1 });
    agentLoop([user("go")], contextWith([echo, slow]), { model, scheduler, ...config }, controller.signal, streamFn).subscribe((event) => events.push(event));
  });
  return events;
}

function lastAnswer(events: AgentEvent[]): AssistantMessage {
  return agentEnd(events).messages.filter((m): m is AssistantMessage => (m as { role: string }).role === "assistant").at(-1)!;
}

describe("L15: agent_end.outcome through the bare agentLoop", () => {
  it("L15: completed — a run with a tool turn that ends on its own", () => {
    const events = run([{ content: [fauxToolCall("echo", {}, "c1")] }, { content: "done" }]);
    expect(agentEnd(events).outcome).toBe("completed");
    expect(lastAnswer(events).errorMessage).toBeUndefined();
  });

  it("L15: aborted — the signal fires while the answer streams; errorMessage is pi's, the outcome says abort", () => {
    const events = run([{ content: "a long answer that streams for a while" }], {}, { abortAt: 3 });
    expect(agentEnd(events).outcome).toBe("aborted");
    expect(lastAnswer(events)).toMatchObject({ stopReason: "aborted", errorMessage: "Request was aborted" });
  });

  it("L15: aborted — the signal fires while a tool runs", () => {
    const events = run([{ content: [fauxToolCall("slow", {}, "c1")] }, { content: "never" }], {}, { abortAt: 7 });
    expect(agentEnd(events).outcome).toBe("aborted");
    expect(lastAnswer(events).stopReason).toBe("aborted");
  });

  it("L15: aborted — the signal fires after the last answer (in finishTurn): no aborted message, still a user's abort", () => {
    const controller = new AbortController();
    const events = run([{ content: "done" }], { finishTurn: () => void controller.abort() }, { controller });
    expect(agentEnd(events).outcome).toBe("aborted");
    expect(lastAnswer(events).stopReason).toBe("stop");
  });

  it("L15 A6: aborted — a hook that fails because of the abort (rejecting with the signal's own reason, as fetch does) ends in the normalized failure, aborted", () => {
    const transformContext = (_messages: unknown, signal?: AbortSignal) =>
      new Observable<never>((subscriber) => signal!.addEventListener("abort", () => subscriber.error(signal!.reason)));
    const events = run([{ content: "never" }], { transformContext: transformContext as AgentLoopConfig["transformContext"] }, { abortAt: 2 });
    expect(agentEnd(events).outcome).toBe("aborted");
    expect(lastAnswer(events).stopReason).toBe("aborted");
  });

  it("L15: failed — the provider answers with an error", () => {
    const events = run([{ content: "", stopReason: "error", errorMessage: "HTTP 500: upstream failed" }]);
    expect(agentEnd(events).outcome).toBe("failed");
    expect(lastAnswer(events).errorMessage).toBe("HTTP 500: upstream failed");
  });

  it("L15: failed — the provider answers aborted while nobody aborted the run", () => {
    const events = run([{ content: "", stopReason: "aborted", errorMessage: "The server cancelled the request" }]);
    expect(agentEnd(events).outcome).toBe("failed");
  });

  it("L15: completed — an app's own message that carries stopReason \"error\" is not an assistant answer: it fails nothing", () => {
    const notice = { role: "notice", stopReason: "error", text: "the build failed" } as unknown as AgentMessage;
    const scheduler = newScheduler();
    const events: AgentEvent[] = [];
    scheduler.run(() => {
      agentLoop([user("go"), notice], contextWith([echo]), { model, scheduler, convertToLlm: (messages) => messages.filter((m) => (m as { role: string }).role !== "notice") as Message[] }, new AbortController().signal, fauxProvider([{ content: "done" }], { scheduler, delay: 1 })).subscribe((event) => events.push(event));
    });
    expect(agentEnd(events).outcome).toBe("completed");
  });

  it("L15: failed — a hook throws: the normalized failure (SPEC A6)", () => {
    const events = run([{ content: "never" }], {
      prepareRequest: () => {
        throw new Error("prepareRequest broke");
      },
    });
    expect(agentEnd(events).outcome).toBe("failed");
    expect(lastAnswer(events)).toMatchObject({ stopReason: "error", errorMessage: "prepareRequest broke" });
  });

  it("L15: failed — a follow-up stream that errors fails the run at its poll (SPEC Q2)", () => {
    const followUp$ = new Observable<never>((subscriber) => subscriber.error(new Error("queue source broke")));
    const events = run([{ content: "done" }], { followUp$ });
    expect(agentEnd(events).outcome).toBe("failed");
  });

  it("L15: limit — maxTurns ends a run that would ask again; agent_end.limit says which", () => {
    const events = run([{ content: [fauxToolCall("echo", {}, "c1")] }, { content: "never" }], { limits: { maxTurns: 1 } });
    const end = agentEnd(events);
    expect(end.outcome).toBe("limit");
    expect(end.limit?.limit).toBe("maxTurns");
  });

  it("L15: limit — timeoutMs aborts the run, and the outcome is the limit, not an abort", () => {
    const hanging: StreamFn = () => NEVER;
    const events = run([], { limits: { timeoutMs: 5 } }, { streamFn: hanging });
    const end = agentEnd(events);
    expect(end.outcome).toBe("limit");
    expect(end.limit?.limit).toBe("timeoutMs");
    expect(lastAnswer(events).stopReason).toBe("aborted");
  });
});

/** A hook that fails only once the run is aborted, with what `fail` makes of the signal. */
function failsOnAbort(fail: (signal: AbortSignal) => unknown) {
  return ((_messages: unknown, signal?: AbortSignal) =>
    new Observable<never>((subscriber) => signal!.addEventListener("abort", () => subscriber.error(fail(signal!))))) as AgentLoopConfig["transformContext"];
}

const ERROR_ANSWER: FauxScriptEntry = { content: "", stopReason: "error", errorMessage: "HTTP 401: bad key" };

describe("L15: a failure is told first, then a limit, then an abort", () => {
  it("L15: failed — an error answer, then the signal fires (in finishTurn, after the answer): the answer's failure stands", () => {
    const controller = new AbortController();
    const events = run([ERROR_ANSWER], { finishTurn: () => void controller.abort() }, { controller });
    expect(controller.signal.aborted).toBe(true);
    expect(agentEnd(events).outcome).toBe("failed");
    expect(lastAnswer(events)).toMatchObject({ stopReason: "error", errorMessage: "HTTP 401: bad key" });
  });

  it("L15 R2: failed — an error answer, then the time limit passes while finishTurn holds the run: no limit, onLimitReached not told", () => {
    const told: LimitReached[] = [];
    const events = run([ERROR_ANSWER], {
      limits: { timeoutMs: 10 },
      onLimitReached: (limit) => void told.push(limit),
      finishTurn: () => timer(50).pipe(map(() => undefined)),
    });
    const end = agentEnd(events);
    expect(end.outcome).toBe("failed");
    expect(end.limit).toBeUndefined();
    expect(told).toEqual([]);
  });

  it("L15 R2: failed — maxToolCalls ends the batch (end mode), then finishTurn throws: the failure, not the limit", () => {
    const events = run([{ content: [fauxToolCall("echo", {}, "c1"), fauxToolCall("echo", {}, "c2")] }, { content: "never" }], {
      limits: { maxToolCalls: 1 },
      finishTurn: () => {
        throw new Error("finishTurn broke");
      },
    });
    const end = agentEnd(events);
    expect(end.outcome).toBe("failed");
    expect(end.limit).toBeUndefined();
    expect(lastAnswer(events)).toMatchObject({ stopReason: "error", errorMessage: "finishTurn broke" });
  });

  it("L15 R2: limit — the time limit's own abort makes a hook fail (it rejects with the signal's reason): still the limit", () => {
    const events = run([{ content: "never" }], { limits: { timeoutMs: 5 }, transformContext: failsOnAbort((signal) => signal.reason) });
    const end = agentEnd(events);
    expect(end.outcome).toBe("limit");
    expect(end.limit?.limit).toBe("timeoutMs");
    expect(lastAnswer(events).stopReason).toBe("aborted");
  });

  it("L15 A6: failed — after an abort, a hook fails with an error of its own (a TypeError): the answer is aborted, as in pi; the outcome is failed", () => {
    const events = run([{ content: "never" }], { transformContext: failsOnAbort(() => new TypeError("Cannot read properties of undefined (reading 'foo')")) }, { abortAt: 2 });
    expect(agentEnd(events).outcome).toBe("failed");
    expect(lastAnswer(events)).toMatchObject({ stopReason: "aborted", errorMessage: "Cannot read properties of undefined (reading 'foo')" });
  });

  it("L15 A6: aborted — the user aborts with a reason of their own (an Error), and a hook rejects with that reason: still the abort", () => {
    const reason = new Error("the user left");
    const events = run([{ content: "never" }], { transformContext: failsOnAbort((signal) => signal.reason) }, { abortAt: 2, abortReason: reason });
    expect(agentEnd(events).outcome).toBe("aborted");
    expect(lastAnswer(events)).toMatchObject({ stopReason: "aborted", errorMessage: "the user left" });
  });

  it("L15 A6: failed — after an abort with a reason of the user's own, a hook fails with another plain Error: the failure", () => {
    const events = run([{ content: "never" }], { transformContext: failsOnAbort(() => new Error("the user left")) }, { abortAt: 2, abortReason: new Error("the user left") });
    expect(agentEnd(events).outcome).toBe("failed");
  });

  it("L15 A6: aborted — after an abort, a hook fails with a TimeoutError of its own (AbortSignal.timeout inside it): still the abort", () => {
    const events = run([{ content: "never" }], { transformContext: failsOnAbort(() => new DOMException("The operation timed out.", "TimeoutError")) }, { abortAt: 2 });
    expect(agentEnd(events).outcome).toBe("aborted");
  });

  it("L15 A6: failed — after an abort, a hook fails with an error whose name is neither AbortError nor TimeoutError (or has none): the failure", () => {
    const named = run([{ content: "never" }], { transformContext: failsOnAbort(() => Object.assign(new Error("gone"), { name: "NetworkError" })) }, { abortAt: 2 });
    expect(agentEnd(named).outcome).toBe("failed");
    const nameless = run([{ content: "never" }], { transformContext: failsOnAbort(() => null) }, { abortAt: 2 });
    expect(agentEnd(nameless).outcome).toBe("failed");
  });

  it("L15 A6: aborted — after an abort, a hook fails with an AbortError of its own (not the signal's reason, as a wrapped fetch does): still the abort", () => {
    const events = run([{ content: "never" }], { transformContext: failsOnAbort(() => new DOMException("The operation was aborted.", "AbortError")) }, { abortAt: 2 });
    expect(agentEnd(events).outcome).toBe("aborted");
    expect(lastAnswer(events).stopReason).toBe("aborted");
  });
});
