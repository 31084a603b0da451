/**
 * The transcript the Agent hands out cannot change after the fact (I1): `state.messages` and
 * every `state$` snapshot are frozen arrays, so a `push` or `splice` on them throws and never
 * reaches the transcript or a snapshot taken earlier.
 */
import { describe, expect, it } from "vitest";
import type { AgentStateSnapshot } from "../../src/agent/agent-state.js";
import { fauxProvider, fauxToolCall } from "../../src/testing/index.js";
import { agentWith, roles, textResult, tool, user } from "./support.js";

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

  it("I1 A1: assigning a new array is how the transcript changes (it is copied)", () => {
    const agent = agentWith({});
    const messages = [user("a")];
    agent.state.messages = messages;
    messages.push(user("b"));
    expect(roles(agent.state.messages)).toEqual(["user"]);
  });
});
