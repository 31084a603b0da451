/**
 * Many agents side by side (SPEC A1–A7 together): 1 000 agents in one process, each running a
 * short scripted session concurrently — a tool round trip with an async tool, steering and a
 * follow-up sent mid-run — finish with correct, independent transcripts. The tools and some
 * listeners wait on promises let go a seeded share at a time in a seeded order, so the agents
 * overtake each other, the same way on every run.
 */
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { AgentEvent, AgentToolResult, AssistantMessage, ToolResultMessage } from "../../src/index.js";
import { fauxProvider, fauxToolCall, type FauxRequest } from "../../src/testing/index.js";
import { SeededRelease } from "../helpers/seeded-release.js";
import { model, roles, textOf, textResult, tool, userTexts } from "./support.js";

const AGENTS = 1000;

function lastToolResult(request: FauxRequest): string {
  const results = request.messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
  return textOf(results[results.length - 1]);
}

function session(n: number, release: SeededRelease, ended: number[]) {
  const provider = fauxProvider([
    { content: [fauxToolCall("lookup", { key: `k${n}` }, `call-${n}`)] },
    (request) => ({ content: `agent ${n} read ${lastToolResult(request)}; users: ${userTexts(request.messages).join("|")}` }),
    (request) => ({ content: `agent ${n} bye after ${userTexts(request.messages).length} user messages` }),
  ]);
  const lookup = tool("lookup", (_id, params: { key: string }): Promise<AgentToolResult> => release.hold(textResult(`value-of-${params.key}`)));
  const agent = new Agent({ initialState: { systemPrompt: `You are agent ${n}.`, model, tools: [lookup] }, streamFn: provider });
  const events: AgentEvent[] = [];
  agent.subscribe(async (event) => {
    events.push(event);
    // queue input mid-run, while the tool runs
    if (event.type === "tool_execution_start") {
      agent.steer(`steer ${n}`);
      agent.followUp(`follow ${n}`);
    }
    // an awaited listener now and then, to interleave the agents differently
    if (n % 3 === 0 && event.type === "message_end") await release.hold(undefined);
    if (event.type === "agent_end") ended.push(n);
  });
  return { agent, provider, events };
}

describe("many agents side by side", () => {
  it(`A1–A7: ${AGENTS} agents run scripted sessions concurrently and end with correct, independent transcripts`, async () => {
    const release = new SeededRelease(0x5eed);
    const ended: number[] = [];
    const sessions = Array.from({ length: AGENTS }, (_, n) => session(n, release, ended));
    const all = Promise.all(sessions.map(({ agent }, n) => agent.prompt(`question ${n}`)));
    await release.drive(all);
    await all;
    // The runs did interleave: they ended in another order than they started.
    expect(ended).toHaveLength(AGENTS);
    expect(ended).not.toEqual([...ended].sort((x, y) => x - y));

    sessions.forEach(({ agent, provider, events }, n) => {
      const messages = agent.state.messages;
      expect(roles(messages)).toEqual(["system", "user", "assistant", "toolResult", "user", "assistant", "user", "assistant"]);
      expect(agent.state.systemPrompt).toBe(`You are agent ${n}.`);
      expect(userTexts(messages)).toEqual([`question ${n}`, `steer ${n}`, `follow ${n}`]);
      const result = messages[3] as ToolResultMessage;
      expect(result.toolCallId).toBe(`call-${n}`);
      expect(textOf(result)).toBe(`value-of-k${n}`);
      expect(textOf(messages[5])).toBe(`agent ${n} read value-of-k${n}; users: question ${n}|steer ${n}`);
      expect(textOf(messages[7])).toBe(`agent ${n} bye after 3 user messages`);
      expect((messages[7] as AssistantMessage).stopReason).toBe("stop");
      expect(provider.requests).toHaveLength(3);
      expect(provider.remaining).toBe(0);
      // the listener saw exactly this agent's run, once
      expect(events.filter((e) => e.type === "agent_start")).toHaveLength(1);
      expect(events[events.length - 1]!.type).toBe("agent_end");
      const committed = events.flatMap((e) => (e.type === "message_end" ? [e.message] : []));
      expect(committed).toEqual(messages.slice(1));
      expect(agent.state.isStreaming).toBe(false);
      expect(agent.state.errorMessage).toBeUndefined();
      expect(agent.hasQueuedMessages()).toBe(false);
    });
  });
});
