/**
 * A journal that cannot be written never leaves the Agent stuck (SPEC S6, T3): a store whose
 * append throws or rejects, or an entry that cannot be serialised (a tool result nested 100 000
 * deep on the file store), ends the run with a clear error in `state.errorMessage`; the Agent is
 * idle again, the session is closed (nothing more is journaled under a writer that failed), and
 * `resume()` opens it again from what is on record, after which it can prompt again.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { AgentTool } from "../../src/index.js";
import type { JournalEntry } from "../../src/session/journal-entry.js";
import { agentSession } from "../../src/session/agent-session.js";
import type { AppendCondition, SessionStore } from "../../src/session/session-store.js";
import { FileSessionStore } from "../../src/session/stores/file-store.js";
import { InMemorySessionStore } from "../../src/session/stores/memory-store.js";
import type { Message } from "../../src/index.js";
import { fauxProvider, fauxToolCall, type FauxReply } from "../../src/testing/index.js";
import { userTexts } from "./scenario.js";
import { settle, storeAppending } from "./store-contract.js";
import { checkTranscript } from "./transcript-invariants.js";

const model = { id: "faux-1", api: "faux", provider: "faux" };
const root = mkdtempSync(join(tmpdir(), "rxagent-journal-failure-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const SECRET = "sk-live-abcdefghijklmnopqrstuvwx";

/** A memory store whose append fails once, at the `failAt`-th append: thrown, or as a rejected promise. */
function failingOnce(failAt: number, how: "throw" | "reject"): { memory: InMemorySessionStore; store: SessionStore } {
  const memory = new InMemorySessionStore();
  let appends = 0;
  const store = storeAppending(memory, (id: string, entries: readonly JournalEntry[], condition: AppendCondition) => {
    if (++appends === failAt) {
      // The store's own message carries a credential: it must not reach the state's error.
      const error = new Error(`disk quota exceeded for bearer ${SECRET}`);
      if (how === "throw") throw error;
      return Promise.reject(error);
    }
    return how === "throw" ? memory.append(id, entries, condition) : Promise.resolve(memory.append(id, entries, condition));
  });
  return { memory, store };
}

/** A tool whose result details nest `depth` deep: JSON.stringify cannot write it. */
function deepTool(depth: number): AgentTool {
  return {
    name: "deep",
    label: "Deep",
    description: "Answers with deeply nested details.",
    parameters: { type: "object", properties: {} },
    execute: () => {
      let details: Record<string, unknown> = {};
      for (let i = 0; i < depth; i++) details = { d: details };
      return { content: [{ type: "text", text: "deep" }], details };
    },
  };
}

const replies = (): FauxReply[] => [{ content: [fauxToolCall("deep", {}, "d1")] }, { content: "after the tool" }, { content: "second answer" }, { content: "third answer" }];

/** Replies by how many assistant messages the request holds: a resumed Agent gets the same one. */
function byTurn(replies: FauxReply[]) {
  const pick = (request: { messages: Message[] }): FauxReply => replies[request.messages.filter((m) => m.role === "assistant").length] ?? { content: "more" };
  return fauxProvider(Array.from({ length: 20 }, () => pick));
}

function agentOn(store: SessionStore, tools: AgentTool[] = [], script: FauxReply[] = [{ content: "first answer" }, { content: "second answer" }, { content: "third answer" }]): Agent {
  return new Agent({ initialState: { model, tools }, streamFn: byTurn(script), session: agentSession({ store, id: "s" }) });
}

describe("a journal that cannot be written (SPEC S6, T3)", () => {
  for (const how of ["throw", "reject"] as const) {
    it(`S6 T3: an append that ${how === "throw" ? "throws" : "rejects"} ends the run with a clear error, the Agent is idle, and resume() lets it prompt again`, async () => {
      // Appends: 1 created+transcript, 2 run_started, 3 the prompt's message: that one fails.
      const { memory, store } = failingOnce(3, how);
      const agent = agentOn(store);
      await agent.resume();
      await agent.prompt("hello");
      expect(agent.state.isStreaming).toBe(false);
      expect(agent.state.errorMessage).toMatch(/^The session journal could not be written: disk quota exceeded for bearer \[redacted\]\. The session "s" is closed: call resume\(\) to open it again from what is on record\.$/);
      expect(agent.state.errorMessage).not.toContain(SECRET);
      // The in-memory transcript shows no credential either (a run's error message lands in it).
      expect(JSON.stringify(agent.state.messages)).not.toContain(SECRET);
      await expect(agent.prompt("again")).rejects.toThrow(/call `await agent.resume\(\)`/);
      // Opened again: the journal's state (what was on record) comes back, and the Agent runs.
      await agent.resume();
      await agent.prompt("again");
      expect(agent.state.errorMessage).toBeUndefined();
      expect(userTexts(agent.state.messages)).toEqual(["again"]);
      expect(checkTranscript(agent.state.messages)).toEqual([]);
      expect(memory.load("s")!.entries.at(-1)!.type).toBe("run_ended");
    });
  }

  it("S6 T3: a tool result nested 100 000 deep on the file store: a clear error, idle, and the session resumes (the call is answered as interrupted)", async () => {
    const store = new FileSessionStore({ directory: join(root, "deep") });
    const agent = agentOn(store, [deepTool(100_000)], replies());
    await agent.resume();
    await agent.prompt("go deep");
    expect(agent.state.isStreaming).toBe(false);
    expect(agent.state.errorMessage).toMatch(/^The session journal could not be written: .*\. The session "s" is closed: call resume\(\) to open it again/);
    expect(agent.state.errorMessage).toContain("Maximum call stack size exceeded");
    expect(agent.state.errorMessage!.length).toBeLessThan(600);
    // What is on record is a valid journal up to the failed entry.
    const loaded = await settle(store.load("s"));
    expect(loaded!.entries.map((e) => e.type)).toContain("tool_started");
    expect(loaded!.entries.map((e) => e.type)).not.toContain("tool_ended");
    // A fresh, shallow tool for the resume: the call that never ended is answered, the run goes on.
    const again = agentOn(store, [{ ...deepTool(1), execute: () => ({ content: [{ type: "text", text: "shallow" }] }) }], replies());
    await again.resume();
    expect(again.state.isStreaming).toBe(false);
    expect(checkTranscript(again.state.messages)).toEqual([]);
    await again.prompt("next");
    expect(again.state.errorMessage).toBeUndefined();
  });
});
