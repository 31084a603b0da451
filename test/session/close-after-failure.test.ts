/**
 * `closeSession()` after a write failed (SPEC S3): fenced (the lease is another writer's now),
 * it resolves having released nothing, the new owner's lease untouched; any other failure while
 * idle (a queued message not on record) rejects with it, the lease given back.
 */
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { AgentTool } from "../../src/index.js";
import type { JournalEntry } from "../../src/session/journal-entry.js";
import { agentSession } from "../../src/session/agent-session.js";
import { SessionLeaseHeldError } from "../../src/session/session-errors.js";
import type { AppendCondition, SessionStore } from "../../src/session/session-store.js";
import { InMemorySessionStore } from "../../src/session/stores/memory-store.js";
import { fauxProvider, fauxToolCall } from "../../src/testing/index.js";
import { storeAppending } from "./store-contract.js";

const model = { id: "faux-1", api: "faux", provider: "faux" };

function agentOn(store: SessionStore, owner: string, tools: AgentTool[] = [], takeover = false): Agent {
  return new Agent({
    initialState: { model, tools },
    streamFn: fauxProvider([{ content: [fauxToolCall("slow", {}, "s1")] }, { content: "done" }, { content: "more" }]),
    session: agentSession({ store, id: "s", owner, ...(takeover ? { takeover: true } : {}) }),
  });
}

describe("closeSession() after a failed write (SPEC S3)", () => {
  it("S3: fenced during a run: the run says another writer holds the session; closeSession() resolves and leaves the new owner's lease alone", async () => {
    const store = new InMemorySessionStore();
    let finish: (() => void) | undefined;
    const slow: AgentTool = { name: "slow", label: "Slow", description: "Waits.", parameters: { type: "object", properties: {} }, execute: () => new Promise((resolve) => (finish = () => resolve({ content: [{ type: "text", text: "late" }] }))) };
    const agent = agentOn(store, "a", [slow]);
    await agent.resume();
    const running = agent.prompt("go");
    while (!finish) await new Promise((resolve) => setImmediate(resolve));
    const usurper = agentOn(store, "b", [], true);
    await usurper.resume();
    finish();
    await running;
    expect(agent.state.errorMessage).toMatch(/^The session journal could not be written: .*was taken over by token 2\. .* The session "s" is closed: another writer holds it now\.$/);
    await expect(agent.closeSession()).resolves.toBeUndefined();
    // The new owner's lease still holds: a third owner is refused without a takeover.
    expect(() => store.acquire("s", { owner: "c", ttlMs: 60_000 })).toThrow(SessionLeaseHeldError);
  });

  it("S3: fenced while idle (a steer() the store refused): closeSession() resolves, releasing nothing", async () => {
    const store = new InMemorySessionStore();
    const agent = agentOn(store, "a");
    await agent.resume();
    await agentOn(store, "b", [], true).resume();
    agent.steer("too late");
    await expect(agent.closeSession()).resolves.toBeUndefined();
    expect(() => store.acquire("s", { owner: "c", ttlMs: 60_000 })).toThrow(SessionLeaseHeldError);
  });

  it("S3: another failure while idle: closeSession() rejects with it (the queued message is not on record) and gives the lease back", async () => {
    const memory = new InMemorySessionStore();
    let refuse = false;
    const store = storeAppending(memory, (id: string, entries: readonly JournalEntry[], condition: AppendCondition) => {
      if (refuse) throw new Error("disk full");
      return memory.append(id, entries, condition);
    });
    const agent = agentOn(store, "a");
    await agent.resume();
    refuse = true;
    agent.steer("lost");
    await expect(agent.closeSession()).rejects.toThrow("disk full");
    expect(memory.acquire("s", { owner: "c", ttlMs: 60_000 }).owner).toBe("c");
  });
});
