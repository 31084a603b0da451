/**
 * Forking (SPEC S7): a new session from a committed point of another, with its queues, no open
 * run, and nothing shared.
 */
import { lastValueFrom, type Observable } from "rxjs";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { Message } from "../../src/index.js";
import { FORKED_TOOL_TEXT, forkSession, type ForkResult } from "../../src/session/fork-session.js";
import { replayJournal } from "../../src/session/session-image.js";
import { SessionConflictError } from "../../src/session/session-errors.js";
import { InMemorySessionStore } from "../../src/session/stores/memory-store.js";
import { agentSession } from "../../src/session/agent-session.js";
import { fauxProvider, fauxToolCall } from "../../src/testing/index.js";
import { userTexts } from "./scenario.js";

const model = { id: "faux-1", api: "faux", provider: "faux" };
const agentOn = (store: InMemorySessionStore, id: string, replies: string[]) =>
  new Agent({ initialState: { systemPrompt: "Be brief.", model }, streamFn: fauxProvider(replies.map((content) => ({ content }))), session: agentSession({ store, id }) });
const settled = (result: Observable<ForkResult>): Promise<ForkResult> => lastValueFrom(result);

describe("forkSession (SPEC S7)", () => {
  async function source(): Promise<InMemorySessionStore> {
    const store = new InMemorySessionStore();
    const agent = agentOn(store, "main", ["one", "two"]);
    await agent.resume();
    await agent.prompt("first");
    await agent.prompt("second");
    agent.followUp("queued later");
    return store;
  }

  it("S7: with the first N messages, the fork continues on its own: retry from a message with another prompt", async () => {
    const store = await source();
    const result = await settled(forkSession(store, "main", "retry", { messages: 3 }));
    expect(result).toMatchObject({ id: "retry", messages: 3 });
    const retry = agentOn(store, "retry", ["other answer"]);
    await retry.resume();
    expect(userTexts(retry.state.messages)).toEqual(["first"]);
    expect(userTexts(retry.peekQueuedMessages())).toEqual(["queued later"]);
    retry.clearFollowUpQueue();
    await retry.prompt("second, put differently");
    expect(retry.state.messages.map((m) => (m as Message).role)).toEqual(["system", "user", "assistant", "user", "assistant"]);
    // The source is as it was.
    const main = replayJournal(store.load("main")!.entries);
    expect(userTexts(main.messages)).toEqual(["first", "second"]);
    expect(userTexts(main.followUp.map((q) => q.message))).toEqual(["queued later"]);
    expect(store.load("retry")!.entries[0]).toMatchObject({ type: "created", sessionId: "retry", forkedFrom: { sessionId: "main", seq: result.fromSeq } });
  });

  it("S7: at a journal entry, the fork is the session as it was then, with no open run", async () => {
    const store = await source();
    const entries = store.load("main")!.entries;
    const firstRunEnd = entries.findIndex((e) => e.type === "run_ended") + 1;
    await settled(forkSession(store, "main", "then", { seq: firstRunEnd }));
    const then = replayJournal(store.load("then")!.entries);
    expect(userTexts(then.messages)).toEqual(["first"]);
    expect(then.runOpen).toBe(false);
    const midRun = entries.findIndex((e) => e.type === "run_started") + 2;
    await settled(forkSession(store, "main", "mid", { seq: midRun }));
    expect(replayJournal(store.load("mid")!.entries).runOpen).toBe(false);
  });

  it("S7: a fork taken inside a tool batch answers the calls that had no result there, so the model gets a valid transcript", async () => {
    const store = new InMemorySessionStore();
    const echo = { name: "echo", label: "Echo", description: "Echoes.", parameters: { type: "object" }, execute: () => ({ content: [{ type: "text" as const, text: "ok" }] }) };
    const agent = new Agent({
      initialState: { model, tools: [echo] },
      streamFn: fauxProvider([{ content: [fauxToolCall("echo", {}, "a"), fauxToolCall("echo", {}, "b")] }, { content: "done" }]),
      session: agentSession({ store, id: "main" }),
    });
    await agent.resume();
    await agent.prompt("go");
    const entries = store.load("main")!.entries;
    const firstResult = entries.findIndex((e) => e.type === "message" && (e.message as Message).role === "toolResult") + 1;
    await settled(forkSession(store, "main", "mid-batch", { seq: firstResult }));
    const fork = replayJournal(store.load("mid-batch")!.entries).messages as Message[];
    expect(fork.map((m) => (m.role === "toolResult" ? `${m.role}:${m.toolCallId}` : m.role))).toEqual(["system", "user", "assistant", "toolResult:a", "toolResult:b"]);
    expect(fork[4]).toMatchObject({ isError: true, content: [{ type: "text", text: FORKED_TOOL_TEXT }] });
    await settled(forkSession(store, "main", "cut-batch", { messages: 3 }));
    expect((replayJournal(store.load("cut-batch")!.entries).messages as Message[]).map((m) => m.role)).toEqual(["system", "user", "assistant", "toolResult", "toolResult"]);
  });

  it("S7: the fork shares nothing: changing what one holds leaves the other", async () => {
    const store = await source();
    await settled(forkSession(store, "main", "copy", { messages: 5 }));
    const copy = replayJournal(store.load("copy")!.entries);
    (copy.messages[1] as { content: unknown }).content = "changed";
    expect(userTexts(replayJournal(store.load("main")!.entries).messages)).toEqual(["first", "second"]);
    expect(userTexts(replayJournal(store.load("copy")!.entries).messages)).toEqual(["first", "second"]);
  });

  it("S7: an unknown source, a point outside it and an existing target are clear errors", async () => {
    const store = await source();
    await expect(settled(forkSession(store, "nobody", "x", { messages: 0 }))).rejects.toThrow('Session "nobody" does not exist: nothing to fork.');
    await expect(settled(forkSession(store, "main", "x", { messages: 9 }))).rejects.toThrow('session "main" has 5 messages; cannot fork with 9.');
    await expect(settled(forkSession(store, "main", "x", { seq: 0 }))).rejects.toThrow(/has entries 1 to \d+; there is no entry 0/);
    await expect(settled(forkSession(store, "main", "main", { messages: 1 }))).rejects.toThrow("forkSession() needs a new id for the fork.");
    await settled(forkSession(store, "main", "taken", { messages: 1 }));
    await expect(settled(forkSession(store, "main", "taken", { messages: 2 }))).rejects.toThrow(SessionConflictError);
    expect(userTexts(replayJournal(store.load("taken")!.entries).messages)).toEqual([]);
  });
});
