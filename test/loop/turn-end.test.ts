/**
 * How a turn ends (SPEC L6, L8, R2): the `turn_end` of a hard exit, what `finishTurn`'s decision
 * means, and how a request limit met at the end of a turn is reported.
 */
import { describe, expect, it } from "vitest";
import { agentLoop } from "../../src/loop/agent-loop.js";
import type { AgentEvent, AgentLoopConfig, AgentTurnDecision, AssistantMessage } from "../../src/index.js";
import { fauxProvider, fauxToolCall, type FauxScriptEntry } from "../../src/testing/index.js";
import { agentEnd, collectSync, contextWith, model, roles, textResult, tool, user } from "../helpers/fixtures.js";

const echo = tool("echo", () => textResult("echoed"));

function runSync(script: FauxScriptEntry[], config: Partial<AgentLoopConfig> = {}): { events: AgentEvent[]; requests: number } {
  const provider = fauxProvider(script);
  const events = collectSync(agentLoop([user("go")], contextWith([echo]), { model, ...config }, undefined, provider));
  return { events, requests: provider.requests.length };
}

const turnEnds = (events: readonly AgentEvent[]) => events.filter((e): e is Extract<AgentEvent, { type: "turn_end" }> => e.type === "turn_end");

describe("L6: a hard exit", () => {
  it("L6: the turn_end of an error response carries no tool results, even with finishTurn", () => {
    for (const finishTurn of [undefined, () => undefined]) {
      const { events } = runSync([{ content: [fauxToolCall("echo", {}, "c1")], stopReason: "error", errorMessage: "overloaded" }], { finishTurn });
      const [end] = turnEnds(events);
      expect(turnEnds(events)).toHaveLength(1);
      expect(end!.toolResults).toEqual([]);
      expect((end!.message as AssistantMessage).errorMessage).toBe("overloaded");
    }
  });

  it("L6 A6: finishTurn throwing on an error response ends the run with the hook's error", () => {
    const { events } = runSync([{ content: "partial", stopReason: "error", errorMessage: "overloaded" }], {
      finishTurn: () => {
        throw new Error("finishTurn broke");
      },
    });
    const last = agentEnd(events).messages.at(-1) as AssistantMessage;
    expect(last.stopReason).toBe("error");
    expect(last.errorMessage).toBe("finishTurn broke");
    expect(roles(agentEnd(events).messages)).toEqual(["user", "assistant", "assistant"]);
  });
});

describe("L8: finishTurn's decision is its action", () => {
  it("L8: a decision with another action is no decision, as in pi: the run ends when nothing else keeps it going", () => {
    const { requests, events } = runSync([{ content: "first" }, { content: "never" }], { finishTurn: () => ({ action: "stop" }) as unknown as AgentTurnDecision });
    expect(requests).toBe(1);
    expect(roles(agentEnd(events).messages)).toEqual(["user", "assistant"]);
  });

  it("L8: no decision after a text answer ends the run; continue asks once more", () => {
    expect(runSync([{ content: "first" }, { content: "second" }], { finishTurn: () => undefined }).requests).toBe(1);
    let asked = 0;
    expect(runSync([{ content: "first" }, { content: "second" }], { finishTurn: () => (asked++ === 0 ? { action: "continue" } : undefined) }).requests).toBe(2);
  });
});

describe("R2 L8: a request limit met at the end of a turn", () => {
  it("R2: a run that would stop there ends on its own: no limit reported, onLimitReached not called", () => {
    const heard: string[] = [];
    const { events, requests } = runSync([{ content: "done" }], { limits: { maxTurns: 1 }, onLimitReached: (limit) => heard.push(limit.limit) });
    expect(requests).toBe(1);
    expect(agentEnd(events).limit).toBeUndefined();
    expect(heard).toEqual([]);
  });

  it("R2 L8: a run that would go on — tool results, or a continue decision — ends by the limit", () => {
    const byTools = runSync([{ content: [fauxToolCall("echo", {}, "c1")] }, { content: "never" }], { limits: { maxTurns: 1 } });
    expect(byTools.requests).toBe(1);
    expect(agentEnd(byTools.events).limit).toMatchObject({ limit: "maxTurns", value: 1, used: 1 });
    const byDecision = runSync([{ content: "first" }, { content: "never" }], { limits: { maxTurns: 1 }, finishTurn: () => ({ action: "continue" }) });
    expect(byDecision.requests).toBe(1);
    expect(agentEnd(byDecision.events).limit).toMatchObject({ limit: "maxTurns", value: 1, used: 1 });
  });
});
