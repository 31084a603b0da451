/**
 * The Agent's construction, state and commands (SPEC A1, A2).
 */
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { AgentMessage, AgentTool, ImageContent, Message, SystemMessage, ToolResultMessage, UserMessage } from "../../src/index.js";
import { fauxProvider, fauxToolCall } from "../../src/testing/index.js";
import { agentWith, model, roles, textOf, textResult, tool, user, userTexts } from "./support.js";

const echo: AgentTool = tool("echo", (_id, params) => textResult(JSON.stringify(params)));

/** A promise and its resolver, to hold a run open. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe("A1: new Agent(options)", () => {
  it("A1: defaults — unknown model, thinking off, empty transcript, idle, one-at-a-time queues, parallel tools", () => {
    const agent = new Agent();
    expect(agent.state.model).toMatchObject({ id: "unknown", api: "unknown", provider: "unknown" });
    expect(agent.state.thinkingLevel).toBe("off");
    expect(agent.state.messages).toEqual([]);
    expect(agent.state.tools).toEqual([]);
    expect(agent.state.systemPrompt).toBe("");
    expect(agent.state.isStreaming).toBe(false);
    expect(agent.state.streamingMessage).toBeUndefined();
    expect([...agent.state.pendingToolCalls]).toEqual([]);
    expect(agent.state.errorMessage).toBeUndefined();
    expect(agent.steeringMode).toBe("one-at-a-time");
    expect(agent.followUpMode).toBe("one-at-a-time");
    expect(agent.toolExecution).toBe("parallel");
    expect(agent.signal).toBeUndefined();
  });

  it("A1: takes Pi's option names and hands each one to the run", async () => {
    const provider = fauxProvider([{ content: [fauxToolCall("echo", { x: 1 }, "t1")] }, { content: "done" }]);
    const calls: string[] = [];
    const agent = new Agent({
      initialState: { systemPrompt: "Be brief.", model, thinkingLevel: "high", tools: [echo], messages: [] },
      streamFn: provider,
      convertToLlm: (messages) => (calls.push("convertToLlm"), messages as Message[]),
      transformContext: (messages) => (calls.push("transformContext"), messages),
      getApiKey: (name) => (calls.push(`getApiKey:${name}`), "key-1"),
      steeringMode: "all",
      followUpMode: "all",
      toolExecution: "sequential",
      beforeToolCall: () => (calls.push("beforeToolCall"), undefined),
      afterToolCall: () => (calls.push("afterToolCall"), undefined),
      prepareRequest: () => (calls.push("prepareRequest"), undefined),
      prepareNextTurn: () => (calls.push("prepareNextTurn"), undefined),
      finishTurn: () => (calls.push("finishTurn"), undefined),
      sessionId: "session-7",
      thinkingBudgets: { high: 4096 },
    });
    expect(agent.steeringMode).toBe("all");
    expect(agent.followUpMode).toBe("all");
    expect(agent.toolExecution).toBe("sequential");
    expect(agent.sessionId).toBe("session-7");
    expect(agent.thinkingBudgets).toEqual({ high: 4096 });
    expect(agent.streamFn).toBe(provider);

    await agent.prompt("hi");

    expect(calls).toEqual([
      "prepareRequest",
      "transformContext",
      "convertToLlm",
      "getApiKey:faux",
      "beforeToolCall",
      "afterToolCall",
      "finishTurn",
      "prepareNextTurn",
      "prepareRequest",
      "transformContext",
      "convertToLlm",
      "getApiKey:faux",
      "finishTurn",
    ]);
    const options = provider.requests[0]!.options;
    expect(options).toMatchObject({ apiKey: "key-1", reasoning: "high", sessionId: "session-7", thinkingBudgets: { high: 4096 } });
    expect(options.signal).toBeInstanceOf(AbortSignal);
    expect(provider.requests[0]!.model).toBe(model);
  });

  it("A1: hooks and settings are assignable after construction and apply to the next run", async () => {
    const provider = fauxProvider([{ content: "one" }, { content: "two" }]);
    const agent = agentWith({ streamFn: provider });
    await agent.prompt("first");
    expect(provider.requests[0]!.options.sessionId).toBeUndefined();
    const seen: string[] = [];
    agent.sessionId = "s2";
    agent.prepareRequest = () => (seen.push("prepareRequest"), undefined);
    agent.state.thinkingLevel = "low";
    await agent.prompt("second");
    expect(seen).toEqual(["prepareRequest"]);
    expect(provider.requests[1]!.options).toMatchObject({ sessionId: "s2", reasoning: "low" });
  });

  it("A1: the system prompt and tools become the leading system message", () => {
    const agent = agentWith({ initialState: { systemPrompt: "You are terse.", tools: [echo], messages: [user("earlier")] } });
    const [system, first] = agent.state.messages as [SystemMessage, UserMessage];
    expect(roles(agent.state.messages)).toEqual(["system", "user"]);
    expect(system.content).toBe("You are terse.");
    expect(system.toolsAdded?.map((t) => t.name)).toEqual(["echo"]);
    // a declaration, not the executable tool
    expect(system.toolsAdded?.[0]).not.toHaveProperty("execute");
    expect(textOf(first)).toBe("earlier");
    expect(agent.state.systemPrompt).toBe("You are terse.");
    expect(agent.state.tools).toEqual([echo]);
  });

  it("A1: tools alone still make a leading system message; neither prompt nor tools leaves the transcript empty", () => {
    expect(roles(agentWith({ initialState: { tools: [echo] } }).state.messages)).toEqual(["system"]);
    expect(agentWith({ initialState: { messages: [user("x")] } }).state.messages).toEqual([user("x")]);
  });

  it("A1: messages that already start with a system message keep it; the option's prompt is not added", () => {
    const existing: SystemMessage = { role: "system", content: "From the transcript.", timestamp: 1 };
    const agent = agentWith({ initialState: { systemPrompt: "From the option.", tools: [echo], messages: [existing, user("hi")] } });
    expect(agent.state.messages).toEqual([existing, user("hi")]);
    expect(agent.state.systemPrompt).toBe("From the transcript.");
  });

  it("A1: the initial arrays are copied", () => {
    const messages: AgentMessage[] = [user("a")];
    const tools = [echo];
    const agent = agentWith({ initialState: { messages, tools } });
    messages.push(user("b"));
    tools.push(tool("other", () => textResult("")));
    expect(roles(agent.state.messages)).toEqual(["system", "user"]);
    expect(agent.state.tools.map((t) => t.name)).toEqual(["echo"]);
  });

  it("A1: assigning state.messages or state.tools copies the top-level array (the elements are shared)", () => {
    const agent = agentWith({});
    const messages: AgentMessage[] = [user("a")];
    agent.state.messages = messages;
    messages.push(user("b"));
    expect(agent.state.messages).not.toBe(messages);
    expect(agent.state.messages).toHaveLength(1);
    expect(agent.state.messages[0]).toBe(messages[0]);

    const tools = [echo];
    agent.state.tools = tools;
    tools.length = 0;
    expect(agent.state.tools).toEqual([echo]);
    expect(agent.state.tools[0]).toBe(echo);
  });

  it("A1: a tool pushed onto state.tools during a run is for the next run: the running one cannot call it", async () => {
    const late = tool("late", () => textResult("late ran"));
    const adder = tool("adder", () => (agent.state.tools.push(late), textResult("added")));
    const provider = fauxProvider([{ content: [fauxToolCall("adder", {}, "a1")] }, { content: [fauxToolCall("late", {}, "l1")] }, { content: "ok" }, { content: [fauxToolCall("late", {}, "l2")] }, { content: "done" }]);
    const agent = agentWith({ streamFn: provider, initialState: { tools: [adder] } });
    await agent.prompt("first");
    const results = () => agent.state.messages.filter((m): m is ToolResultMessage => (m as { role: string }).role === "toolResult");
    await agent.prompt("second");
    expect(results().map((r) => [r.toolCallId, r.isError, textOf(r)])).toEqual([
      ["a1", false, "added"],
      ["l1", true, 'Tool "late" not found. Available tools: adder.'],
      ["l2", false, "late ran"],
    ]);
  });

  it("A1 M5: tools assigned between runs are announced to the model in a system message before the next prompt", async () => {
    const provider = fauxProvider([{ content: "one" }, { content: "two" }]);
    const other = tool("other", () => textResult(""));
    const agent = agentWith({ streamFn: provider, initialState: { systemPrompt: "Base.", tools: [echo] } });
    await agent.prompt("first");
    agent.state.tools = [echo, other];
    await agent.prompt("second");
    expect(roles(agent.state.messages)).toEqual(["system", "user", "assistant", "system", "user", "assistant"]);
    const announcement = agent.state.messages[3] as SystemMessage;
    expect(announcement.toolsAdded?.map((t) => t.name)).toEqual(["other"]);
    expect(roles(provider.requests[1]!.messages)).toEqual(["system", "user", "assistant", "system", "user"]);
    // the replayed system prompt is unchanged by a tool-only system message
    expect(agent.state.systemPrompt).toBe("Base.");
  });

  it("A1: state.systemPrompt is read-only and replayed from the transcript's system messages", () => {
    const agent = agentWith({ initialState: { systemPrompt: "Base." } });
    expect(() => {
      (agent.state as { systemPrompt: string }).systemPrompt = "Overwritten";
    }).toThrow(TypeError);
    expect(agent.state.systemPrompt).toBe("Base.");
    agent.state.messages = [
      ...agent.state.messages,
      user("q"),
      { role: "system", content: "Addendum.", sections: { style: "Use lists." }, timestamp: 2 },
    ];
    expect(agent.state.systemPrompt).toBe("Base.\n\nAddendum.\n\nUse lists.");
    agent.state.messages = [{ role: "system", content: "Replaced.", timestamp: 3 }];
    expect(agent.state.systemPrompt).toBe("Replaced.");
  });

  it("A1: reset() keeps the replayed system baseline and clears the rest", async () => {
    const provider = fauxProvider([{ content: "ok", stopReason: "error", errorMessage: "boom" }]);
    const agent = agentWith({ streamFn: provider, initialState: { systemPrompt: "Base.", tools: [echo] } });
    await agent.prompt("hi");
    expect(agent.state.errorMessage).toBe("boom");
    agent.state.messages = [
      ...agent.state.messages,
      { role: "system", content: "More.", sections: { tone: "Calm." }, toolsAdded: [{ name: "other", description: "", parameters: {} }], timestamp: 5 },
    ];
    agent.steer("s");
    agent.followUp("f");

    agent.reset();

    expect(agent.state.messages).toHaveLength(1);
    const baseline = agent.state.messages[0] as SystemMessage;
    expect(baseline.role).toBe("system");
    expect(baseline.content).toBe("Base.\n\nMore.");
    expect(baseline.sections).toEqual({ tone: "Calm." });
    expect(baseline.toolsAdded?.map((t) => t.name)).toEqual(["echo", "other"]);
    expect(agent.state.systemPrompt).toBe("Base.\n\nMore.\n\nCalm.");
    expect(agent.state.errorMessage).toBeUndefined();
    expect(agent.hasQueuedMessages()).toBe(false);
    expect(agent.state.isStreaming).toBe(false);
    // the executable tools are not the transcript's business
    expect(agent.state.tools).toEqual([echo]);
  });

  it("A1: reset() of a transcript without system messages empties it", () => {
    const agent = agentWith({ initialState: { messages: [user("a")] } });
    agent.reset();
    expect(agent.state.messages).toEqual([]);
  });

  it("A1 A2: reset() during a run throws, and the run is unaffected", async () => {
    const hold = gate();
    const provider = fauxProvider([{ content: "done" }]);
    const agent = agentWith({ streamFn: provider });
    agent.subscribe((event) => (event.type === "agent_start" ? hold.promise : undefined));
    const running = agent.prompt("go");
    expect(() => agent.reset()).toThrow("Agent is already processing. Wait for completion before resetting.");
    hold.open();
    await running;
    expect(roles(agent.state.messages)).toEqual(["user", "assistant"]);
  });
});

describe("A2: prompt, queues, one run at a time", () => {
  it("A2: prompt(text, images) sends one user message with the text, then the images", async () => {
    const provider = fauxProvider([{ content: "a cat" }]);
    const agent = agentWith({ streamFn: provider });
    const image: ImageContent = { type: "image", data: "aGVsbG8=", mimeType: "image/png" };
    await agent.prompt("What is this?", [image]);
    const sent = provider.requests[0]!.messages;
    expect(sent).toHaveLength(1);
    const message = sent[0] as UserMessage;
    expect(message.role).toBe("user");
    expect(message.content).toEqual([{ type: "text", text: "What is this?" }, image]);
    expect(typeof message.timestamp).toBe("number");
    expect(agent.state.messages[0]).toBe(message);
    expect(roles(agent.state.messages)).toEqual(["user", "assistant"]);
  });

  it("A2: prompt(message) sends that message as is", async () => {
    const provider = fauxProvider([{ content: "hello" }]);
    const agent = agentWith({ streamFn: provider });
    const message = user("hi", 42);
    await agent.prompt(message);
    expect(provider.requests[0]!.messages).toEqual([message]);
    expect(agent.state.messages[0]).toBe(message);
  });

  it("A2: prompt(messages) sends several messages in one request", async () => {
    const provider = fauxProvider([{ content: "both read" }]);
    const agent = agentWith({ streamFn: provider });
    const input = [user("one"), user("two")];
    await agent.prompt(input);
    expect(provider.requests).toHaveLength(1);
    expect(userTexts(provider.requests[0]!.messages)).toEqual(["one", "two"]);
    expect(roles(agent.state.messages)).toEqual(["user", "user", "assistant"]);
    expect(input).toHaveLength(2);
  });

  it("A2: prompt(messages) sends the array as it was when called, though the caller reuses it while a listener holds the run", async () => {
    const hold = gate();
    const provider = fauxProvider([{ content: "read" }]);
    const agent = agentWith({ streamFn: provider });
    agent.subscribe((event) => (event.type === "agent_start" ? hold.promise : undefined));
    const input = [user("one")];
    const running = agent.prompt(input);
    input.push(user("added later"));
    hold.open();
    await running;
    expect(userTexts(provider.requests[0]!.messages)).toEqual(["one"]);
  });

  it("A2: prompt() of anything but text, a message or an array rejects with a TypeError that says what it takes", async () => {
    const agent = agentWith({ streamFn: fauxProvider([]) });
    for (const input of [null, 42, undefined, true]) {
      const failed = agent.prompt(input as unknown as string);
      await expect(failed).rejects.toThrow(TypeError);
      await expect(failed).rejects.toThrow("prompt() takes text, a message, or an array of messages.");
    }
    expect(agent.state.messages).toEqual([]);
    expect(agent.state.isStreaming).toBe(false);
  });

  it("A2: prompt([]) rejects: a run needs at least one message; nothing is asked", async () => {
    const provider = fauxProvider([{ content: "never" }]);
    const agent = agentWith({ streamFn: provider });
    await expect(agent.prompt([])).rejects.toThrow("prompt() needs at least one message.");
    expect(provider.requests).toHaveLength(0);
    expect(agent.state.isStreaming).toBe(false);
  });

  it("A2: prompt() runs the tool round trip and appends the whole turn to state.messages", async () => {
    const provider = fauxProvider([{ content: [fauxToolCall("echo", { a: 1 }, "c1")] }, { content: "echoed" }]);
    const agent = agentWith({ streamFn: provider, initialState: { tools: [echo] } });
    await agent.prompt("go");
    expect(roles(agent.state.messages)).toEqual(["system", "user", "assistant", "toolResult", "assistant"]);
    const result = agent.state.messages[3] as ToolResultMessage;
    expect(result.toolCallId).toBe("c1");
    expect(textOf(result)).toBe('{"a":1}');
    expect(agent.state.isStreaming).toBe(false);
  });

  it("A2: prompt() during a run rejects and points to steer() and followUp(); continue() rejects too", async () => {
    const hold = gate();
    const provider = fauxProvider([{ content: "done" }]);
    const agent = agentWith({ streamFn: provider });
    agent.subscribe((event) => (event.type === "agent_start" ? hold.promise : undefined));
    const running = agent.prompt("first");
    expect(agent.state.isStreaming).toBe(true);
    await expect(agent.prompt("second")).rejects.toThrow(/steer\(\) or followUp\(\)/);
    await expect(agent.prompt("second")).rejects.toThrow("Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion.");
    await expect(agent.continue()).rejects.toThrow("Agent is already processing. Wait for completion before continuing.");
    hold.open();
    await running;
    expect(provider.requests).toHaveLength(1);
    expect(userTexts(agent.state.messages)).toEqual(["first"]);
  });

  it("A2: prompt() without a streamFn rejects with a clear message and leaves the agent idle", async () => {
    const agent = agentWith({});
    await expect(agent.prompt("hi")).rejects.toThrow(/streamFn/);
    expect(agent.state.isStreaming).toBe(false);
    expect(agent.state.messages).toEqual([]);
  });

  it("A2: peekQueuedMessages shows steering first, then follow-up; modes decide how many; clearing empties", () => {
    const agent = agentWith({});
    expect(agent.hasQueuedMessages()).toBe(false);
    expect(agent.peekQueuedMessages()).toEqual([]);

    agent.followUp(user("f1"));
    agent.followUp(user("f2"));
    expect(agent.hasQueuedMessages()).toBe(true);
    expect(agent.peekQueuedMessages().map(textOf)).toEqual(["f1"]);
    agent.followUpMode = "all";
    expect(agent.peekQueuedMessages().map(textOf)).toEqual(["f1", "f2"]);

    agent.steer(user("s1"));
    agent.steer("s2");
    expect(agent.peekQueuedMessages().map(textOf)).toEqual(["s1"]);
    agent.steeringMode = "all";
    expect(agent.peekQueuedMessages().map(textOf)).toEqual(["s1", "s2"]);
    // peeking does not take
    expect(agent.peekQueuedMessages().map(textOf)).toEqual(["s1", "s2"]);

    agent.clearSteeringQueue();
    expect(agent.peekQueuedMessages().map(textOf)).toEqual(["f1", "f2"]);
    expect(agent.hasQueuedMessages()).toBe(true);
    agent.clearFollowUpQueue();
    expect(agent.hasQueuedMessages()).toBe(false);

    agent.steer("s");
    agent.followUp("f");
    agent.clearAllQueues();
    expect(agent.hasQueuedMessages()).toBe(false);
    expect(agent.peekQueuedMessages()).toEqual([]);
  });

  it("A2: steer() and followUp() take a message or a text; a text becomes a user message", () => {
    const agent = agentWith({});
    agent.steer("plain");
    const [message] = agent.peekQueuedMessages() as [UserMessage];
    expect(message.role).toBe("user");
    expect(textOf(message)).toBe("plain");
  });

  it("A2: waitForIdle() resolves at once when idle; signal exists only during a run; abort() when idle does nothing", async () => {
    const hold = gate();
    const provider = fauxProvider([{ content: "done" }]);
    const agent = agentWith({ streamFn: provider });
    await agent.waitForIdle();
    agent.abort();
    let signalDuringRun: AbortSignal | undefined;
    agent.subscribe((event, signal) => {
      if (event.type === "agent_start") {
        signalDuringRun = signal;
        return hold.promise;
      }
      return undefined;
    });
    const running = agent.prompt("go");
    expect(agent.signal).toBe(signalDuringRun);
    expect(agent.signal?.aborted).toBe(false);
    let idle = false;
    const waiting = agent.waitForIdle().then(() => (idle = true));
    await Promise.resolve();
    expect(idle).toBe(false);
    hold.open();
    await running;
    await waiting;
    expect(idle).toBe(true);
    expect(agent.signal).toBeUndefined();
  });

  it("A2: queued messages are taken by the next run", async () => {
    const provider = fauxProvider([{ content: "r1" }, { content: "r2" }]);
    const agent = agentWith({ streamFn: provider });
    agent.steer("steered");
    agent.followUp("later");
    await agent.prompt("go");
    // steering is polled at run start and joins the prompt; follow-up waits for the natural stop
    expect(userTexts(provider.requests[0]!.messages)).toEqual(["go", "steered"]);
    expect(userTexts(provider.requests[1]!.messages)).toEqual(["go", "steered", "later"]);
    expect(agent.hasQueuedMessages()).toBe(false);
  });
});
