/**
 * What one run owns (src/loop/run.ts): the transcript hooks may replace (I2), what `prepareRequest`
 * may change (L3, T1, R6), the usage it counts (R5), `agent_end`'s optional fields (R2, R4, Q3),
 * and the state of a resumed turn (S5, A6).
 */
import { describe, expect, it } from "vitest";
import { agentLoop, runAgentLoop } from "../../src/loop/agent-loop.js";
import type { AgentEvent, AgentLoopConfig, AgentMessage, AgentTool, ArgumentValidator, AssistantMessage, ToolResultMessage } from "../../src/index.js";
import { fauxProvider, fauxToolCall } from "../../src/testing/index.js";
import { agentEnd, assistantMessage, collectSync, committed, contextWith, model, roles, textOf, textResult, tool, user } from "../helpers/fixtures.js";

const echo = tool("echo", (id) => textResult(`ran ${id}`));

function toolResult(toolCallId: string, text: string): ToolResultMessage {
  return { role: "toolResult", toolCallId, toolName: "echo", content: [{ type: "text", text }], isError: false, timestamp: 0 };
}

function lastOf(events: readonly AgentEvent[]): AssistantMessage {
  return agentEnd(events).messages.at(-1) as AssistantMessage;
}

describe("S5: which calls of a resumed turn are answered", () => {
  it("S5: a result of an earlier turn whose call had the same id answers nothing here", () => {
    // Some providers number calls per response: `call_0` again in the next turn.
    const ran: string[] = [];
    const recording = tool("echo", (id) => (ran.push(id), textResult("again")));
    const first = assistantMessage([fauxToolCall("echo", {}, "call_0")], "toolUse");
    const second = assistantMessage([fauxToolCall("echo", {}, "call_0")], "toolUse");
    const context = contextWith([recording], [user("go"), first, toolResult("call_0", "first time"), second]);
    const events = collectSync(runAgentLoop({ context, config: { model }, streamFn: fauxProvider([{ content: "done" }]), resume: { message: second, settled: new Map() } }));
    expect(ran).toEqual(["call_0"]);
    const end = events.find((e): e is Extract<AgentEvent, { type: "turn_end" }> => e.type === "turn_end")!;
    expect(end.toolResults.map(textOf)).toEqual(["again"]);
  });

  it("S5: only a tool result answers a call: an app message naming the call's id does not", () => {
    const ran: string[] = [];
    const recording = tool("echo", (id) => (ran.push(id), textResult("ran")));
    const message = assistantMessage([fauxToolCall("echo", {}, "c1")], "toolUse");
    const note = { role: "note", toolCallId: "c1", text: "the user looked at it" } as unknown as AgentMessage;
    const context = contextWith([recording], [user("go"), message, note]);
    collectSync(runAgentLoop({ context, config: { model }, streamFn: fauxProvider([{ content: "done" }]), resume: { message, settled: new Map() } }));
    expect(ran).toEqual(["c1"]);
  });

  it("S5 A6: a resumed run that fails before its calls ran closes exactly the open ones", () => {
    const message = assistantMessage([fauxToolCall("echo", {}, "c1"), fauxToolCall("echo", {}, "c2")], "toolUse");
    const context = contextWith([echo], [user("go"), message, toolResult("c1", "c1 before the stop")]);
    const emit = (event: AgentEvent): void => {
      if (event.type === "agent_start") throw new Error("listener broke");
    };
    const events = collectSync(runAgentLoop({ context, config: { model }, streamFn: fauxProvider([]), emit, resume: { message, settled: new Map() } }));
    const results = agentEnd(events).messages.filter((m): m is ToolResultMessage => (m as ToolResultMessage).role === "toolResult");
    expect(results.map((m) => [m.toolCallId, m.isError])).toEqual([["c2", true]]);
    // Nothing else was waiting: the run committed the open call's result and its failure, no more.
    expect(roles(agentEnd(events).messages)).toEqual(["toolResult", "assistant"]);
    expect(textOf(results[0])).toBe("Tool call not completed: the run failed (listener broke).");
    expect(lastOf(events).errorMessage).toBe("listener broke");
  });
});

describe("I2: a transcript a hook put in place", () => {
  it("I2: prepareRequest assigning context.messages: the request and the rest of the run use the new array", () => {
    const provider = fauxProvider([{ content: [fauxToolCall("echo", {}, "c1")] }, { content: "done" }]);
    let replaced: AgentMessage[] | undefined;
    const events = collectSync(
      agentLoop([user("go")], contextWith([echo]), {
        model,
        prepareRequest: ({ context }) => {
          if (replaced) return undefined;
          replaced = [context.messages[0]!, user("instead")];
          context.messages = replaced;
          return undefined;
        },
      }, undefined, provider),
    );
    expect(provider.requests[0]!.messages.map(textOf).slice(-1)).toEqual(["instead"]);
    // The second request sees the replaced transcript with this turn's messages appended to it.
    expect(roles(provider.requests[1]!.messages).slice(-3)).toEqual(["user", "assistant", "toolResult"]);
    expect(textOf(provider.requests[1]!.messages.at(-3))).toBe("instead");
    expect(roles(replaced!)).toEqual(["system", "user", "assistant", "toolResult", "assistant"]);
    expect(textOf(lastOf(events))).toBe("done");
  });
});

describe("L2: what the run added", () => {
  it("L2: agent_end.messages is exactly what this run committed, nothing from the transcript before it", () => {
    const before = [user("earlier"), assistantMessage("earlier answer")];
    const events = collectSync(agentLoop([user("go")], contextWith([echo], before), { model }, undefined, fauxProvider([{ content: [fauxToolCall("echo", {}, "c1")] }, { content: "done" }])));
    expect(agentEnd(events).messages).toEqual(committed(events));
    expect(roles(agentEnd(events).messages)).toEqual(["user", "assistant", "toolResult", "assistant"]);
  });
});

describe("R5: the run's usage", () => {
  it("R5: agent_end.usage adds up the assistant messages only, not a tool result's own usage", () => {
    const usage = { input: 1000, output: 1000, cacheRead: 0, cacheWrite: 0, totalTokens: 2000, cost: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, total: 2 } };
    const metered = tool("echo", () => textResult("sub-agent answer", { usage }));
    const provider = fauxProvider([{ content: [fauxToolCall("echo", {}, "c1")], usage: { input: 3, output: 4 } }, { content: "done", usage: { input: 5, output: 6 } }]);
    const events = collectSync(agentLoop([user("go")], contextWith([metered]), { model }, undefined, provider));
    const result = committed(events).find((m): m is ToolResultMessage => (m as ToolResultMessage).role === "toolResult")!;
    expect(result.usage).toEqual(usage);
    expect(agentEnd(events).usage).toMatchObject({ input: 8, output: 10 });
  });
});

describe("L3 T1 R6: what prepareRequest may replace", () => {
  function countingValidator(): { validator: ArgumentValidator; compiled: string[] } {
    const compiled: string[] = [];
    return { compiled, validator: { name: "counting", compile: (_schema, name) => (compiled.push(name ?? "?"), () => undefined) } };
  }

  it("T1: a context with the same tools is not checked again; new tools are", () => {
    const { validator, compiled } = countingValidator();
    const other = tool("other", () => textResult("other"));
    const provider = fauxProvider([{ content: [fauxToolCall("echo", {}, "c1")] }, { content: [fauxToolCall("echo", {}, "c2")] }, { content: "done" }]);
    let requests = 0;
    collectSync(
      agentLoop([user("go")], contextWith([echo]), {
        model,
        validator,
        prepareRequest: ({ context }) => {
          compiled.push("(prepareRequest)");
          return ++requests === 3 ? { context: { ...context, tools: [echo, other] } } : { context: { ...context } };
        },
        transformContext: (messages) => (compiled.push("(transformContext)"), messages),
      }, undefined, provider),
    );
    // What the update of each request compiled: between the hook and the next phase.
    const joined = compiled.join(" ");
    const updates = [...joined.matchAll(/\(prepareRequest\) ?(.*?) ?\(transformContext\)/g)].map((m) => m[1]);
    expect(updates.slice(0, 2)).toEqual(["", ""]);
    expect(updates[2]).toContain("other");
  });

  it("R6: with run control, new tools that ask for approval or a lane are welcome", () => {
    const careful: AgentTool = tool("careful", () => textResult("done carefully"), { type: "object" }, { needsApproval: true, concurrencyKey: () => "disk" });
    const provider = fauxProvider([{ content: [fauxToolCall("careful", {}, "c1")] }, { content: "done" }]);
    const events = collectSync(
      agentLoop([user("go")], contextWith([echo]), {
        model,
        requestApproval: () => ({ approved: true }),
        prepareRequest: ({ context }) => ({ context: { ...context, tools: [echo, careful] } }),
      }, undefined, provider),
    );
    expect(textOf(committed(events).find((m) => (m as ToolResultMessage).role === "toolResult"))).toBe("done carefully");
    expect(lastOf(events).stopReason).toBe("stop");
  });

  it("L3: a new model keeps the thinking level; a thinking level alone keeps the model", () => {
    const other = { ...model, id: "faux-2" };
    const provider = fauxProvider([{ content: [fauxToolCall("echo", {}, "c1")] }, { content: [fauxToolCall("echo", {}, "c2")] }, { content: "done" }]);
    const seen: string[] = [];
    let requests = 0;
    collectSync(
      agentLoop([user("go")], contextWith([echo]), {
        model,
        reasoning: "high",
        prepareRequest: ({ model: current, thinkingLevel }) => {
          seen.push(`${current.id}/${thinkingLevel}`);
          requests++;
          return requests === 1 ? { model: other } : requests === 2 ? { thinkingLevel: "off" } : undefined;
        },
      }, undefined, provider),
    );
    expect(seen).toEqual(["faux-1/high", "faux-2/high", "faux-2/off"]);
    expect(provider.requests.map((r) => [r.model.id, r.options.reasoning])).toEqual([
      ["faux-2", "high"],
      ["faux-2", undefined],
      ["faux-2", undefined],
    ]);
  });

  it("L3: a context alone leaves the config as it was given: hooks it inherits still run on every request", () => {
    const transformed: number[] = [];
    const hooks: Partial<AgentLoopConfig> = {
      prepareRequest: ({ context }) => ({ context: { ...context } }),
      transformContext: (messages) => (transformed.push(messages.length), messages),
    };
    const config = Object.assign(Object.create(hooks) as AgentLoopConfig, { model });
    const provider = fauxProvider([{ content: [fauxToolCall("echo", {}, "c1")] }, { content: "done" }]);
    collectSync(agentLoop([user("go")], contextWith([echo]), config, undefined, provider));
    expect(provider.requests).toHaveLength(2);
    expect(transformed).toEqual([2, 4]);
  });

  it("L3: without reasoning the thinking level a hook sees is off", () => {
    const seen: string[] = [];
    collectSync(agentLoop([user("go")], contextWith([]), { model, prepareRequest: ({ thinkingLevel }) => void seen.push(thinkingLevel) }, undefined, fauxProvider([{ content: "hi" }])));
    expect(seen).toEqual(["off"]);
  });
});

describe("R2 R4 Q3: agent_end's optional fields", () => {
  it("R2 R4 Q3: a run with no limit, no cancellation and nothing untaken has none of those keys", () => {
    const events = collectSync(agentLoop([user("go")], contextWith([echo]), { model, limits: { maxTurns: 5 } }, undefined, fauxProvider([{ content: [fauxToolCall("echo", {}, "c1")] }, { content: "done" }])));
    expect(Object.keys(agentEnd(events)).sort()).toEqual(["messages", "outcome", "type", "usage"]);
  });

  it("R2: hasQueuedMessages saying yes makes a reached request limit end the run as a limit", () => {
    const heard: string[] = [];
    const config = { model, limits: { maxTurns: 1 }, onLimitReached: (limit: { limit: string }) => void heard.push(limit.limit) };
    const queued = collectSync(agentLoop([user("go")], contextWith([]), { ...config, hasQueuedMessages: () => true }, undefined, fauxProvider([{ content: "first" }])));
    expect(agentEnd(queued).limit).toMatchObject({ limit: "maxTurns", value: 1, used: 1 });
    expect(heard).toEqual(["maxTurns"]);
    const empty = collectSync(agentLoop([user("go")], contextWith([]), { ...config, hasQueuedMessages: () => false }, undefined, fauxProvider([{ content: "first" }])));
    expect(agentEnd(empty).limit).toBeUndefined();
  });
});

describe("L7 A6: the follow-up queue's callback", () => {
  it("A6: getFollowUpMessages giving no array fails the run, naming it", () => {
    const events = collectSync(agentLoop([user("go")], contextWith([]), { model, getFollowUpMessages: () => "later" as unknown as AgentMessage[] }, undefined, fauxProvider([{ content: "hi" }])));
    expect(lastOf(events).errorMessage).toContain("getFollowUpMessages must return an array of messages, got string.");
  });
});
