/**
 * `continue()` (SPEC A3): user or toolResult tail → ask the model again; assistant tail → one
 * queued steering batch, else one follow-up batch, else reject; empty or system-only → reject.
 */
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { createInitialSystemMessage } from "../../src/index.js";
import type { AgentEvent, AgentMessage, AssistantMessage, SystemMessage, ToolResultMessage } from "../../src/index.js";
import { fauxProvider } from "../../src/testing/index.js";
import { assistantMessage } from "../helpers/fixtures.js";
import { agentWith, model, record, roles, textOf, textResult, tool, user, userTexts } from "./support.js";

function assistant(text: string, extra: Partial<AssistantMessage> = {}): AssistantMessage {
  return assistantMessage(text, "stop", extra);
}

const system: SystemMessage = { role: "system", content: "Sys.", timestamp: 0 };

function agentEndOf(events: AgentEvent[]): AgentMessage[] {
  const end = events.filter((e): e is Extract<AgentEvent, { type: "agent_end" }> => e.type === "agent_end");
  expect(end).toHaveLength(1);
  return end[0]!.messages;
}

describe("A3: continue()", () => {
  it("A3: a user tail asks the model again without adding a message", async () => {
    const provider = fauxProvider([{ content: "answer" }]);
    const agent = agentWith({ streamFn: provider, initialState: { messages: [system, user("question")] } });
    const { events } = record(agent);
    await agent.continue();
    expect(provider.requests).toHaveLength(1);
    expect(roles(provider.requests[0]!.messages)).toEqual(["system", "user"]);
    expect(roles(agent.state.messages)).toEqual(["system", "user", "assistant"]);
    expect(roles(agentEndOf(events))).toEqual(["assistant"]);
    expect(events.some((e) => e.type === "message_start" && (e.message as { role: string }).role === "user")).toBe(false);
  });

  it("A3: a toolResult tail continues with the result in the request", async () => {
    const provider = fauxProvider([{ content: "the tool said hi" }]);
    const call = assistant("", { content: [{ type: "toolCall", id: "t1", name: "echo", arguments: {} }], stopReason: "toolUse" });
    const result: ToolResultMessage = { role: "toolResult", toolCallId: "t1", toolName: "echo", content: [{ type: "text", text: "hi" }], isError: false, timestamp: 0 };
    const echo = tool("echo", () => textResult("hi"));
    // the leading system message declares the executable tool, so no tool change is announced (SPEC M5)
    const declared = createInitialSystemMessage("Sys.", [echo])!;
    const agent = agentWith({ streamFn: provider, initialState: { tools: [echo], messages: [declared, user("q"), call, result] } });
    await agent.continue();
    expect(roles(provider.requests[0]!.messages)).toEqual(["system", "user", "assistant", "toolResult"]);
    expect(roles(agent.state.messages)).toEqual(["system", "user", "assistant", "toolResult", "assistant"]);
    expect(textOf(agent.state.messages[4])).toBe("the tool said hi");
  });

  it("A3 L7: a user or toolResult tail with queued steering continues and takes the steering at run start", async () => {
    const provider = fauxProvider([{ content: "r1" }]);
    const agent = agentWith({ streamFn: provider, initialState: { messages: [user("q")] } });
    agent.steer("s1");
    await agent.continue();
    expect(userTexts(provider.requests[0]!.messages)).toEqual(["q", "s1"]);
    expect(roles(agent.state.messages)).toEqual(["user", "user", "assistant"]);
  });

  it("A3: an app-message tail is not an assistant tail: continue() asks the model again", async () => {
    const provider = fauxProvider([{ content: "r1" }]);
    const notice = { role: "notice", text: "the user went away", timestamp: 0 } as unknown as AgentMessage;
    const agent = agentWith({ streamFn: provider, initialState: { messages: [user("q"), assistant("a"), notice] } });
    await agent.continue();
    // the app message is not sent to the model (default convertToLlm) but stays in the transcript
    expect(roles(provider.requests[0]!.messages)).toEqual(["user", "assistant"]);
    expect(roles(agent.state.messages)).toEqual(["user", "assistant", "notice", "assistant"]);
  });

  it("A3: an assistant tail with queued steering runs one steering batch; the start-of-run poll is skipped", async () => {
    const provider = fauxProvider([{ content: "r1" }, { content: "r2" }, { content: "r3" }]);
    const agent = agentWith({ streamFn: provider, initialState: { messages: [user("q"), assistant("a")] } });
    agent.steer("s1");
    agent.steer("s2");
    agent.followUp("f1");
    const { events } = record(agent);
    await agent.continue();
    // one-at-a-time: s1 opens the run alone (s2 is not taken by a start-of-run poll), s2 is
    // taken after the first turn, and the follow-up only at the stop after that.
    expect(userTexts(provider.requests[0]!.messages)).toEqual(["q", "s1"]);
    expect(userTexts(provider.requests[1]!.messages)).toEqual(["q", "s1", "s2"]);
    expect(userTexts(provider.requests[2]!.messages)).toEqual(["q", "s1", "s2", "f1"]);
    expect(provider.requests).toHaveLength(3);
    expect(userTexts(agentEndOf(events))).toEqual(["s1", "s2", "f1"]);
    expect(agent.hasQueuedMessages()).toBe(false);
  });

  it("A3: with steering and follow-up both queued, continue() starts from the steering batch", async () => {
    const provider = fauxProvider([{ content: "r1" }, { content: "r2" }]);
    const agent = agentWith({ streamFn: provider, initialState: { messages: [user("q"), assistant("a")] } });
    agent.followUp("f1");
    agent.steer("s1");
    await agent.continue();
    expect(userTexts(provider.requests[0]!.messages)).toEqual(["q", "s1"]);
    expect(userTexts(provider.requests[1]!.messages)).toEqual(["q", "s1", "f1"]);
  });

  it("A3: an assistant tail with queued steering in `all` mode takes the whole batch at once", async () => {
    const provider = fauxProvider([{ content: "r1" }]);
    const agent = agentWith({ streamFn: provider, steeringMode: "all", initialState: { messages: [user("q"), assistant("a")] } });
    agent.steer("s1");
    agent.steer("s2");
    await agent.continue();
    expect(provider.requests).toHaveLength(1);
    expect(userTexts(provider.requests[0]!.messages)).toEqual(["q", "s1", "s2"]);
    expect(agent.hasQueuedMessages()).toBe(false);
  });

  it("A3: an assistant tail with only queued follow-up runs one follow-up batch", async () => {
    const provider = fauxProvider([{ content: "r1" }, { content: "r2" }]);
    const agent = agentWith({ streamFn: provider, initialState: { messages: [user("q"), assistant("a")] } });
    agent.followUp("f1");
    agent.followUp("f2");
    await agent.continue();
    expect(userTexts(provider.requests[0]!.messages)).toEqual(["q", "f1"]);
    // the second follow-up is taken at the natural stop of the first
    expect(userTexts(provider.requests[1]!.messages)).toEqual(["q", "f1", "f2"]);
    expect(roles(agent.state.messages)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
    expect(agent.hasQueuedMessages()).toBe(false);
  });

  it("A3: an assistant tail with nothing queued rejects and leaves the agent as it was", async () => {
    const provider = fauxProvider([{ content: "never" }]);
    const messages = [system, user("q"), assistant("a")];
    const agent = agentWith({ streamFn: provider, initialState: { messages } });
    await expect(agent.continue()).rejects.toThrow("Cannot continue from message role: assistant");
    expect(provider.requests).toHaveLength(0);
    expect(agent.state.messages).toEqual(messages);
    expect(agent.state.isStreaming).toBe(false);
    await agent.waitForIdle();
  });

  it("A3: an empty transcript rejects", async () => {
    const provider = fauxProvider([{ content: "never" }]);
    const agent = agentWith({ streamFn: provider });
    await expect(agent.continue()).rejects.toThrow("No messages to continue from");
    expect(provider.requests).toHaveLength(0);
    expect(agent.state.isStreaming).toBe(false);
  });

  it("A3: a system-only transcript rejects, even with queued messages", async () => {
    const provider = fauxProvider([{ content: "never" }]);
    const agent = agentWith({ streamFn: provider, initialState: { systemPrompt: "Sys.", messages: [] } });
    expect(roles(agent.state.messages)).toEqual(["system"]);
    agent.followUp("f");
    await expect(agent.continue()).rejects.toThrow("No messages to continue from");
    agent.state.messages = [system, { role: "system", content: "More.", timestamp: 1 }];
    await expect(agent.continue()).rejects.toThrow("No messages to continue from");
    expect(provider.requests).toHaveLength(0);
    expect(agent.hasQueuedMessages()).toBe(true);
  });

  it("A3 A7: continue$() is the Observable form: it emits the run's events and completes when idle", async () => {
    const provider = fauxProvider([{ content: "again" }]);
    const agent = agentWith({ streamFn: provider, initialState: { messages: [user("q")] } });
    const events = await lastValueFrom(agent.continue$().pipe(toArray()));
    expect(events[0]!.type).toBe("agent_start");
    expect(events[events.length - 1]!.type).toBe("agent_end");
    expect(agent.state.isStreaming).toBe(false);
    expect(roles(agent.state.messages)).toEqual(["user", "assistant"]);
  });

  it("A3: a continue() that cannot start (no streamFn) leaves the queued messages queued", async () => {
    const agent = agentWith({ initialState: { messages: [user("q"), assistant("a")] } });
    agent.steer("s1");
    agent.followUp("f1");
    await expect(agent.continue()).rejects.toThrow(/streamFn/);
    expect(agent.peekQueuedMessages().map(textOf)).toEqual(["s1"]);
    agent.clearSteeringQueue();
    await expect(agent.continue()).rejects.toThrow(/streamFn/);
    expect(agent.peekQueuedMessages().map(textOf)).toEqual(["f1"]);
    // once there is a provider, the queued messages run
    const provider = fauxProvider([{ content: "r1" }]);
    agent.streamFn = provider;
    await agent.continue();
    expect(userTexts(provider.requests[0]!.messages)).toEqual(["q", "f1"]);
    expect(agent.state.isStreaming).toBe(false);
  });

  it("A3: the next prompt works after a rejected continue()", async () => {
    const provider = fauxProvider([{ content: "fine" }]);
    const agent = agentWith({ streamFn: provider, initialState: { messages: [user("q"), assistant("a")] } });
    await expect(agent.continue()).rejects.toThrow();
    await agent.prompt("next");
    expect(roles(agent.state.messages)).toEqual(["user", "assistant", "user", "assistant"]);
  });
});
