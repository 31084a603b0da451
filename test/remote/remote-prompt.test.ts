/**
 * `RemoteAgent.prompt$` (SPEC SRV1, A7 for a remote agent): cold, the run's events from its
 * `agent_start` to its `agent_end`, completes when the run has settled; unsubscribing before that
 * stops the run on the server.
 */
import { asyncScheduler, filter, firstValueFrom, lastValueFrom, take, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { Agent, type AgentEvent } from "../../src/index.js";
import { RemoteAgent } from "../../src/remote/index.js";
import { fauxProvider } from "../../src/testing/index.js";
import { liveSessionServers, normalized } from "../server/live-session-server.js";

const start = liveSessionServers();
const longAnswer = "streamed slowly, ".repeat(40);

function remote(url: string, id: string): RemoteAgent {
  return new RemoteAgent({ url: `${url}/${id}`, headers: () => ({ authorization: "Bearer t-ann" }), reconnect: { initialDelayMs: 1, maxDelayMs: 4 } });
}

describe("RemoteAgent.prompt$ (SPEC SRV1, A7)", () => {
  it("SRV1 A7: cold; the run's events from agent_start to agent_end, the server Agent's own, then it completes", async () => {
    const { url, agents } = await start({ agentFor: () => new Agent({ streamFn: fauxProvider([{ content: "Hello there." }]) }) });
    const agent = remote(url, "ann-p1");
    try {
      await firstValueFrom(agent.connection$.pipe(filter((c) => c.status === "connected")));
      const run$ = agent.prompt$("hi");
      expect(agents.get("ann-p1")?.agent.state.messages ?? []).toEqual([]);
      const told = await lastValueFrom(run$.pipe(toArray()));
      expect(told[0]?.type).toBe("agent_start");
      expect(told.at(-1)?.type).toBe("agent_end");
      expect(told.map(normalized)).toEqual(agents.get("ann-p1")!.events.map(normalized));
      expect(agent.state.isStreaming).toBe(false);
    } finally {
      agent.close();
    }
  });

  it("SRV1 A7 L10: unsubscribed mid-run, the run on the server is aborted", async () => {
    const streamFn = fauxProvider([{ content: longAnswer }], { scheduler: asyncScheduler, delay: 5, chunkSize: 3 });
    const { url, agents } = await start({ agentFor: () => new Agent({ streamFn }) });
    const agent = remote(url, "ann-p2");
    try {
      await firstValueFrom(agent.connection$.pipe(filter((c) => c.status === "connected")));
      // Three deltas in, the page leaves.
      const seen: AgentEvent[] = await firstValueFrom(agent.prompt$("go").pipe(filter((e) => e.type === "message_update"), take(3), toArray()));
      expect(seen).toHaveLength(3);
      const server = agents.get("ann-p2")!.agent;
      await firstValueFrom(server.state$.pipe(filter((s) => !s.isStreaming)));
      expect(server.state.outcome).toBe("aborted");
      const answer = server.state.messages.at(-1) as { content: Array<{ text?: string }> };
      expect(answer.content.map((c) => c.text ?? "").join("").length).toBeLessThan(longAnswer.length);
    } finally {
      agent.close();
    }
  });

  it("SRV4: a prompt the server refuses errors the Observable with the Agent's words", async () => {
    const { url } = await start({ agentFor: () => new Agent() });
    const agent = remote(url, "ann-p3");
    try {
      await expect(lastValueFrom(agent.prompt$("hi"))).rejects.toThrow(/streamFn|stream/i);
    } finally {
      agent.close();
    }
  });
});
