/**
 * The transcript the Agent hands out cannot change after the fact (I1): `state.messages` and
 * every `state$` snapshot are frozen arrays, so a `push` or `splice` on them throws and never
 * reaches the transcript or a snapshot taken earlier.
 */
import { describe, expect, it } from "vitest";
import type { AgentStateSnapshot } from "../../src/agent/agent-state.js";
import { fauxProvider, fauxToolCall } from "../../src/testing/index.js";
import type { Agent } from "../../src/agent/agent.js";
import { agentWith, roles, textOf, textResult, tool, user } from "./support.js";

/** The snapshot `state$` gives a new subscriber now. */
function first(agent: Agent): AgentStateSnapshot {
  let snapshot: AgentStateSnapshot | undefined;
  agent.state$.subscribe((s) => (snapshot ??= s)).unsubscribe();
  return snapshot!;
}

describe("I1: the transcript is append-only by construction", () => {
  it("I1: a splice on state.messages throws; the transcript and an earlier snapshot stay as they were", async () => {
    const agent = agentWith({ initialState: { systemPrompt: "Sys." }, streamFn: fauxProvider([{ content: "hi" }]) });
    await agent.prompt("hello");
    let snapshot: AgentStateSnapshot | undefined;
    agent.state$.subscribe((s) => (snapshot ??= s)).unsubscribe();
    const before = roles(agent.state.messages);
    expect(before).toEqual(["system", "user", "assistant"]);

    expect(() => (agent.state.messages as unknown as unknown[]).splice(0, 1)).toThrow(TypeError);
    expect(() => (agent.state.messages as unknown as unknown[]).push(user("sneaked in"))).toThrow(TypeError);
    expect(() => ((agent.state.messages as unknown as unknown[])[0] = user("replaced"))).toThrow(TypeError);

    expect(roles(agent.state.messages)).toEqual(before);
    expect(roles(snapshot!.messages)).toEqual(before);
  });

  it("I1: a snapshot taken mid-run keeps its messages after the run appends more", async () => {
    const echo = tool("echo", () => textResult("echoed"));
    const agent = agentWith({ initialState: { tools: [echo] }, streamFn: fauxProvider([{ content: [fauxToolCall("echo", {}, "a")] }, { content: "done" }]) });
    const snapshots: AgentStateSnapshot[] = [];
    agent.state$.subscribe((s) => snapshots.push(s));
    await agent.prompt("go");
    const afterFirstAnswer = snapshots.find((s) => roles(s.messages).join() === "system,user,assistant")!;
    await agent.prompt("again").catch(() => undefined);
    expect(roles(afterFirstAnswer.messages)).toEqual(["system", "user", "assistant"]);
    expect(Object.isFrozen(afterFirstAnswer.messages)).toBe(true);
  });

  it("I1: what state.messages hands out is the same frozen array until the transcript changes", async () => {
    const agent = agentWith({ streamFn: fauxProvider([{ content: "hi" }]) });
    const empty = agent.state.messages;
    expect(agent.state.messages).toBe(empty);
    await agent.prompt("hello");
    const after = agent.state.messages;
    expect(after).not.toBe(empty);
    expect(agent.state.messages).toBe(after);
    expect(Object.isFrozen(after)).toBe(true);
  });

  it("I1 A7: a state$ snapshot shares the frozen copy state.messages hands out while the transcript is unchanged", async () => {
    const agent = agentWith({ streamFn: fauxProvider([{ content: "hi" }]) });
    await agent.prompt("hello");
    const view = agent.state.messages;
    const snapshot = first(agent);
    expect(snapshot.messages).toBe(view);
  });

  it("I1: a snapshot keeps its transcript when a transcript of the same length replaces it, and state.messages was read since", () => {
    const agent = agentWith({});
    agent.state.messages = [user("before")];
    const snapshot = first(agent);
    agent.state.messages = [user("after")];
    expect(textOf(agent.state.messages[0])).toBe("after");
    expect(snapshot.messages.map(textOf)).toEqual(["before"]);
  });

  it("I1: a snapshot keeps its length when the run appends, though state.messages was read after the run", async () => {
    const agent = agentWith({ streamFn: fauxProvider([{ content: "hi" }]) });
    agent.state.messages = [user("before")];
    const snapshot = first(agent);
    await agent.prompt("hello");
    expect(agent.state.messages).toHaveLength(3);
    expect(snapshot.messages.map(textOf)).toEqual(["before"]);
  });

  it("M5 A7: a snapshot's systemPrompt is of its moment, though a system message joined the transcript after it", async () => {
    const agent = agentWith({ initialState: { systemPrompt: "Be brief." }, streamFn: fauxProvider([{ content: "ok" }]) });
    const snapshot = first(agent);
    await agent.prompt({ role: "system", content: "Be verbose.", timestamp: 1 });
    expect(agent.state.systemPrompt).not.toBe("Be brief.");
    expect(snapshot.systemPrompt).toBe("Be brief.");
  });

  it("A1 A7: a snapshot's tools are a frozen copy: a push onto state.tools reaches the Agent, not the snapshot", () => {
    const agent = agentWith({ initialState: { tools: [tool("a", () => textResult("a"))] } });
    const snapshot = first(agent);
    agent.state.tools.push(tool("b", () => textResult("b")));
    expect(agent.state.tools.map((t) => t.name)).toEqual(["a", "b"]);
    expect(snapshot.tools.map((t) => t.name)).toEqual(["a"]);
    expect(Object.isFrozen(snapshot.tools)).toBe(true);
  });

  it("A7: state$ gives the same snapshot object to every subscriber until the state changes", () => {
    const agent = agentWith({});
    const a = first(agent);
    expect(first(agent)).toBe(a);
    agent.state.messages = [user("changed")];
    const b = first(agent);
    expect(b).not.toBe(a);
    expect(first(agent)).toBe(b);
  });

  it("A4: state.pendingToolCalls is one Set until the executing calls change", async () => {
    const sets: ReadonlySet<string>[] = [];
    const echo = tool("echo", () => {
      sets.push(agent.state.pendingToolCalls, agent.state.pendingToolCalls);
      return textResult("echoed");
    });
    const agent = agentWith({ initialState: { tools: [echo] }, streamFn: fauxProvider([{ content: [fauxToolCall("echo", {}, "a")] }, { content: "done" }]) });
    const idle = agent.state.pendingToolCalls;
    expect(agent.state.pendingToolCalls).toBe(idle);
    await agent.prompt("go");
    expect([...sets[0]!]).toEqual(["a"]);
    expect(sets[1]).toBe(sets[0]);
    expect(agent.state.pendingToolCalls.size).toBe(0);
  });

  it("I1 A1: assigning a new array is how the transcript changes (it is copied)", () => {
    const agent = agentWith({});
    const messages = [user("a")];
    agent.state.messages = messages;
    messages.push(user("b"));
    expect(roles(agent.state.messages)).toEqual(["user"]);
  });
});
