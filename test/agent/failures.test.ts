/**
 * Failure normalization (SPEC A6): a hook, `convertToLlm`, `transformContext` or a listener that
 * throws ends the run with an error assistant message, `message_end`, `turn_end`, `agent_end`;
 * the agent returns to idle, committed messages stay, tool calls left without results get error
 * results, and the next prompt works. (Tool hooks are not here: they become tool errors, SPEC T3.)
 */
import { map, throwError, timer } from "rxjs";
import { describe, expect, it } from "vitest";
import type { Agent, AgentOptions } from "../../src/agent/agent.js";
import type { AgentEvent, AgentMessage, AssistantMessage, Message, ToolCall } from "../../src/index.js";
import { fauxProvider, fauxToolCall, type FauxScriptEntry } from "../../src/testing/index.js";
import { agentWith, label, record, roles, textOf, textResult, tool, toolResults } from "./support.js";

const echo = tool("echo", () => textResult("echoed"));

/** Every tool call in `messages` has exactly one result after it. */
function expectEveryCallAnswered(messages: readonly AgentMessage[]): void {
  const calls = messages.flatMap((m) => ((m as Message).role === "assistant" ? (m as AssistantMessage).content.filter((b): b is ToolCall => b.type === "toolCall") : []));
  const results = toolResults(messages);
  for (const call of calls) expect(results.filter((r) => r.toolCallId === call.id), `results of ${call.id}`).toHaveLength(1);
}

/** The run ended with the normalized failure: error assistant, message_end, turn_end, agent_end; idle. */
function expectNormalizedFailure(agent: Agent, events: AgentEvent[], error: RegExp): AssistantMessage {
  const tail = events.slice(-3);
  expect(tail.map((e) => e.type)).toEqual(["message_end", "turn_end", "agent_end"]);
  const failed = (tail[0] as Extract<AgentEvent, { type: "message_end" }>).message as AssistantMessage;
  expect(failed.role).toBe("assistant");
  expect(failed.stopReason).toBe("error");
  expect(failed.errorMessage).toMatch(error);
  expect((tail[1] as Extract<AgentEvent, { type: "turn_end" }>).message).toBe(failed);
  expect(events.filter((e) => e.type === "agent_end")).toHaveLength(1);
  expect(events[0]!.type).toBe("agent_start");
  // every started message ended
  expect(events.filter((e) => e.type === "message_start").length).toBe(events.filter((e) => e.type === "message_end").length);
  expect(agent.state.isStreaming).toBe(false);
  expect(agent.state.streamingMessage).toBeUndefined();
  expect(agent.state.pendingToolCalls.size).toBe(0);
  expect(agent.state.errorMessage).toMatch(error);
  expect(agent.state.messages[agent.state.messages.length - 1]).toBe(failed);
  // the transcript is what the events committed
  const committed = events.flatMap((e) => (e.type === "message_end" ? [e.message] : []));
  expect(agent.state.messages.slice(-committed.length)).toEqual(committed);
  const end = events[events.length - 1] as Extract<AgentEvent, { type: "agent_end" }>;
  expect(end.messages).toEqual(committed);
  expectEveryCallAnswered(agent.state.messages);
  return failed;
}

/** The next prompt runs normally after a failure. */
async function expectNextPromptWorks(agent: Agent, provider: { requests: { messages: Message[] }[] }): Promise<void> {
  const before = agent.state.messages.length;
  await agent.prompt("are you there?");
  expect(agent.state.isStreaming).toBe(false);
  const added = agent.state.messages.slice(before);
  expect(roles(added)).toEqual(["user", "assistant"]);
  expect((added[1] as AssistantMessage).stopReason).toBe("stop");
  expect(textOf(added[1])).toBe("yes");
  expect(agent.state.errorMessage).toBeUndefined();
  // the request was well formed: every tool call it carried had its result
  expectEveryCallAnswered(provider.requests[provider.requests.length - 1]!.messages);
}

function setup(script: FauxScriptEntry[], options: AgentOptions) {
  const provider = fauxProvider([...script, { content: "yes" }]);
  let calls = 0;
  const agent = agentWith({ streamFn: provider, initialState: { tools: [echo] }, ...options });
  const { events } = record(agent);
  return { provider, agent, events, count: () => ++calls };
}

/** Subscribes a listener that fails on the first event matching `when` (rejecting when `async`), then behaves. */
function failOnce(agent: Agent, when: (event: AgentEvent) => boolean, message: string, async: boolean): void {
  let thrown = false;
  agent.subscribe(async ? async (event) => check(event) : check);
  function check(event: AgentEvent): void {
    if (thrown || !when(event)) return;
    thrown = true;
    throw new Error(message);
  }
}

describe("A6: a throwing hook ends the run with the normalized failure", () => {
  it("A6: prepareRequest throws on the first request: the prompt stays, the agent is idle, the next prompt works", async () => {
    let failOnce = true;
    const { agent, events, provider } = setup([], {
      prepareRequest: () => {
        if (failOnce) {
          failOnce = false;
          throw new Error("prepareRequest exploded");
        }
        return undefined;
      },
    });
    await agent.prompt("hi");
    const failed = expectNormalizedFailure(agent, events, /prepareRequest exploded/);
    expect(roles(agent.state.messages)).toEqual(["system", "user", "assistant"]);
    expect(failed.content).toEqual([{ type: "text", text: "" }]);
    expect(provider.requests).toHaveLength(0);
    expect(events.map(label)).toEqual([
      "agent_start",
      "turn_start",
      "message_start:user:hi",
      "message_end:user:hi",
      "message_start:assistant",
      "message_end:assistant",
      "turn_end",
      "agent_end",
    ]);
    await expectNextPromptWorks(agent, provider);
  });

  it("A6: finishTurn throws after a tool batch: the tool results stay committed", async () => {
    let turns = 0;
    const { agent, events, provider } = setup([{ content: [fauxToolCall("echo", {}, "e1")] }], {
      finishTurn: () => {
        if (++turns === 1) throw new Error("finishTurn exploded");
        return undefined;
      },
    });
    await agent.prompt("go");
    expectNormalizedFailure(agent, events, /finishTurn exploded/);
    expect(roles(agent.state.messages)).toEqual(["system", "user", "assistant", "toolResult", "assistant"]);
    expect(textOf(agent.state.messages[3])).toBe("echoed");
    await expectNextPromptWorks(agent, provider);
  });

  it("A6: prepareNextTurn rejects: the finished turn stays", async () => {
    let turns = 0;
    const { agent, events, provider } = setup([{ content: [fauxToolCall("echo", {}, "e1")] }], {
      prepareNextTurn: async () => {
        if (++turns === 1) throw new Error("prepareNextTurn rejected");
        return undefined;
      },
    });
    await agent.prompt("go");
    expectNormalizedFailure(agent, events, /prepareNextTurn rejected/);
    expect(roles(agent.state.messages)).toEqual(["system", "user", "assistant", "toolResult", "assistant"]);
    await expectNextPromptWorks(agent, provider);
  });

  it.each([
    ["convertToLlm throws", { convertToLlm: () => { throw new Error("convert failed"); } }, /convert failed/],
    ["convertToLlm rejects", { convertToLlm: () => Promise.reject(new Error("convert rejected")) }, /convert rejected/],
    ["transformContext throws", { transformContext: () => { throw new Error("transform failed"); } }, /transform failed/],
    ["transformContext errors its Observable", { transformContext: () => throwError(() => new Error("transform errored")) }, /transform errored/],
    ["getApiKey throws", { getApiKey: () => { throw new Error("no key"); } }, /no key/],
    ["getApiKey rejects", { getApiKey: () => Promise.reject(new Error("key expired")) }, /key expired/],
    ["convertToLlm returns a non-array", { convertToLlm: () => "oops" as unknown as Message[] }, /convertToLlm must return an array/],
  ] as [string, AgentOptions, RegExp][])("A6: %s — the run fails cleanly and the agent recovers", async (_name, hooks, error) => {
    const { agent, events, provider } = setup([], hooks);
    await agent.prompt("hi");
    expectNormalizedFailure(agent, events, error);
    expect(provider.requests).toHaveLength(0);
    expect(roles(agent.state.messages)).toEqual(["system", "user", "assistant"]);
    // remove the failing hook, as an app would after fixing it
    for (const key of Object.keys(hooks)) (agent as unknown as Record<string, unknown>)[key] = undefined;
    await expectNextPromptWorks(agent, provider);
  });

  it("A6: a hook that fails on the second request keeps the whole first turn", async () => {
    let requests = 0;
    const { agent, events, provider } = setup([{ content: [fauxToolCall("echo", {}, "e1")] }], {
      transformContext: (messages) => {
        if (++requests === 2) throw new Error("second transform failed");
        return messages;
      },
    });
    await agent.prompt("go");
    expectNormalizedFailure(agent, events, /second transform failed/);
    expect(roles(agent.state.messages)).toEqual(["system", "user", "assistant", "toolResult", "assistant"]);
    await expectNextPromptWorks(agent, provider);
  });
});

describe("A6 T3: tool hooks are not run failures", () => {
  it("T3: beforeToolCall and afterToolCall throwing become error tool results; the run goes on", async () => {
    const provider = fauxProvider([{ content: [fauxToolCall("echo", {}, "b1"), fauxToolCall("echo", {}, "a1")] }, { content: "recovered" }]);
    const agent = agentWith({
      streamFn: provider,
      initialState: { tools: [echo] },
      beforeToolCall: ({ toolCall }) => {
        if (toolCall.id === "b1") throw new Error("before failed");
        return undefined;
      },
      afterToolCall: ({ toolCall }) => {
        if (toolCall.id === "a1") throw new Error("after failed");
        return undefined;
      },
    });
    await agent.prompt("go");
    const results = toolResults(agent.state.messages);
    expect(results.map((r) => [r.toolCallId, r.isError])).toEqual([
      ["b1", true],
      ["a1", true],
    ]);
    expect(textOf(results[0])).toMatch(/before failed/);
    expect(textOf(results[1])).toMatch(/after failed/);
    expect(textOf(agent.state.messages[agent.state.messages.length - 1])).toBe("recovered");
    expect(agent.state.errorMessage).toBeUndefined();
  });
});

describe("A6: a throwing listener ends the run with the normalized failure", () => {
  it("A6: a listener that throws on the assistant message_end: its tool calls get error results", async () => {
    const { agent, events, provider } = setup([{ content: [fauxToolCall("echo", {}, "e1"), fauxToolCall("echo", {}, "e2")] }], {});
    failOnce(agent, (event) => event.type === "message_end" && (event.message as Message).role === "assistant", "listener exploded", false);
    await agent.prompt("go");
    expectNormalizedFailure(agent, events, /listener exploded/);
    expect(roles(agent.state.messages)).toEqual(["system", "user", "assistant", "toolResult", "toolResult", "assistant"]);
    const results = toolResults(agent.state.messages);
    expect(results.map((r) => [r.toolCallId, r.isError])).toEqual([
      ["e1", true],
      ["e2", true],
    ]);
    expect(textOf(results[0])).toMatch(/listener exploded/);
    // the tools never ran
    expect(events.some((e) => e.type === "tool_execution_start")).toBe(false);
    await expectNextPromptWorks(agent, provider);
  });

  it("A6: a listener that rejects while parallel tools run: running calls end with an error result", async () => {
    const slow = tool("slow", () => timer(1000).pipe(map(() => textResult("late"))));
    const provider = fauxProvider([{ content: [fauxToolCall("echo", {}, "e1"), fauxToolCall("slow", {}, "s1")] }, { content: "yes" }]);
    const agent = agentWith({ streamFn: provider, initialState: { tools: [echo, slow] } });
    const { events } = record(agent);
    failOnce(agent, (event) => event.type === "tool_execution_end" && event.toolCallId === "e1", "listener rejected", true);
    await agent.prompt("go");
    expectNormalizedFailure(agent, events, /listener rejected/);
    const results = toolResults(agent.state.messages);
    expect(results.map((r) => r.toolCallId).sort()).toEqual(["e1", "s1"]);
    // every started execution ended
    const started = events.filter((e) => e.type === "tool_execution_start").map((e) => (e as { toolCallId: string }).toolCallId);
    const ended = events.filter((e) => e.type === "tool_execution_end").map((e) => (e as { toolCallId: string }).toolCallId);
    expect(ended.sort()).toEqual(started.sort());
    await expectNextPromptWorks(agent, provider);
  });

  it("A6: a listener that errors its Observable during streaming: the partial content is kept", async () => {
    const provider = fauxProvider([{ content: "a fairly long answer" }, { content: "yes" }], { chunkSize: 4 });
    const agent = agentWith({ streamFn: provider });
    const { events } = record(agent);
    let updates = 0;
    agent.subscribe((event) => (event.type === "message_update" && ++updates === 3 ? throwError(() => new Error("observable listener failed")) : undefined));
    await agent.prompt("hi");
    const failed = expectNormalizedFailure(agent, events, /observable listener failed/);
    expect(textOf(failed).length).toBeGreaterThan(0);
    expect("a fairly long answer".startsWith(textOf(failed))).toBe(true);
    // the partial was started once and ended once
    expect(events.filter((e) => e.type === "message_start" && (e.message as Message).role === "assistant")).toHaveLength(1);
    await expectNextPromptWorks(agent, provider);
  });

  it("A6: a listener that throws on agent_start: the run fails before any request", async () => {
    const { agent, events, provider } = setup([], {});
    failOnce(agent, (event) => event.type === "agent_start", "start listener failed", false);
    await agent.prompt("hi");
    expectNormalizedFailure(agent, events, /start listener failed/);
    expect(provider.requests).toHaveLength(0);
    // (whether the prompt itself is kept is the loop's choice; the transcript matches the events either way)
    expect(roles(agent.state.messages).filter((r) => r !== "user")).toEqual(["system", "assistant"]);
    await expectNextPromptWorks(agent, provider);
  });

  it("A6: a listener that throws on turn_end: the finished turn stays and the failure gets its own turn", async () => {
    const { agent, events, provider } = setup([{ content: "answer" }], {});
    failOnce(agent, (event) => event.type === "turn_end", "turn_end listener failed", false);
    await agent.prompt("hi");
    expectNormalizedFailure(agent, events, /turn_end listener failed/);
    expect(roles(agent.state.messages)).toEqual(["system", "user", "assistant", "assistant"]);
    expect(events.map((e) => e.type).filter((t) => t === "turn_start" || t === "turn_end")).toEqual(["turn_start", "turn_end", "turn_start", "turn_end"]);
    await expectNextPromptWorks(agent, provider);
  });

  it("A6: other listeners still see the failure events when one listener keeps throwing", async () => {
    const { agent, provider } = setup([], {});
    let broken = true;
    agent.subscribe((event) => {
      if (broken && event.type !== "agent_start" && event.type !== "turn_start") throw new Error("always broken");
    });
    const seen: string[] = [];
    agent.subscribe((event) => void seen.push(label(event)));
    const observed: string[] = [];
    const subscription = agent.events$.subscribe((event) => observed.push(label(event)));
    await agent.prompt("hi");
    subscription.unsubscribe();
    // the listener after the broken one sees every event, exactly as events$ does
    expect(seen).toEqual(observed);
    expect(seen).toEqual([
      "agent_start",
      "turn_start",
      "message_start:user:hi",
      "message_end:user:hi",
      "message_start:assistant",
      "message_end:assistant",
      "turn_end",
      "agent_end",
    ]);
    expect(agent.state.errorMessage).toMatch(/always broken/);
    expect(agent.state.isStreaming).toBe(false);
    broken = false;
    await expectNextPromptWorks(agent, provider);
  });
});
