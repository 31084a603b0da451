/**
 * What the Agent's own writes do to its state (SPEC A1, A4, A9, I1): each is one action of the
 * fold, and does exactly what it says — no more (a new transcript is not a reset), and never
 * through the app's own arrays.
 */
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../../src/index.js";
import { fauxProvider } from "../../src/testing/index.js";
import { agentWith } from "./support.js";

const user = (text: string): AgentMessage => ({ role: "user", content: text, timestamp: 0 });

describe("the Agent's writes, as actions", () => {
  it("A1 I1: the arrays given as initialState.messages and assigned to state.messages stay the app's: a run appends to the Agent's own", async () => {
    const initial = [user("first")];
    const agent = agentWith({ streamFn: fauxProvider([{ content: "one" }, { content: "two" }]), initialState: { messages: initial } });
    await agent.prompt("go");
    expect(initial).toEqual([user("first")]);
    const assigned = [user("again")];
    agent.state.messages = assigned;
    await agent.prompt("go on");
    expect(assigned).toEqual([user("again")]);
    expect(agent.state.messages.map((m) => m.role)).toEqual(["user", "user", "assistant"]);
  });

  it("A9: a new transcript keeps the last run's outcome and error; reset() forgets them", async () => {
    const agent = agentWith({ streamFn: fauxProvider([{ content: "", stopReason: "error", errorMessage: "boom" }]) });
    await agent.prompt("go");
    expect({ outcome: agent.state.outcome, errorMessage: agent.state.errorMessage }).toEqual({ outcome: "failed", errorMessage: "boom" });
    agent.state.messages = [user("edited")];
    expect({ outcome: agent.state.outcome, errorMessage: agent.state.errorMessage }).toEqual({ outcome: "failed", errorMessage: "boom" });
    agent.reset();
    expect({ outcome: agent.state.outcome, errorMessage: agent.state.errorMessage }).toEqual({ outcome: undefined, errorMessage: undefined });
  });

  it("A4 L12: a write is read back at once, and state$ hears of it once", () => {
    const agent = agentWith({ streamFn: fauxProvider([]) });
    const levels: string[] = [];
    agent.state$.subscribe((snapshot) => levels.push(snapshot.thinkingLevel));
    agent.state.thinkingLevel = "high";
    expect(agent.state.thinkingLevel).toBe("high");
    expect(levels).toEqual(["off", "high"]);
  });
});
