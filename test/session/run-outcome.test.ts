/**
 * The last run's outcome across processes (SPEC A9, S1, S5): `run_ended` carries it, a resumed
 * session shows it again, a journal of an earlier release gets what its transcript makes clear,
 * and a crashed run a resume closes is put on record with the outcome its transcript shows.
 */
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { AgentTool, RunOutcome } from "../../src/index.js";
import { checkEntry, type JournalEntry } from "../../src/session/journal-entry.js";
import { ABORTED_RUN_TEXT } from "../../src/session/resume-plan.js";
import { replayJournal } from "../../src/session/session-image.js";
import { SessionCorruptError } from "../../src/session/session-errors.js";
import type { SessionStore } from "../../src/session/session-store.js";
import { InMemorySessionStore } from "../../src/session/stores/memory-store.js";
import { agentSession } from "../../src/session/agent-session.js";
import { fauxProvider, fauxToolCall, type FauxScriptEntry } from "../../src/testing/index.js";
import { storeWith } from "./store-contract.js";

const model = { id: "faux-1", api: "faux", provider: "faux" };
const echo: AgentTool = { name: "echo", label: "Echo", description: "Echoes.", parameters: { type: "object" }, execute: () => ({ content: [{ type: "text", text: "echoed" }] }) };

function agentOn(store: SessionStore, script: FauxScriptEntry[], owner: string, extra: { limits?: { maxTurns: number } } = {}): Agent {
  return new Agent({ initialState: { model, tools: [echo] }, streamFn: fauxProvider(script), session: agentSession({ store, id: "s", owner }), ...extra });
}

/** One prompt on a fresh session whose provider answers with `script`; the store, its session closed. */
async function sessionAfter(script: FauxScriptEntry[], extra: { limits?: { maxTurns: number } } = {}): Promise<InMemorySessionStore> {
  const store = new InMemorySessionStore();
  const agent = agentOn(store, script, "a", extra);
  await agent.resume();
  await agent.prompt("go");
  await agent.closeSession();
  return store;
}

/** What another process sees when it resumes `store`'s session. */
async function resumedState(store: SessionStore): Promise<{ outcome: RunOutcome | undefined; errorMessage: string | undefined }> {
  const agent = agentOn(store, [], "b");
  await agent.resume();
  return { outcome: agent.state.outcome, errorMessage: agent.state.errorMessage };
}

const runEnded = (entries: readonly JournalEntry[]) => entries.filter((e): e is Extract<JournalEntry, { type: "run_ended" }> => e.type === "run_ended");

/** The session's journal as a release before `run_ended.outcome` would have written it. */
function withoutOutcomes(store: InMemorySessionStore): InMemorySessionStore {
  return storeWith(store.load("s")!.entries.map((e) => (e.type === "run_ended" ? (({ outcome: _, ...rest }) => rest)(e) : e)) as JournalEntry[]);
}

const errorAnswer: FauxScriptEntry = { content: "", stopReason: "error", errorMessage: "HTTP 500: upstream failed" };

describe("A9 S1 S5: the last run's outcome is journaled and restored", () => {
  it("A9 S1: run_ended carries the outcome; a resumed session shows the last run's outcome with its errorMessage", async () => {
    const failed = await sessionAfter([errorAnswer]);
    expect(runEnded(failed.load("s")!.entries).map((e) => e.outcome)).toEqual(["failed"]);
    expect(await resumedState(failed)).toEqual({ outcome: "failed", errorMessage: "HTTP 500: upstream failed" });

    const completed = await sessionAfter([{ content: "done" }]);
    expect(await resumedState(completed)).toEqual({ outcome: "completed", errorMessage: undefined });

    const limited = await sessionAfter([{ content: [fauxToolCall("echo", {}, "c1")] }, { content: "never" }], { limits: { maxTurns: 1 } });
    expect(await resumedState(limited)).toEqual({ outcome: "limit", errorMessage: undefined });
  });

  it("A9 S1: a journal of an earlier release (run_ended without outcome): an error answer last is failed, an aborted one aborted, anything else stays unknown", async () => {
    expect(await resumedState(withoutOutcomes(await sessionAfter([errorAnswer])))).toEqual({ outcome: "failed", errorMessage: "HTTP 500: upstream failed" });
    const aborted = await sessionAfter([{ content: "", stopReason: "aborted", errorMessage: "Request was aborted" }]);
    expect((await resumedState(withoutOutcomes(aborted))).outcome).toBe("aborted");
    expect(await resumedState(withoutOutcomes(await sessionAfter([{ content: "done" }])))).toEqual({ outcome: undefined, errorMessage: undefined });
  });

  it("A9 S5: a crashed run that a resume closes gets the outcome its transcript makes clear, and its run_ended says so", async () => {
    const store = await sessionAfter([errorAnswer]);
    const entries = store.load("s")!.entries;
    // Stopped after the error answer was committed, before the run's end was on record.
    const crashed = storeWith(entries.slice(0, entries.findIndex((e) => e.type === "run_ended")));
    expect(replayJournal(crashed.load("s")!.entries).runOpen).toBe(true);
    expect(await resumedState(crashed)).toEqual({ outcome: "failed", errorMessage: "HTTP 500: upstream failed" });
    expect(runEnded(crashed.load("s")!.entries).map((e) => e.outcome)).toEqual(["failed"]);
  });

  it("A9 S5: a run aborted and cut short by a crash is closed as aborted", async () => {
    const store = await sessionAfter([{ content: "done" }]);
    const entries = store.load("s")!.entries;
    const started = entries.findIndex((e) => e.type === "run_started");
    const stopping: JournalEntry = { v: 1, seq: started + 2, type: "run_stopping", at: 0, reason: "aborted" };
    const crashed = storeWith([...entries.slice(0, started + 1), stopping]);
    expect(await resumedState(crashed)).toEqual({ outcome: "aborted", errorMessage: ABORTED_RUN_TEXT });
    expect(runEnded(crashed.load("s")!.entries).map((e) => e.outcome)).toEqual(["aborted"]);
  });

  it("S1: a run_ended entry whose outcome is not one of the four is a corrupt journal", () => {
    const entry = { v: 1, seq: 3, type: "run_ended", at: 0, outcome: "crashed" };
    expect(() => checkEntry(entry, "s", 3)).toThrow(SessionCorruptError);
    expect(() => checkEntry(entry, "s", 3)).toThrow(/outcome must be completed, aborted, failed or limit/);
  });
});
