/**
 * The loop's contract (SPEC L1, L2, L3, L6, L8, L10, L11, L12, M1, M2, L4b): entry points,
 * events, the order of phases in a turn, stop conditions, finishTurn, aborts, the waiting emit,
 * virtual time, and what convertToLlm / transformContext may and may not change.
 */
import { finalize, lastValueFrom, map, Observable, of, timer, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { agentLoop, agentLoopContinue, runAgentLoop } from "../../src/loop/agent-loop.js";
import type {
  AgentEvent,
  AgentLoopConfig,
  AgentMessage,
  AgentToolResult,
  AssistantMessage,
  LlmContext,
  Message,
  StreamFn,
  StreamOptions,
  ToolResultMessage,
} from "../../src/index.js";
import { isLlmMessage } from "../../src/model/llm-context.js";
import { fauxProvider, fauxToolCall, type FauxScriptEntry } from "../../src/testing/index.js";
import { agentEnd, assistantMessage, collectSync, committed, contextWith, model, protocolEvents, roles, textOf, textResult, tool, types, user } from "../helpers/fixtures.js";
import { labelsByFrame, newScheduler } from "../helpers/marbles.js";

const echo = tool("echo", (_id, params) => textResult(JSON.stringify(params)));

function runSync(script: FauxScriptEntry[], config: Partial<AgentLoopConfig> = {}, prompts: AgentMessage[] = [user("go")]) {
  const provider = fauxProvider(script);
  const events = collectSync(agentLoop(prompts, contextWith([echo]), { model, ...config }, undefined, provider));
  return { events, provider };
}

// An app message type, added by declaration merging as users do (SPEC M2): no cast needed below.
// The name is unique to this file: augmentations are program-wide (examples declare their own).
declare module "../../src/model/types.js" {
  interface CustomAgentMessages {
    loopTestNotice: { role: "loop-test-notice"; text: string; timestamp: number };
  }
}

/** A notice: an app message that is not a model message (SPEC M2). */
function notice(text: string): AgentMessage {
  return { role: "loop-test-notice", text, timestamp: 0 };
}

describe("L1: entry points", () => {
  it("L1: agentLoop is cold — nothing runs until subscribed, and each subscription is one run", () => {
    const provider = fauxProvider([{ content: "one" }, { content: "two" }]);
    const context = { messages: [user("earlier")] };
    const run$ = agentLoop([user("now")], context, { model }, undefined, provider);
    expect(provider.requests).toHaveLength(0);
    const first = collectSync(run$);
    const second = collectSync(run$);
    expect(provider.requests).toHaveLength(2);
    expect(agentEnd(first).messages.map(textOf)).toEqual(["now", "one"]);
    expect(agentEnd(second).messages.map(textOf)).toEqual(["now", "two"]);
    // both runs started from the same transcript, which the loop never mutates
    expect(provider.requests[1]!.messages.map(textOf)).toEqual(["earlier", "now"]);
    expect(context.messages).toHaveLength(1);
  });

  it("L1: agentLoopContinue throws at call time for an empty context", () => {
    expect(() => agentLoopContinue({ messages: [] }, { model }, undefined, fauxProvider([]))).toThrow("Cannot continue: no messages in context");
  });

  it("L1: agentLoopContinue throws at call time for an assistant tail", () => {
    expect(() => agentLoopContinue({ messages: [user("hi"), assistantMessage("hello")] }, { model }, undefined, fauxProvider([]))).toThrow(
      "Cannot continue from message role: assistant",
    );
  });

  it("L1: agentLoopContinue continues from a user or toolResult tail without adding a message", () => {
    const provider = fauxProvider([{ content: "again" }, { content: "after tool" }]);
    const fromUser = collectSync(agentLoopContinue({ messages: [user("retry me")] }, { model }, undefined, provider));
    expect(types(fromUser).slice(0, 3)).toEqual(["agent_start", "turn_start", "message_start"]);
    expect(agentEnd(fromUser).messages.map(textOf)).toEqual(["again"]);
    const toolTail: ToolResultMessage = { role: "toolResult", toolCallId: "x", toolName: "echo", content: [{ type: "text", text: "42" }], isError: false, timestamp: 0 };
    const fromTool = collectSync(agentLoopContinue({ messages: [user("q"), assistantMessage([fauxToolCall("echo", {}, "x")], "toolUse"), toolTail] }, { model }, undefined, provider));
    expect(roles(agentEnd(fromTool).messages)).toEqual(["assistant"]);
    expect(roles(provider.requests[1]!.messages)).toEqual(["user", "assistant", "toolResult"]);
  });

  it("L1: a missing stream function is a clear error at call time", () => {
    expect(() => agentLoop([user("hi")], { messages: [] }, { model })).toThrow(/needs a stream function/);
  });
});

describe("L2: events", () => {
  it("L2: a tool turn emits the full lifecycle; message_update only for the assistant; turn_end carries the message and its results", () => {
    const { events } = runSync([{ content: [fauxToolCall("echo", { a: 1 }, "c1")] }, { content: "done" }]);
    const updates = events.filter((e) => e.type === "message_update");
    expect(updates.length).toBeGreaterThan(0);
    expect(updates.every((e) => (e as { message: { role: string } }).message.role === "assistant")).toBe(true);
    expect(types(events).filter((t) => t !== "message_update")).toEqual([
      "agent_start",
      "turn_start",
      "message_start",
      "message_end",
      "message_start",
      "message_end",
      "tool_execution_start",
      "tool_execution_end",
      "message_start",
      "message_end",
      "turn_end",
      "turn_start",
      "message_start",
      "message_end",
      "turn_end",
      "agent_end",
    ]);
    const turnEnds = events.filter((e): e is Extract<AgentEvent, { type: "turn_end" }> => e.type === "turn_end");
    expect((turnEnds[0]!.message as AssistantMessage).stopReason).toBe("toolUse");
    expect(turnEnds[0]!.toolResults.map((r) => r.toolCallId)).toEqual(["c1"]);
    expect(turnEnds[1]!.toolResults).toEqual([]);
    expect(types(events).filter((t) => t === "agent_start" || t === "agent_end")).toEqual(["agent_start", "agent_end"]);
  });

  it("L2: agent_end.messages is only what this run added — in commit order, the same objects as message_end", () => {
    const provider = fauxProvider([{ content: [fauxToolCall("echo", {}, "c1")] }, { content: "done" }]);
    const history = [user("old question"), assistantMessage("old answer")];
    const events = collectSync(agentLoop([user("new question")], contextWith([echo], history), { model }, undefined, provider));
    const end = agentEnd(events);
    expect(roles(end.messages)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(end.messages).toEqual(committed(events));
    end.messages.forEach((m, i) => expect(m).toBe(committed(events)[i]));
  });

  it("L2: a throwing hook never errors the Observable: the run ends with an error assistant message, turn_end and agent_end", () => {
    for (const config of [
      { prepareRequest: () => { throw new Error("hook broke"); } },
      { transformContext: () => { throw new Error("hook broke"); } },
      { convertToLlm: () => { throw new Error("hook broke"); } },
      { getApiKey: () => { throw new Error("hook broke"); } },
      { finishTurn: () => { throw new Error("hook broke"); } },
      { getSteeringMessages: () => { throw new Error("hook broke"); } },
    ] as Partial<AgentLoopConfig>[]) {
      const { events } = runSync([{ content: "hi" }, { content: "hi" }], config);
      expect(types(events).slice(-3)).toEqual(["message_end", "turn_end", "agent_end"]);
      const last = agentEnd(events).messages.at(-1) as AssistantMessage;
      expect(last).toMatchObject({ role: "assistant", stopReason: "error", errorMessage: "hook broke" });
    }
  });

  it("L2: a hook that fails during a tool batch leaves no tool call without a result", () => {
    const t = tool("t", () => textResult("fine"));
    const provider = fauxProvider([{ content: [fauxToolCall("t", {}, "1"), fauxToolCall("t", {}, "2")] }, { content: "never" }]);
    // the emit throws at the first tool_execution_end (a listener failing mid-batch)
    const emit = (event: AgentEvent) => {
      if (event.type === "tool_execution_end") throw new Error("listener failed");
    };
    const events = collectSync(runAgentLoop({ prompts: [user("go")], context: contextWith([t]), config: { model }, streamFn: provider, emit }));
    const messages = agentEnd(events).messages;
    const results = messages.filter((m): m is ToolResultMessage => (m as { role: string }).role === "toolResult");
    expect(results.map((r) => r.toolCallId).sort()).toEqual(["1", "2"]);
    expect(messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "error", errorMessage: "listener failed" });
  });
});

describe("L3: the order of a turn", () => {
  it("L3: pending messages → prepareRequest → transformContext → convertToLlm → getApiKey → provider → tools → finishTurn → turn_end, then prepareNextTurn → steering → turn_start", () => {
    const log: string[] = [];
    const steering = [[], [user("steer")], []];
    const streamFn = fauxProvider([{ content: [fauxToolCall("echo", {}, "c1")] }, { content: "done" }]);
    const provider: StreamFn = (m, c, o) => {
      log.push("provider");
      return streamFn(m, c, o);
    };
    const config: AgentLoopConfig = {
      model,
      getSteeringMessages: () => (log.push("steering"), steering.shift() ?? []),
      getFollowUpMessages: () => (log.push("followUp"), []),
      prepareRequest: () => void log.push("prepareRequest"),
      transformContext: (messages) => (log.push("transformContext"), messages),
      convertToLlm: (messages) => (log.push("convertToLlm"), messages as Message[]),
      getApiKey: () => (log.push("getApiKey"), undefined),
      beforeToolCall: () => void log.push("beforeToolCall"),
      afterToolCall: () => void log.push("afterToolCall"),
      finishTurn: () => (log.push("finishTurn"), undefined),
      prepareNextTurn: () => (log.push("prepareNextTurn"), { messages: [user("prepared")] }),
    };
    const events: AgentEvent[] = [];
    runAgentLoop({ prompts: [user("go")], context: contextWith([echo]), config, streamFn: provider, emit: (e) => void (e.type !== "message_update" && log.push(`${e.type}${e.type === "message_end" ? `:${textOf(e.message) || (e.message as { role: string }).role}` : ""}`)) }).subscribe((e) => events.push(e));
    expect(log.filter((l) => !l.startsWith("message_start"))).toEqual([
      "agent_start",
      "turn_start",
      "message_end:go",
      "steering",
      "prepareRequest",
      "transformContext",
      "convertToLlm",
      "getApiKey",
      "provider",
      "message_end:assistant",
      "tool_execution_start",
      "beforeToolCall",
      "afterToolCall",
      "tool_execution_end",
      "message_end:{}",
      "finishTurn",
      "turn_end",
      "steering",
      "prepareNextTurn",
      // steering already delivered a message, so it is not polled again (SPEC L7)
      "turn_start",
      // prepared messages come before the queued ones
      "message_end:prepared",
      "message_end:steer",
      "prepareRequest",
      "transformContext",
      "convertToLlm",
      "getApiKey",
      "provider",
      "message_end:done",
      "finishTurn",
      "turn_end",
      "steering",
      "followUp",
      "agent_end",
    ]);
  });

  it("L3: prepareNextTurn and prepareRequest may replace the model, the thinking level and the context for later requests", () => {
    const seen: Array<{ model: string; reasoning: unknown; messages: number }> = [];
    const faux = fauxProvider([{ content: [fauxToolCall("echo", {}, "c1")] }, { content: "two" }, { content: "three" }]);
    const streamFn: StreamFn = (m, c, o) => (seen.push({ model: m.id, reasoning: o.reasoning, messages: c.messages.length }), faux(m, c, o));
    const other = { ...model, id: "other-model" };
    let turn = 0;
    collectSync(
      agentLoop([user("go")], contextWith([echo]), {
        model,
        reasoning: "low",
        prepareNextTurn: () => ({ model: other, thinkingLevel: "off" }),
        prepareRequest: ({ context }) => (++turn === 3 ? { thinkingLevel: "high", context: { ...context, messages: context.messages.slice(-1) } } : undefined),
        finishTurn: () => (turn === 2 ? { action: "continue" } : undefined),
      }, undefined, streamFn),
    );
    expect(seen).toEqual([
      { model: "faux-1", reasoning: "low", messages: 2 },
      { model: "other-model", reasoning: undefined, messages: 4 },
      { model: "other-model", reasoning: "high", messages: 1 },
    ]);
  });

  it("L3: prepareRequest sees the pending messages already appended, with the model and thinking level", () => {
    const seen: unknown[] = [];
    runSync([{ content: "hi" }], { reasoning: "medium", prepareRequest: ({ context, model: m, thinkingLevel }) => void seen.push({ last: textOf(context.messages.at(-1)), model: m.id, thinkingLevel }) });
    expect(seen).toEqual([{ last: "go", model: "faux-1", thinkingLevel: "medium" }]);
  });
});

describe("L6: stop conditions", () => {
  it("L6: no tool calls and no queued input ends the run after one request", () => {
    const { provider, events } = runSync([{ content: "hi" }, { content: "never" }], { getSteeringMessages: () => [], getFollowUpMessages: () => [] });
    expect(provider.requests).toHaveLength(1);
    expect(types(events).at(-1)).toBe("agent_end");
  });

  for (const stopReason of ["error", "aborted"] as const) {
    it(`L6: an ${stopReason} assistant message is a hard exit — finishTurn runs but 'continue' is ignored, queues are not polled`, () => {
      const turns: string[] = [];
      let polled = 0;
      const { provider, events } = runSync([{ content: [fauxToolCall("echo", {}, "c1")], stopReason }, { content: "never" }], {
        finishTurn: ({ message, toolResults }) => {
          turns.push(`${(message as AssistantMessage).stopReason}:${toolResults.length}`);
          return { action: "continue" };
        },
        getFollowUpMessages: () => (polled++, [user("follow")]),
      });
      expect(turns).toEqual([`${stopReason}:0`]);
      expect(provider.requests).toHaveLength(1);
      expect(polled).toBe(0);
      // its tool calls do not run
      expect(types(events)).not.toContain("tool_execution_start");
      expect(types(events).slice(-3)).toEqual(["message_end", "turn_end", "agent_end"]);
    });
  }

  it("L6: finishTurn returning 'end' ends the run even after tool results; queues are not polled", () => {
    let polled = 0;
    const { provider, events } = runSync([{ content: [fauxToolCall("echo", {}, "c1")] }, { content: "never" }], {
      finishTurn: () => ({ action: "end" }),
      getSteeringMessages: () => (polled++, []),
      getFollowUpMessages: () => (polled++, [user("x")]),
    });
    expect(provider.requests).toHaveLength(1);
    expect(polled).toBe(1); // only the poll at run start
    expect(types(events).slice(-4)).toEqual(["message_start", "message_end", "turn_end", "agent_end"]);
    expect(roles(agentEnd(events).messages)).toEqual(["user", "assistant", "toolResult"]);
  });

  it("L6: when every tool result has terminate, the run stops — unless a queue has input (queues are still polled)", () => {
    const stopper = tool("stop", () => textResult("stopping", { terminate: true }));
    const script: FauxScriptEntry[] = [{ content: [fauxToolCall("stop", {}, "1"), fauxToolCall("stop", {}, "2")] }, { content: "after" }];
    const plain = collectSync(agentLoop([user("go")], contextWith([stopper]), { model }, undefined, fauxProvider(script)));
    expect(roles(agentEnd(plain).messages)).toEqual(["user", "assistant", "toolResult", "toolResult"]);

    const polls: string[] = [];
    const steered = fauxProvider(script);
    const steering = [[], [user("more")]];
    const withSteering = collectSync(
      agentLoop([user("go")], contextWith([stopper]), { model, getSteeringMessages: () => (polls.push("steering"), steering.shift() ?? []), getFollowUpMessages: () => (polls.push("followUp"), []) }, undefined, steered),
    );
    expect(steered.requests).toHaveLength(2);
    expect(agentEnd(withSteering).messages.map(textOf).slice(-2)).toEqual(["more", "after"]);

    const followed = fauxProvider(script);
    const followUps = [[user("then this")]];
    const withFollowUp = collectSync(agentLoop([user("go")], contextWith([stopper]), { model, getFollowUpMessages: () => followUps.shift() ?? [] }, undefined, followed));
    expect(followed.requests).toHaveLength(2);
    expect(agentEnd(withFollowUp).messages.map(textOf).slice(-2)).toEqual(["then this", "after"]);
  });

  it("L6: terminate from only some results does not stop the run", () => {
    const stopper = tool("stop", () => textResult("stopping", { terminate: true }));
    const provider = fauxProvider([{ content: [fauxToolCall("stop", {}, "1"), fauxToolCall("echo", {}, "2")] }, { content: "after" }]);
    collectSync(agentLoop([user("go")], contextWith([stopper, echo]), { model }, undefined, provider));
    expect(provider.requests).toHaveLength(2);
  });

  it("L6: a beforeToolCall block with terminate on every call stops the run; afterToolCall can set terminate too", () => {
    const blocked = runSync([{ content: [fauxToolCall("echo", {}, "1")] }, { content: "never" }], { beforeToolCall: () => ({ block: true, reason: "done here", terminate: true }) });
    expect(blocked.provider.requests).toHaveLength(1);
    const after = runSync([{ content: [fauxToolCall("echo", {}, "1")] }, { content: "never" }], { afterToolCall: () => ({ terminate: true }) });
    expect(after.provider.requests).toHaveLength(1);
  });

  it("L6 L10: a graceful abort while streaming ends the run with the aborted message; the provider received the signal", () => {
    const controller = new AbortController();
    let signal: AbortSignal | undefined;
    const streamFn: StreamFn = (_m, _c, options) => {
      signal = options.signal;
      return timer(1_000_000).pipe(map(() => ({ type: "done", reason: "stop", message: assistantMessage("late") }) as const));
    };
    const events: AgentEvent[] = [];
    let completed = false;
    agentLoop([user("go")], { messages: [] }, { model }, controller.signal, streamFn).subscribe({ next: (e) => events.push(e), complete: () => (completed = true) });
    expect(signal?.aborted).toBe(false);
    controller.abort();
    expect(signal?.aborted).toBe(true);
    expect(completed).toBe(true);
    expect(agentEnd(events).messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted", errorMessage: "Request was aborted" });
  });

  it("L10: a signal aborted before the run starts ends it with an aborted message without calling the provider", () => {
    const controller = new AbortController();
    controller.abort();
    const provider = fauxProvider([{ content: "never" }]);
    const events = collectSync(agentLoop([user("go")], { messages: [] }, { model }, controller.signal, provider));
    expect(provider.requests).toHaveLength(0);
    expect(roles(agentEnd(events).messages)).toEqual(["user", "assistant"]);
    expect(agentEnd(events).messages[1]).toMatchObject({ stopReason: "aborted" });
  });
});

describe("deliberate differences from pi-agent-core (docs/coming-from-pi.md)", () => {
  it("L1: agentLoopContinue leaves the caller's context.messages untouched; the run's messages are in agent_end", () => {
    const context = contextWith([echo], [user("go")]);
    const before = context.messages.slice();
    const provider = fauxProvider([{ content: [fauxToolCall("echo", { a: 1 }, "c1")] }, { content: "done" }]);
    const events = collectSync(agentLoopContinue(context, { model }, undefined, provider));
    expect(context.messages).toEqual(before);
    expect(context.messages).toHaveLength(before.length);
    expect(roles(agentEnd(events).messages)).toEqual(["assistant", "toolResult", "assistant"]);
  });

  it("L10: an abort during a tool batch makes no further provider request", () => {
    const controller = new AbortController();
    const slow = tool("slow", () => new Observable<AgentToolResult>(() => undefined));
    const provider = fauxProvider([{ content: [fauxToolCall("slow", {}, "c1")] }, { content: "never" }]);
    const events: AgentEvent[] = [];
    agentLoop([user("go")], contextWith([slow]), { model }, controller.signal, provider).subscribe((event) => {
      events.push(event);
      if (event.type === "tool_execution_start") controller.abort();
    });
    expect(provider.requests).toHaveLength(1);
    expect(agentEnd(events).messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });
  });

  it("T1 A6: tools a hook swaps in mid-run get the same checks: two of one name end the run with that error", () => {
    const provider = fauxProvider([{ content: [fauxToolCall("echo", {}, "c1")] }, { content: "never" }]);
    let requests = 0;
    const events = collectSync(
      agentLoop([user("go")], contextWith([echo]), {
        model,
        prepareRequest: ({ context }) => (++requests === 2 ? { context: { ...context, tools: [echo, echo] } } : undefined),
      }, undefined, provider),
    );
    expect(provider.requests).toHaveLength(1);
    const last = agentEnd(events).messages.at(-1) as { stopReason?: string; errorMessage?: string };
    expect(last).toMatchObject({ stopReason: "error" });
    expect(last.errorMessage).toMatch(/Two tools are named "echo"/);
  });

  it("T1: two tools with one name, or an invalid schema, are errors at agentLoop(...) call time", () => {
    const provider = fauxProvider([{ content: "never" }]);
    expect(() => agentLoop([user("go")], contextWith([echo, echo]), { model }, undefined, provider)).toThrow('Two tools are named "echo"');
    const broken = tool("broken", () => textResult("x"), { type: "object", properties: { n: { type: "nubmer" } } });
    expect(() => agentLoop([user("go")], contextWith([broken]), { model }, undefined, provider)).toThrow(/Tool "broken" has an invalid parameters schema \(interpreting\)/);
    expect(provider.requests).toHaveLength(0);
  });
});

describe("L8: finishTurn 'continue' guarantees exactly one more request", () => {
  it("L8: after a plain reply, 'continue' adds exactly one context-only request", () => {
    const { provider, events } = runSync([{ content: "first" }, { content: "second" }, { content: "never" }], {
      finishTurn: ({ message }) => (textOf(message) === "first" ? { action: "continue" } : undefined),
    });
    expect(provider.requests).toHaveLength(2);
    // the second request is the same transcript plus the first answer: no message was added
    expect(provider.requests[1]!.messages.map(textOf)).toEqual(["You are a test agent.", "go", "first"]);
    expect(types(events).filter((t) => t === "turn_start")).toHaveLength(2);
  });

  it("L8: tool results already cause the next request; 'continue' adds none", () => {
    const { provider } = runSync([{ content: [fauxToolCall("echo", {}, "c1")] }, { content: "second" }, { content: "never" }], {
      finishTurn: ({ toolResults }) => (toolResults.length > 0 ? { action: "continue" } : undefined),
    });
    expect(provider.requests).toHaveLength(2);
  });

  it("L8: steering already causes the next request; 'continue' adds none", () => {
    const steering = [[], [user("steer")]];
    const { provider } = runSync([{ content: "first" }, { content: "second" }, { content: "never" }], {
      getSteeringMessages: () => steering.shift() ?? [],
      finishTurn: ({ message }) => (textOf(message) === "first" ? { action: "continue" } : undefined),
    });
    expect(provider.requests).toHaveLength(2);
    expect(provider.requests[1]!.messages.map(textOf).at(-1)).toBe("steer");
  });

  it("L8: follow-up already causes the next request; 'continue' adds none", () => {
    const followUps = [[user("follow")]];
    const { provider } = runSync([{ content: "first" }, { content: "second" }, { content: "never" }], {
      getFollowUpMessages: () => followUps.shift() ?? [],
      finishTurn: ({ message }) => (textOf(message) === "first" ? { action: "continue" } : undefined),
    });
    expect(provider.requests).toHaveLength(2);
    expect(provider.requests[1]!.messages.map(textOf).at(-1)).toBe("follow");
  });

  it("L8: 'continue' after a terminate-only batch adds exactly one request", () => {
    const stopper = tool("stop", () => textResult("stopping", { terminate: true }));
    const provider = fauxProvider([{ content: [fauxToolCall("stop", {}, "1")] }, { content: "one more" }, { content: "never" }]);
    collectSync(agentLoop([user("go")], contextWith([stopper]), { model, finishTurn: ({ toolResults }) => (toolResults.length > 0 ? { action: "continue" } : undefined) }, undefined, provider));
    expect(provider.requests).toHaveLength(2);
  });

  it("L8: finishTurn sees the turn's message, results and the run's new messages", () => {
    const seen: unknown[] = [];
    runSync([{ content: [fauxToolCall("echo", {}, "c1")] }, { content: "done" }], {
      finishTurn: ({ message, toolResults, newMessages, context }) => void seen.push([textOf(message) || "tools", toolResults.length, roles(newMessages), context.messages.length]),
    });
    expect(seen).toEqual([
      ["tools", 1, ["user", "assistant", "toolResult"], 4],
      ["done", 0, ["user", "assistant", "toolResult", "assistant"], 5],
    ]);
  });
});

describe("L11: the waiting emit", () => {
  it("L11: an emit returning a promise holds the next event until it settles", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const seen: string[] = [];
    const run$ = runAgentLoop({ prompts: [user("go")], context: { messages: [] }, config: { model }, streamFn: fauxProvider([{ content: "hi" }]), emit: (e) => (e.type === "agent_start" ? gate : undefined) });
    const done = lastValueFrom(run$.pipe(map((e) => (seen.push(e.type), e)), toArray()));
    await Promise.resolve();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(seen).toEqual(["agent_start"]);
    release();
    const events = await done;
    expect(types(events).at(-1)).toBe("agent_end");
  });

  it("L11: without emit the loop does not wait for subscribers (observational); a void emit changes nothing", () => {
    const plain = collectSync(agentLoop([user("go")], { messages: [] }, { model }, undefined, fauxProvider([{ content: "hi" }])));
    const emitted: string[] = [];
    const withEmit = collectSync(runAgentLoop({ prompts: [user("go")], context: { messages: [] }, config: { model }, streamFn: fauxProvider([{ content: "hi" }]), emit: (e) => void emitted.push(e.type) }));
    expect(types(withEmit)).toEqual(types(plain));
    expect(emitted).toEqual(types(plain));
  });
});

describe("L12: no microtask of the loop's own", () => {
  it("L12: with plain-value hooks, tools and provider the whole run (two turns, every hook) completes synchronously", () => {
    const followUps = [[user("more")]];
    const { events } = runSync([{ content: [fauxToolCall("echo", {}, "c1")] }, { content: "two" }, { content: "three" }], {
      getSteeringMessages: () => [],
      getFollowUpMessages: () => followUps.shift() ?? [],
      prepareRequest: () => undefined,
      transformContext: (m) => m,
      convertToLlm: (m) => m as Message[],
      getApiKey: () => "k",
      beforeToolCall: () => undefined,
      afterToolCall: () => undefined,
      finishTurn: () => undefined,
      prepareNextTurn: () => undefined,
    });
    expect(agentEnd(events).messages.map(textOf).slice(-2)).toEqual(["more", "three"]);
  });

  it("L12: promises are accepted wherever Pi accepts them (every hook async)", async () => {
    const followUps = [[user("more")]];
    const provider = fauxProvider([{ content: [fauxToolCall("echo", {}, "c1")] }, { content: "two" }, { content: "three" }]);
    const config: AgentLoopConfig = {
      model,
      getSteeringMessages: async () => [],
      getFollowUpMessages: async () => followUps.shift() ?? [],
      prepareRequest: async () => undefined,
      transformContext: async (m) => m,
      convertToLlm: async (m) => m as Message[],
      getApiKey: async () => "k",
      beforeToolCall: async () => undefined,
      afterToolCall: async () => ({ details: { audited: true } }),
      finishTurn: async () => undefined,
      prepareNextTurn: async () => undefined,
    };
    const asyncEcho = tool("echo", async () => textResult("async echo"));
    const events = await lastValueFrom(agentLoop([user("go")], contextWith([asyncEcho]), config, undefined, async (m, c, o) => provider(m, c, o) as never).pipe(toArray()));
    expect(agentEnd(events).messages.map(textOf)).toEqual(["go", "", "async echo", "two", "more", "three"]);
    expect(provider.requests.map((r) => r.options.apiKey)).toEqual(["k", "k", "k"]);
  });

  it("L12: hooks returning Observables on the TestScheduler run in virtual time, frame-exact, with no real promise", () => {
    const scheduler = newScheduler();
    let completed = false;
    scheduler.run(({ expectObservable }) => {
      const later = <T>(frames: number, value: T) => timer(frames).pipe(map(() => value));
      const provider = fauxProvider([{ content: [fauxToolCall("echo", {}, "c1")] }, { content: "two" }]);
      const config: AgentLoopConfig = {
        model,
        scheduler,
        getSteeringMessages: () => later(1, []), //                 +1 at start, +1 after each turn
        prepareRequest: () => later(2, undefined), //               +2 per request
        transformContext: (m) => later(3, m), //                     +3 per request
        beforeToolCall: () => later(4, undefined), //                +4 per call
        afterToolCall: () => later(5, undefined), //                 +5 per call
        finishTurn: () => later(6, undefined), //                    +6 per turn
      };
      const run$ = agentLoop([user("go")], contextWith([echo]), config, undefined, provider);
      //  0 prompt; 1 steering; 3 prepareRequest; 6 transform → assistant streamed, tool starts;
      //  10 before; 15 after → end + result; 21 finishTurn → turn_end; 22 steering (after the turn);
      //  23 steering again (after prepareNextTurn, nothing pending) → turn_start; 25 prepareRequest;
      //  28 transform → assistant; 34 finishTurn → turn_end; 35 steering → agent_end
      const observed = run$.pipe(finalize(() => (completed = true)));
      expectObservable(observed.pipe(labelsByFrame(scheduler, { updates: false }))).toBe("a 5ms b 8ms c 5ms d 1ms e 4ms f 5ms g (h|)", {
        a: ["agent_start", "turn_start", "message_start:user", "message_end:user"],
        b: ["message_start:assistant", "message_end:assistant", "tool_execution_start:c1"],
        c: ["tool_execution_end:c1", "message_start:toolResult:c1", "message_end:toolResult:c1"],
        d: ["turn_end"],
        e: ["turn_start"],
        f: ["message_start:assistant", "message_end:assistant"],
        g: ["turn_end"],
        h: ["agent_end"],
      });
    });
    // finished inside run(): nothing was left for a microtask
    expect(completed).toBe(true);
  });
});

describe("M2: convertToLlm and transformContext shape the request, never the transcript", () => {
  it("M2: transformContext and convertToLlm change what the model is sent; the transcript and agent_end keep the app messages", () => {
    const requests: Message[][] = [];
    const faux = fauxProvider([{ content: "ok" }]);
    const streamFn: StreamFn = (m, c, o) => (requests.push(c.messages.slice()), faux(m, c, o));
    const transformed: AgentMessage[][] = [];
    const history = [user("old 1"), notice("build passed"), user("old 2")];
    const events = collectSync(
      agentLoop([notice("deploy started"), user("go")], { messages: history }, {
        model,
        transformContext: (messages) => {
          transformed.push(messages.slice());
          return messages.filter((m) => textOf(m) !== "old 1");
        },
        convertToLlm: (messages) => messages.flatMap((m) => (m.role === "loop-test-notice" ? [user(`[notice] ${m.text}`)] : isLlmMessage(m) ? [m] : [])),
      }, undefined, streamFn),
    );
    expect(requests[0]!.map(textOf)).toEqual(["[notice] build passed", "old 2", "[notice] deploy started", "go"]);
    expect(transformed[0]!.map((m) => textOf(m) || (m as unknown as { text: string }).text)).toEqual(["old 1", "build passed", "old 2", "deploy started", "go"]);
    expect(agentEnd(events).messages.map((m) => m.role)).toEqual(["loop-test-notice", "user", "assistant"]);
    expect(history).toHaveLength(3);
  });

  it("M2: the default convertToLlm drops app messages and keeps the four model roles", () => {
    const provider = fauxProvider([{ content: "ok" }]);
    collectSync(agentLoop([notice("n"), user("go")], { messages: [{ role: "system", content: "sys", timestamp: 0 }, notice("old")] }, { model }, undefined, provider));
    expect(roles(provider.requests[0]!.messages)).toEqual(["system", "user"]);
  });

  it("M2: a transformContext that returns something else than an array is a clear failure", () => {
    const { events } = runSync([{ content: "ok" }], { transformContext: () => "nope" as never });
    expect(agentEnd(events).messages.at(-1)).toMatchObject({ stopReason: "error", errorMessage: "transformContext must return an array of messages, got string." });
  });
});

describe("L4b: per-turn cost does not grow with the transcript", () => {
  function recordingStreamFn(script: FauxScriptEntry[]) {
    const faux = fauxProvider(script);
    const contexts: LlmContext[] = [];
    const lengths: number[] = [];
    const streamFn: StreamFn = (m, c, o: StreamOptions) => {
      contexts.push(c);
      lengths.push(c.messages.length);
      return faux(m, c, o);
    };
    return { streamFn, contexts, lengths };
  }

  it("L4b: the default convertToLlm is incremental — one memoized array reused (and grown) across requests", () => {
    const { streamFn, contexts, lengths } = recordingStreamFn([{ content: [fauxToolCall("echo", {}, "1")] }, { content: [fauxToolCall("echo", {}, "2")] }, { content: "done" }]);
    collectSync(agentLoop([notice("app only"), user("go")], contextWith([echo]), { model }, undefined, streamFn));
    expect(lengths).toEqual([2, 4, 6]);
    expect(contexts[1]!.messages).toBe(contexts[0]!.messages);
    expect(contexts[2]!.messages).toBe(contexts[0]!.messages);
    expect(roles(contexts[2]!.messages)).toEqual(["system", "user", "assistant", "toolResult", "assistant", "toolResult"]);
  });

  it("L4b: old messages are not read again by later turns (no replay or filtering of the whole transcript per turn)", () => {
    const reads = (turns: number): number => {
      let count = 0;
      const counted = { content: "go", timestamp: 0 } as Record<string, unknown>;
      Object.defineProperty(counted, "role", { enumerable: true, get: () => (count++, "user") });
      const script: FauxScriptEntry[] = Array.from({ length: turns - 1 }, (_, i) => ({ content: [fauxToolCall("echo", {}, `c${i}`)] }));
      script.push({ content: "done" });
      collectSync(agentLoop([counted as unknown as AgentMessage], contextWith([echo]), { model }, undefined, fauxProvider(script)));
      return count;
    };
    expect(reads(50)).toBe(reads(5));
  });

  it("L4b: a user-supplied convertToLlm is called with the whole context before every request", () => {
    const calls: number[] = [];
    const { streamFn } = recordingStreamFn([{ content: [fauxToolCall("echo", {}, "1")] }, { content: [fauxToolCall("echo", {}, "2")] }, { content: "done" }]);
    collectSync(agentLoop([user("go")], contextWith([echo]), { model, convertToLlm: (messages) => (calls.push(messages.length), messages as Message[]) }, undefined, streamFn));
    expect(calls).toEqual([2, 4, 6]);
  });

  it("L4b: a replaced context (prepareRequest) is converted from scratch", () => {
    const { streamFn, lengths } = recordingStreamFn([{ content: [fauxToolCall("echo", {}, "1")] }, { content: "done" }]);
    let request = 0;
    collectSync(
      agentLoop([user("go")], contextWith([echo]), { model, prepareRequest: ({ context }) => (++request === 2 ? { context: { ...context, messages: context.messages.slice(2) } } : undefined) }, undefined, streamFn),
    );
    expect(lengths).toEqual([2, 2]);
  });
});

describe("M1: message shapes", () => {
  it("M1: tool-result messages carry toolCallId, toolName, content, details, isError, timestamp and durationMs", () => {
    const scheduler = newScheduler();
    const events: AgentEvent[] = [];
    scheduler.run(() => {
      const slow = tool("slow", () => timer(7).pipe(map(() => textResult("ok", { details: { path: "/x" } }))));
      const provider = fauxProvider([{ content: [fauxToolCall("slow", {}, "c1")] }, { content: "done" }]);
      agentLoop([user("go")], contextWith([slow]), { model, scheduler }, undefined, provider).subscribe((e) => events.push(e));
    });
    const result = committed(events).find((m) => (m as { role: string }).role === "toolResult");
    expect(result).toEqual({ role: "toolResult", toolCallId: "c1", toolName: "slow", content: [{ type: "text", text: "ok" }], details: { path: "/x" }, isError: false, timestamp: 7, durationMs: 7 });
  });

  it("M1: a provider's final message is committed as it is (usage, api/provider/model, responseId)", () => {
    const final = assistantMessage("hi", "stop", { responseId: "resp_1", usage: { input: 3, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 8, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.01 } } });
    const events = collectSync(agentLoop([user("go")], { messages: [] }, { model }, undefined, () => of(...protocolEvents(final))));
    expect(agentEnd(events).messages[1]).toBe(final);
  });
});

describe("L10: nothing leaks", () => {
  /** Counts abort listeners added and removed per signal while `body` runs. */
  function listenerBalance(body: () => void): Map<AbortSignal, number> {
    const balance = new Map<AbortSignal, number>();
    const proto = AbortSignal.prototype as unknown as EventTarget;
    const add = proto.addEventListener;
    const remove = proto.removeEventListener;
    const seen = new Map<AbortSignal, Set<unknown>>();
    proto.addEventListener = function (this: AbortSignal, type: string, listener: unknown, options?: unknown) {
      const listeners = seen.get(this) ?? new Set();
      seen.set(this, listeners);
      if (type === "abort" && !listeners.has(listener)) {
        listeners.add(listener);
        balance.set(this, (balance.get(this) ?? 0) + 1);
      }
      return add.call(this, type, listener as EventListener, options as AddEventListenerOptions);
    } as typeof proto.addEventListener;
    proto.removeEventListener = function (this: AbortSignal, type: string, listener: unknown, options?: unknown) {
      if (type === "abort" && seen.get(this)?.delete(listener)) balance.set(this, (balance.get(this) ?? 0) - 1);
      return remove.call(this, type, listener as EventListener, options as EventListenerOptions);
    } as typeof proto.removeEventListener;
    try {
      body();
    } finally {
      proto.addEventListener = add;
      proto.removeEventListener = remove;
    }
    return balance;
  }

  it("L10: after a completed run no abort listener is left on the caller's signal or the run's own", () => {
    const controller = new AbortController();
    const scheduler = newScheduler();
    const balance = listenerBalance(() =>
      scheduler.run(() => {
        const slow = tool("slow", () => timer(3).pipe(map(() => textResult("ok"))));
        const provider = fauxProvider([{ content: [fauxToolCall("slow", {}, "1"), fauxToolCall("echo", {}, "2")] }, { content: [fauxToolCall("slow", {}, "3")] }, { content: "done" }], { scheduler });
        agentLoop([user("go")], contextWith([slow, echo]), { model, scheduler }, controller.signal, provider).subscribe();
      }),
    );
    expect(balance.size).toBeGreaterThan(0);
    for (const [signal, count] of balance) expect({ caller: signal === controller.signal, count }).toEqual({ caller: signal === controller.signal, count: 0 });
  });

  it("L10: after a hard cancel no abort listener is left on the caller's signal", () => {
    const controller = new AbortController();
    const balance = listenerBalance(() => {
      const provider = fauxProvider([{ content: [fauxToolCall("hang", {}, "1")] }]);
      const hang = tool("hang", () => new Observable<AgentToolResult>(() => undefined));
      agentLoop([user("go")], contextWith([hang]), { model }, controller.signal, provider).subscribe().unsubscribe();
    });
    expect(balance.get(controller.signal)).toBe(0);
  });
});

describe("L10 R2 R4 A6: the run's own AbortSignal", () => {
  const signalOf = (provider: ReturnType<typeof fauxProvider>, request = 0): AbortSignal => provider.requests[request]!.options.signal!;

  it("R4: abortGraceMs is checked at call time, by name", () => {
    expect(() => agentLoop([user("go")], contextWith([]), { model, abortGraceMs: -1 }, undefined, fauxProvider([]))).toThrow(
      new TypeError("abortGraceMs must be a positive number of milliseconds up to 2147483647, got -1."),
    );
  });

  it("L10: unsubscribing aborts the signal with an AbortError that says so", () => {
    const provider = fauxProvider([{ content: "never ends", fault: "hang" }]);
    agentLoop([user("go")], contextWith([]), { model }, undefined, provider).subscribe().unsubscribe();
    const reason = signalOf(provider).reason as DOMException;
    expect([reason.name, reason.message]).toEqual(["AbortError", "The run was unsubscribed"]);
  });

  it("L10: an outer signal's abort reaches the run's signal with the outer reason", () => {
    const outer = new AbortController();
    const provider = fauxProvider([{ content: "never ends", fault: "hang" }]);
    const events: AgentEvent[] = [];
    agentLoop([user("go")], contextWith([]), { model }, outer.signal, provider).subscribe((e) => events.push(e));
    const why = new Error("the user pressed stop");
    outer.abort(why);
    expect(signalOf(provider).reason).toBe(why);
    expect((agentEnd(events).messages.at(-1) as AssistantMessage).stopReason).toBe("aborted");
  });

  it("A6 L10: a failure aborts what is still running with the failure as the reason", () => {
    let pendingSignal: AbortSignal | undefined;
    const pending = tool("pending", (_id, _args, signal) => {
      pendingSignal = signal;
      return new Promise<never>(() => undefined);
    });
    const quick = tool("quick", () => textResult("quick"));
    const broke = new Error("listener broke");
    const emit = (event: AgentEvent): void => {
      if (event.type === "tool_execution_end" && event.toolCallId === "q") throw broke;
    };
    const provider = fauxProvider([{ content: [fauxToolCall("pending", {}, "p"), fauxToolCall("quick", {}, "q")] }]);
    const events = collectSync(runAgentLoop({ prompts: [user("go")], context: contextWith([pending, quick]), config: { model }, streamFn: provider, emit }));
    expect(pendingSignal!.aborted).toBe(true);
    expect(pendingSignal!.reason).toBe(broke);
    expect((agentEnd(events).messages.at(-1) as AssistantMessage).errorMessage).toBe("listener broke");
  });

  it("L1 A6: a failure before the prompts were committed commits them, and leaves the caller's array as it was", () => {
    const prompts = [user("first"), user("second")];
    const emit = (event: AgentEvent): void => {
      if (event.type === "agent_start") throw new Error("listener broke");
    };
    const events = collectSync(runAgentLoop({ prompts, context: contextWith([]), config: { model }, streamFn: fauxProvider([]), emit }));
    expect(roles(agentEnd(events).messages)).toEqual(["user", "user", "assistant"]);
    expect(prompts.map(textOf)).toEqual(["first", "second"]);
  });

  it("L1 L11: the prompts are the caller's array as it was at the start, though agent_start's listener settles later", () => {
    const prompts = [user("first")];
    const scheduler = newScheduler();
    let events: AgentEvent[] = [];
    scheduler.run(({ cold, flush }) => {
      const emit = (event: AgentEvent) => (event.type === "agent_start" ? cold("--|") : undefined);
      runAgentLoop({ prompts, context: contextWith([]), config: { model, scheduler }, streamFn: fauxProvider([{ content: "ok" }]), emit })
        .pipe(toArray())
        .subscribe((all) => (events = all));
      // The caller reuses its array while the run waits for the listener.
      prompts.push(user("added later"));
      flush();
    });
    expect(agentEnd(events).messages.map(textOf)).toEqual(["first", "ok"]);
  });

  it("A6 L10: a listener failing on agent_end aborts nothing: the run had ended", () => {
    const provider = fauxProvider([{ content: "done" }]);
    const emit = (event: AgentEvent): void => {
      if (event.type === "agent_end") throw new Error("late listener broke");
    };
    const events = collectSync(runAgentLoop({ prompts: [user("go")], context: contextWith([]), config: { model }, streamFn: provider, emit }));
    expect(types(events).filter((t) => t === "agent_end")).toHaveLength(1);
    expect(signalOf(provider).aborted).toBe(false);
  });

  it("R2: the time limit aborts the signal with a TimeoutError that gives the limit", () => {
    const scheduler = newScheduler();
    scheduler.run(({ flush }) => {
      const provider = fauxProvider([{ content: "a long answer that streams slowly, one delta per frame" }], { scheduler, chunkSize: 2 });
      agentLoop([user("go")], contextWith([]), { model, scheduler, limits: { timeoutMs: 6 } }, undefined, provider).subscribe();
      flush();
      const reason = signalOf(provider).reason as DOMException;
      expect([reason.name, reason.message]).toEqual(["TimeoutError", "The run reached its time limit (6 ms)."]);
    });
  });

  it("R2: a time limit that passes while a listener still waits on agent_end changes nothing", () => {
    const scheduler = newScheduler();
    scheduler.run(({ flush }) => {
      const heard: string[] = [];
      const provider = fauxProvider([{ content: "done" }]);
      const emit = (event: AgentEvent) => (event.type === "agent_end" ? timer(10) : undefined);
      let completedAt = -1;
      runAgentLoop({ prompts: [user("go")], context: contextWith([]), config: { model, scheduler, limits: { timeoutMs: 3 }, onLimitReached: (l) => void heard.push(l.limit) }, streamFn: provider, emit }).subscribe({ complete: () => (completedAt = scheduler.now()) });
      flush();
      expect(completedAt).toBe(10);
      expect(heard).toEqual([]);
      expect(signalOf(provider).aborted).toBe(false);
    });
  });

  it("R2 L10: a time limit that passes after the user aborted is no limit: agent_end says aborted, not timed out", () => {
    const scheduler = newScheduler();
    scheduler.run(({ flush }) => {
      const heard: string[] = [];
      const outer = new AbortController();
      const provider = fauxProvider([{ content: "never" }]);
      // The run waits on the prompt's end for 10 frames; the user aborts at 1, the limit passes at 3.
      const emit = (event: AgentEvent) => (event.type === "message_end" && (event.message as { role: string }).role === "user" ? timer(10) : undefined);
      const events: AgentEvent[] = [];
      scheduler.schedule(() => outer.abort(), 1);
      runAgentLoop({ prompts: [user("go")], context: contextWith([]), config: { model, scheduler, limits: { timeoutMs: 3 }, onLimitReached: (l) => void heard.push(l.limit) }, signal: outer.signal, streamFn: provider, emit }).subscribe((e) => events.push(e));
      flush();
      expect(heard).toEqual([]);
      expect(agentEnd(events).limit).toBeUndefined();
      expect((agentEnd(events).messages.at(-1) as AssistantMessage).stopReason).toBe("aborted");
    });
  });
});

describe("L4: stack-safe with waits that settle at once", () => {
  it("L4, L11: 5 000 prompts with an emit that returns an Observable completing at once: every event, then the end", () => {
    const prompts = Array.from({ length: 5_000 }, (_, i) => user(`m${i}`));
    const events = collectSync(runAgentLoop({ prompts, context: { messages: [] }, config: { model }, streamFn: fauxProvider([{ content: "hi" }]), emit: () => of(undefined) }));
    expect(events.filter((e) => e.type === "message_end")).toHaveLength(5_001);
    expect(events.at(-1)?.type).toBe("agent_end");
  });
});
