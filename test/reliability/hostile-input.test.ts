/**
 * hostile input: one test per row of the table in docs/reliability.md (H1–H27). Each
 * row's outcome is defined there; every run here also keeps the bracket and message invariants.
 */
import { config, fromEvent, NEVER, Observable, takeUntil } from "rxjs";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { agentLoop, runAgentLoop } from "../../src/loop/agent-loop.js";
import type {
  AgentEvent,
  AgentLoopConfig,
  AgentTool,
  AssistantMessage,
  AssistantMessageEvent,
  Message,
  StreamFn,
  ToolCall,
  ToolResultMessage,
} from "../../src/index.js";
import { fauxProvider, fauxToolCall } from "../../src/testing/index.js";
import { assistantMessage, collectSync, committed, contextWith, model, protocolEvents, textOf, textResult, tool, user } from "../helpers/fixtures.js";
import { checkBrackets, checkMessages } from "./invariants.js";

const SCHEMA = { type: "object", properties: { n: { type: "number" }, note: { type: "string" } }, required: ["n"], additionalProperties: false };

/** A tool that counts its executions and answers "ok". */
function counting(name = "t", parameters: object = SCHEMA, execute?: AgentTool["execute"]) {
  const calls: unknown[] = [];
  const t = tool(name, execute ?? ((_id, params) => (calls.push(params), textResult("ok"))), parameters);
  return { tool: t, calls };
}

/** One run of a synchronous loop; checks the invariants, returns the events. */
function run(streamFn: StreamFn, tools: AgentTool[], config: Partial<AgentLoopConfig> = {}, brackets = true): AgentEvent[] {
  const context = contextWith(tools);
  const events = collectSync(agentLoop([user("go")], context, { model, ...config }, undefined, streamFn));
  if (brackets) expect(checkBrackets(events, true, "run")).toEqual([]);
  expect(checkMessages(events, true, context.messages, "run")).toEqual([]);
  return events;
}

/** A provider that answers one tool-call message, then "done". */
function callsThenDone(calls: ToolCall[]): StreamFn {
  return fauxProvider([{ content: calls }, { content: "done" }]);
}

function results(events: AgentEvent[]): ToolResultMessage[] {
  return committed(events).filter((m): m is ToolResultMessage => (m as Message).role === "toolResult");
}

function lastAssistant(events: AgentEvent[]): AssistantMessage {
  return committed(events).filter((m): m is AssistantMessage => (m as Message).role === "assistant").pop()!;
}

/** A provider that streams exactly `events`. */
const raw =
  (events: unknown[]): StreamFn =>
  () =>
    events as AssistantMessageEvent[];

const call = (args: unknown, id = "a", name = "t"): ToolCall => ({ type: "toolCall", id, name, arguments: args as Record<string, unknown> });

describe("hostile input, one test per row of docs/reliability.md", () => {
  // ── tool arguments ─────────────────────────────────────────────────────────
  it("H1 arguments that are not JSON: isError result naming the parse error (or the non-object received); the tool does not run", () => {
    const { tool: t, calls } = counting();
    const events = run(callsThenDone([{ ...call({}), argumentsError: "Unexpected token } in JSON at position 7" }, call("{n: 1", "b")]), [t]);
    const [a, b] = results(events);
    expect(a!.isError).toBe(true);
    expect(textOf(a)).toContain("Unexpected token");
    expect(b!.isError).toBe(true);
    expect(textOf(b)).toContain("expected a JSON object");
    expect(calls).toEqual([]);
  });

  it("H2 wrong types: isError result listing each failing path and the received arguments; numeric strings are coerced and run", () => {
    const { tool: t, calls } = counting();
    const events = run(callsThenDone([call({ n: "abc", note: { x: 1 } }), call({ n: "2" }, "b")]), [t]);
    const [a, b] = results(events);
    expect(a!.isError).toBe(true);
    expect(textOf(a)).toMatch(/n: must be number/);
    expect(textOf(a)).toMatch(/note: must be string/);
    expect(textOf(a)).toContain("Received arguments");
    expect(b!.isError).toBe(false);
    expect(calls).toEqual([{ n: 2 }]);
  });

  it("H3 missing required fields: isError result `<field>: is required`; the tool does not run", () => {
    const { tool: t, calls } = counting();
    const [a] = results(run(callsThenDone([call({})]), [t]));
    expect(a!.isError).toBe(true);
    expect(textOf(a)).toContain("n: is required");
    expect(calls).toEqual([]);
  });

  it("H4 extra fields: the schema decides — rejected with `is not allowed` under additionalProperties:false, passed through otherwise", () => {
    const strict = counting("strict");
    const open = counting("open", { type: "object", properties: { n: { type: "number" } } });
    const events = run(callsThenDone([call({ n: 1, zzz: true }, "a", "strict"), call({ n: 1, zzz: true }, "b", "open")]), [strict.tool, open.tool]);
    const [a, b] = results(events);
    expect(a!.isError).toBe(true);
    expect(textOf(a)).toContain("zzz: is not allowed");
    expect(b!.isError).toBe(false);
    expect(open.calls).toEqual([{ n: 1, zzz: true }]);
  });

  it("H5 1 MB arguments: validated like any other; valid ones run, an invalid one's error quotes at most ~2 000 characters of them", () => {
    const big = "x".repeat(1024 * 1024);
    const { tool: t, calls } = counting();
    // One delta per block (a scripted provider chunking 1 MB would test itself, not the loop).
    const message = assistantMessage([call({ n: 1, note: big }), call({ n: big }, "b")], "toolUse");
    let requests = 0;
    const events = run(() => (requests++ === 0 ? protocolEvents(message) : protocolEvents(assistantMessage("done"))), [t]);
    const [a, b] = results(events);
    expect(a!.isError).toBe(false);
    expect((calls[0] as { note: string }).note.length).toBe(big.length);
    expect(b!.isError).toBe(true);
    expect(textOf(b).length).toBeLessThan(4000);
    expect(textOf(b)).toMatch(/more characters/);
  });

  it("H25 (SPEC X4, T3) arguments nested 100 000 deep: an argument error with `{}` before anything clones or journals them; the transcript stays serialisable and the next request goes out", () => {
    let deep: unknown = { n: 1 };
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    const { tool: t, calls } = counting("t", { type: "object" });
    const message = assistantMessage([call(deep as Record<string, unknown>), call({ n: 2 }, "b")], "toolUse");
    const sent: Message[][] = [];
    const events = run((_m, context) => {
      sent.push(context.messages);
      return protocolEvents(sent.length === 1 ? message : assistantMessage("done"));
    }, [t]);
    const [a, b] = results(events);
    expect(a!.isError).toBe(true);
    expect(textOf(a)).toBe('Invalid arguments for tool "t": Tool call arguments nest deeper than 64 levels.');
    expect(b!.isError).toBe(false);
    expect(calls).toEqual([{ n: 2 }]);
    const committedCall = committed(events).flatMap((m) => ((m as Message).role === "assistant" ? (m as AssistantMessage).content : [])).find((c) => c.type === "toolCall") as ToolCall;
    expect(committedCall.arguments).toEqual({});
    // The second request carries the whole transcript, and it serialises.
    expect(sent.length).toBe(2);
    expect(() => JSON.stringify(sent[1])).not.toThrow();
    expect(() => structuredClone(committed(events))).not.toThrow();
  });

  it("H26 (SPEC X4, T3) arguments larger than 4 MiB (one 5 MB string, or 100 000 strings of 50 characters): an argument error with `{}`; the tool does not run", () => {
    const wide = Array.from({ length: 100_000 }, () => "y".repeat(50));
    const { tool: t, calls } = counting("t", { type: "object" });
    const message = assistantMessage([call({ note: "x".repeat(5 * 1024 * 1024) }), call({ list: wide }, "b")], "toolUse");
    let requests = 0;
    const events = run(() => protocolEvents(requests++ === 0 ? message : assistantMessage("done")), [t]);
    const [a, b] = results(events);
    expect(textOf(a)).toBe('Invalid arguments for tool "t": Tool call arguments are larger than 4194304 characters.');
    expect(textOf(b)).toBe(textOf(a));
    expect(calls).toEqual([]);
  });

  // ── tools ──────────────────────────────────────────────────────────────────
  it("H6 unknown tool: isError result `Tool \"x\" not found. Available tools: …`", () => {
    const { tool: t } = counting();
    const [a] = results(run(callsThenDone([call({ n: 1 }, "a", "nope")]), [t]));
    expect(a!.isError).toBe(true);
    expect(textOf(a)).toBe('Tool "nope" not found. Available tools: t.');
  });

  it("H7 duplicate tool-call ids in one message: the first runs, each repeat gets its own isError result; one result per call, in order", () => {
    const { tool: t, calls } = counting();
    // Events are keyed by id, so a repeated id cannot be bracketed by id: counted instead.
    const events = run(callsThenDone([call({ n: 1 }), call({ n: 2 }), call({ n: 3 })]), [t], {}, false);
    expect(events.filter((e) => e.type === "tool_execution_start").length).toBe(3);
    expect(events.filter((e) => e.type === "tool_execution_end").length).toBe(3);
    const rs = results(events);
    expect(rs.map((r) => [r.toolCallId, r.isError])).toEqual([
      ["a", false],
      ["a", true],
      ["a", true],
    ]);
    expect(textOf(rs[1])).toContain('Duplicate tool call id "a"');
    expect(calls).toEqual([{ n: 1 }]);
  });

  const badReturns: [string, string, unknown, RegExp][] = [
    ["H8", "returns undefined", undefined, /returned undefined instead of a result object/],
    ["H9", "returns a non-object (42, null, an array)", 42, /returned a number instead of a result object/],
    ["H10", "returns content that is not an array", { content: 7 }, /content is not an array/],
  ];
  for (const [id, what, value, message] of badReturns) {
    it(`${id} a tool that ${what}: isError result saying what it returned`, () => {
      const t = tool("t", () => value as never, SCHEMA);
      const [a] = results(run(callsThenDone([call({ n: 1 })]), [t]));
      expect(a!.isError).toBe(true);
      expect(textOf(a)).toMatch(message);
    });
  }

  it("H9b null and arrays are non-objects too; a string content becomes one text block (not an error)", () => {
    for (const [value, expected] of [
      [null, /returned null/],
      [[textResult("x")], /returned an array/],
    ] as const) {
      const [a] = results(run(callsThenDone([call({ n: 1 })]), [tool("t", () => value as never, SCHEMA)]));
      expect(a!.isError).toBe(true);
      expect(textOf(a)).toMatch(expected);
    }
    const [s] = results(run(callsThenDone([call({ n: 1 })]), [tool("t", () => ({ content: "plain" }) as never, SCHEMA)]));
    expect(s!.isError).toBe(false);
    expect(s!.content).toEqual([{ type: "text", text: "plain" }]);
  });

  it("H11 a tool that throws a string or undefined (sync, rejected, errored Observable): isError result with the string / `undefined was thrown`", () => {
    const throwers: AgentTool[] = [
      tool("s", () => {
        throw "plain string";
      }, SCHEMA),
      tool("u", () => {
        throw undefined;
      }, SCHEMA),
      tool("o", () => new Observable<never>((s) => s.error("observable string")), SCHEMA),
      tool("p", () => ({ then: (_: unknown, reject: (e: unknown) => void) => reject(undefined) }) as never, SCHEMA),
    ];
    const rs = results(run(callsThenDone([call({ n: 1 }, "1", "s"), call({ n: 1 }, "2", "u"), call({ n: 1 }, "3", "o"), call({ n: 1 }, "4", "p")]), throwers));
    expect(rs.map((r) => [r.isError, textOf(r)])).toEqual([
      [true, "plain string"],
      [true, "undefined was thrown"],
      [true, "observable string"],
      [true, "undefined was thrown"],
    ]);
  });

  // ── hooks and listeners ────────────────────────────────────────────────────
  it("H12 beforeToolCall / afterToolCall throwing: that call gets an isError result (`beforeToolCall failed: …`), the run goes on", () => {
    const { tool: t, calls } = counting();
    const boom = (): never => {
      throw new Error("boom");
    };
    const before = run(callsThenDone([call({ n: 1 })]), [t], { beforeToolCall: boom });
    expect(textOf(results(before)[0])).toBe("beforeToolCall failed: boom");
    expect(calls).toEqual([]);
    const after = run(callsThenDone([call({ n: 1 })]), [t], { afterToolCall: boom });
    expect(textOf(results(after)[0])).toBe("afterToolCall failed: boom");
    expect(calls).toEqual([{ n: 1 }]);
    for (const events of [before, after]) expect(lastAssistant(events).stopReason).toBe("stop");
  });

  const loopHooks: (keyof AgentLoopConfig)[] = ["prepareRequest", "transformContext", "convertToLlm", "getApiKey", "prepareNextTurn", "finishTurn", "getSteeringMessages", "getFollowUpMessages"];
  it(`H13 every loop hook throwing (${loopHooks.join(", ")}): normalized failure — error assistant message naming the error, turn_end, agent_end; tool calls answered`, () => {
    for (const hook of loopHooks) {
      const { tool: t } = counting();
      const config = { [hook]: () => { throw new Error(`${hook} exploded`); } } as Partial<AgentLoopConfig>;
      const events = run(callsThenDone([call({ n: 1 })]), [t], config);
      const last = lastAssistant(events);
      expect(last.stopReason, hook).toBe("error");
      expect(last.errorMessage, hook).toBe(`${hook} exploded`);
      expect(events.slice(-2).map((e) => e.type)).toEqual(["turn_end", "agent_end"]);
    }
  });

  it("H14 convertToLlm (or transformContext, or a queue poll) returning a non-array: normalized failure `… must return an array of messages`", () => {
    const cases: [Partial<AgentLoopConfig>, RegExp][] = [
      [{ convertToLlm: () => ({ messages: [] }) as never }, /convertToLlm must return an array of messages, got object/],
      [{ convertToLlm: () => undefined as never }, /convertToLlm must return an array of messages, got undefined/],
      [{ transformContext: () => "nope" as never }, /transformContext must return an array of messages, got string/],
      [{ getSteeringMessages: () => 3 as never }, /getSteeringMessages must return an array of messages, got number/],
    ];
    for (const [config, message] of cases) {
      const events = run(fauxProvider([{ content: "hi" }]), [], config);
      expect(lastAssistant(events).stopReason).toBe("error");
      expect(lastAssistant(events).errorMessage).toMatch(message);
    }
  });

  it("H15 a throwing emit (runAgentLoop) or Agent listener: the event still reaches the subscriber, then the normalized failure; on agent_end only state.errorMessage records it", () => {
    const seen: AgentEvent[] = [];
    const emit = (event: AgentEvent): void => {
      if (event.type === "tool_execution_start") throw new Error("listener broke");
    };
    const { tool: t } = counting();
    runAgentLoop({ prompts: [user("go")], context: contextWith([t]), config: { model }, streamFn: callsThenDone([call({ n: 1 })]), emit }).subscribe((e) => seen.push(e));
    expect(checkBrackets(seen, true, "emit")).toEqual([]);
    expect(seen.some((e) => e.type === "tool_execution_start")).toBe(true);
    const rs = results(seen);
    expect(rs.map((r) => [r.toolCallId, r.isError])).toEqual([["a", true]]);
    expect(lastAssistant(seen).errorMessage).toBe("listener broke");

    const agent = new Agent({ initialState: { model }, streamFn: fauxProvider([{ content: "hi" }, { content: "again" }]) });
    const off = agent.subscribe((event) => {
      if (event.type === "agent_end") throw new Error("late listener");
    });
    agent.prompt$("go").subscribe();
    expect(agent.state.isStreaming).toBe(false);
    expect(agent.state.errorMessage).toBe("A listener failed on agent_end: late listener");
    expect((agent.state.messages[agent.state.messages.length - 1] as AssistantMessage).stopReason).toBe("stop");
    off();
  });

  // ── the provider ───────────────────────────────────────────────────────────
  it("H16 provider events out of protocol order (a delta before start, a second start, done/error without a message): error message `Provider protocol violation …`", () => {
    const final = assistantMessage("hi");
    const [start, ...rest] = protocolEvents(final);
    const cases: [unknown[], RegExp][] = [
      [rest, /"text_start" arrived before "start"/],
      [[start, start, ...rest], /a second "start" event arrived/],
      [[start, { type: "done", reason: "stop" }], /"done" carried no assistant message/],
      [[start, { type: "error", reason: "error" }], /error without a final message/],
      [[{ type: "start" }], /"start" carried no assistant message/],
    ];
    for (const [events, message] of cases) {
      const last = lastAssistant(run(raw(events), []));
      expect(last.stopReason).toBe("error");
      expect(last.errorMessage).toMatch(message);
    }
  });

  it("H17 unknown provider event types: ignored, the response completes normally", () => {
    const final = assistantMessage("hi");
    const events = protocolEvents(final);
    const noisy = [events[0], { type: "ping" }, ...events.slice(1, -1), { type: "vendor_extension", data: 1 }, events[events.length - 1]];
    const last = lastAssistant(run(raw(noisy), []));
    expect(last.stopReason).toBe("stop");
    expect(textOf(last)).toBe("hi");
  });

  it("H18 a provider that never finishes: the run waits until aborted, then ends with an aborted assistant message keeping the partial content", () => {
    const controller = new AbortController();
    const seen: AgentEvent[] = [];
    const provider = fauxProvider([{ content: "partial answer", fault: "hang" }]);
    let done = false;
    agentLoop([user("go")], contextWith([]), { model }, controller.signal, provider).subscribe({ next: (e) => seen.push(e), complete: () => (done = true) });
    expect(done).toBe(false);
    controller.abort();
    expect(done).toBe(true);
    expect(checkBrackets(seen, true, "hang")).toEqual([]);
    const last = lastAssistant(seen);
    expect(last.stopReason).toBe("aborted");
    expect(textOf(last)).toBe("partial answer");
  });

  it("H27 (SPEC X5) a provider whose error text quotes the key it was given or a bearer token: the committed answer and the Agent's errorMessage have them redacted, whichever provider made it", async () => {
    const key = "my-server-side-key-123";
    const echo: StreamFn = (_m, _c, options) => {
      throw new Error(`upstream said: key ${options?.apiKey} is wrong (Authorization: Bearer abc.def)`);
    };
    const events = run(echo, [], { getApiKey: () => key });
    expect(lastAssistant(events).errorMessage).toBe("upstream said: key [redacted] is wrong (Authorization: Bearer [redacted])");
    const agent = new Agent({ initialState: { model }, streamFn: echo, getApiKey: () => key });
    await agent.prompt("go");
    expect(agent.state.errorMessage).not.toContain(key);
    expect(JSON.stringify(agent.state.messages)).not.toContain(key);
  });

  it("H19 a provider that throws, rejects, errors the stream or completes without done: one error message with a clear errorMessage; the run ends normally", () => {
    const cases: [StreamFn, RegExp][] = [
      [fauxProvider([{ content: "x", fault: "throw" }]), /fauxProvider: scripted throw/],
      [() => ({ then: (_: unknown, reject: (e: unknown) => void) => reject(new Error("no route")) }) as never, /no route/],
      [fauxProvider([{ content: "x", fault: "error" }]), /fauxProvider: scripted stream error/],
      [fauxProvider([{ content: "x", fault: "incomplete" }]), /ended without a final "done" or "error" event/],
    ];
    for (const [streamFn, message] of cases) {
      const last = lastAssistant(run(streamFn, []));
      expect(last.stopReason).toBe("error");
      expect(last.errorMessage).toMatch(message);
    }
  });

  it("H20 a stream function that returns something that is not a stream (a number, null): error message saying what it returned", () => {
    for (const [value, what] of [
      [42, "a number"],
      [null, "null"],
    ] as const) {
      const last = lastAssistant(run(() => value as never, []));
      expect(last.stopReason).toBe("error");
      expect(last.errorMessage).toContain(`returned ${what}`);
    }
  });

  it("H21 a provider that ignores the abort signal: the run still ends at the abort with an aborted message; late provider events are dropped", () => {
    const controller = new AbortController();
    let push: ((e: AssistantMessageEvent) => void) | undefined;
    let unsubscribed = false;
    const stubborn: StreamFn = () =>
      new Observable<AssistantMessageEvent>((s) => {
        push = (e) => s.next(e);
        s.next(protocolEvents(assistantMessage("x"))[0]!);
        return () => (unsubscribed = true);
      });
    const seen: AgentEvent[] = [];
    agentLoop([user("go")], contextWith([]), { model }, controller.signal, stubborn).subscribe((e) => seen.push(e));
    controller.abort();
    expect(unsubscribed).toBe(true);
    const count = seen.length;
    push!({ type: "done", reason: "stop", message: assistantMessage("too late") });
    expect(seen.length).toBe(count);
    expect(lastAssistant(seen).stopReason).toBe("aborted");
    expect(checkBrackets(seen, true, "stubborn")).toEqual([]);
  });

  it("H22 a tool that ignores the abort signal: its late result is dropped, the call is answered `Operation aborted` at the abort (Observable tools are unsubscribed)", () => {
    const controller = new AbortController();
    let finishLate: (() => void) | undefined;
    let unsubscribed = false;
    const late = tool("late", () => ({ then: (resolve: (v: unknown) => void) => (finishLate = () => resolve(textResult("late"))) }) as never, SCHEMA);
    const obs = tool("obs", () => new Observable<never>(() => () => (unsubscribed = true)), SCHEMA);
    const seen: AgentEvent[] = [];
    let done = false;
    agentLoop([user("go")], contextWith([late, obs]), { model }, controller.signal, callsThenDone([call({ n: 1 }, "a", "late"), call({ n: 1 }, "b", "obs")])).subscribe({
      next: (e) => seen.push(e),
      complete: () => (done = true),
    });
    expect(done).toBe(false);
    controller.abort();
    expect(unsubscribed).toBe(true);
    // The promise tool never settles by itself here: the loop waits for it (it was handed the signal).
    finishLate!();
    expect(done).toBe(true);
    const rs = results(seen);
    expect(rs.map((r) => r.toolCallId)).toEqual(["a", "b"]);
    expect(textOf(rs[1])).toBe("Operation aborted");
    expect(lastAssistant(seen).stopReason).toBe("aborted");
    expect(checkBrackets(seen, true, "late")).toEqual([]);
  });
  it("H24 a subscriber whose next throws: rxjs reports the error (config.onUnhandledError, asynchronously by default); the run goes on and ends", async () => {
    const reported: unknown[] = [];
    const previous = config.onUnhandledError;
    config.onUnhandledError = (error) => reported.push(error);
    try {
      const seen: AgentEvent[] = [];
      let done = false;
      const { tool: t, calls } = counting();
      agentLoop([user("go")], contextWith([t]), { model }, undefined, callsThenDone([call({ n: 1 })])).subscribe({
        next: (e) => {
          seen.push(e);
          if (e.type === "message_update") throw new Error("render failed");
        },
        complete: () => (done = true),
      });
      expect(done).toBe(true);
      expect(checkBrackets(seen, true, "throwing subscriber")).toEqual([]);
      expect(calls).toEqual([{ n: 1 }]);
      // Reported on a later macrotask, once per throwing call.
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(reported.length).toBe(seen.filter((e) => e.type === "message_update").length);
      expect((reported[0] as Error).message).toBe("render failed");
    } finally {
      config.onUnhandledError = previous;
    }
  });

  it("H23 a listener that never settles: the run waits for it (the barrier, SPEC A5) even after abort(); a listener that honours its signal lets the run end", () => {
    const stuck = new Agent({ initialState: { model }, streamFn: fauxProvider([{ content: "hi" }]) });
    stuck.subscribe((event) => (event.type === "message_end" ? NEVER : undefined));
    stuck.prompt$("go").subscribe();
    expect(stuck.state.isStreaming).toBe(true);
    stuck.abort();
    expect(stuck.state.isStreaming).toBe(true);

    const polite = new Agent({ initialState: { model }, streamFn: fauxProvider([{ content: "hi" }]) });
    polite.subscribe((event, signal) => (event.type === "message_end" && !signal.aborted ? NEVER.pipe(takeUntil(fromEvent(signal, "abort"))) : undefined));
    let done = false;
    polite.prompt$("go").subscribe({ complete: () => (done = true) });
    expect(done).toBe(false);
    polite.abort();
    expect(done).toBe(true);
    expect(polite.state.isStreaming).toBe(false);
  });
});

void fauxToolCall;
