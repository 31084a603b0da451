/**
 * Whether a `replay: "never"` call really ran (SPEC S5): `tool_executing` is on record before its
 * tool is called. A resume runs a call that stopped in preflight (`beforeToolCall`) or after its
 * approval, before it executed, as usual — it never ran; a call whose tool executed and never
 * finished gets the "may or may not have taken effect" answer, as does any started call of a
 * journal written before `tool_executing` existed.
 */
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { AgentTool, Message, ToolResultMessage } from "../../src/index.js";
import type { JournalEntry } from "../../src/session/journal-entry.js";
import { agentSession } from "../../src/session/agent-session.js";
import { INTERRUPTED_TOOL_TEXT } from "../../src/session/resume-plan.js";
import { replayJournal } from "../../src/session/session-image.js";
import { InMemorySessionStore } from "../../src/session/stores/memory-store.js";
import { fauxProvider, fauxToolCall, type FauxReply } from "../../src/testing/index.js";
import { storeWith } from "./store-contract.js";
import { checkTranscript } from "./transcript-invariants.js";

const model = { id: "faux-1", api: "faux", provider: "faux" };

function byTurn(replies: FauxReply[]) {
  const pick = (request: { messages: Message[] }): FauxReply => replies[request.messages.filter((m) => m.role === "assistant").length] ?? { content: "more" };
  return fauxProvider(Array.from({ length: 20 }, () => pick));
}

/** A `replay: "never"` charge; `approval` makes it wait for a human first. */
function charge(effects: string[], approval = false): AgentTool {
  return {
    name: "charge",
    label: "Charge",
    description: "Charges the card.",
    parameters: { type: "object", properties: { amount: { type: "number" } } },
    ...(approval ? { needsApproval: true } : {}),
    execute: (id) => {
      effects.push(id);
      return { content: [{ type: "text", text: "charged" }] };
    },
  };
}

function agentOn(store: InMemorySessionStore, effects: string[], approval = false, asked: string[] = [], answer = true): Agent {
  const agent = new Agent({
    initialState: { model, tools: [charge(effects, approval)] },
    streamFn: byTurn([{ content: [fauxToolCall("charge", { amount: 5 }, "c1")] }, { content: "done" }]),
    session: agentSession({ store, id: "s" }),
    // Preflight with a hook of its own: a process may stop inside it.
    beforeToolCall: () => undefined,
  });
  agent.subscribe((event) => {
    if (event.type !== "tool_approval_request") return;
    asked.push(event.toolCallId);
    // A resumed Agent answers nothing: a call it runs must use the answer on record.
    if (answer) agent.approve(event.toolCallId);
  });
  return agent;
}

/** The whole run's journal. */
async function journalOf(approval: boolean): Promise<JournalEntry[]> {
  const store = new InMemorySessionStore();
  const effects: string[] = [];
  const agent = agentOn(store, effects, approval);
  await agent.resume();
  await agent.prompt("pay");
  expect(effects).toEqual(["c1"]);
  return store.load("s")!.entries.slice();
}

/** Resumes the journal cut after the last entry `cut` picks; the charge's effects and result text. */
async function resumeAfter(entries: JournalEntry[], cut: (entry: JournalEntry) => boolean, approval = false): Promise<{ effects: string[]; result: string; asked: string[] }> {
  const at = entries.map(cut).lastIndexOf(true);
  expect(at).toBeGreaterThan(0);
  const prefix = entries.slice(0, at + 1);
  expect(replayJournal(prefix).runOpen).toBe(true);
  const effects: string[] = [];
  const asked: string[] = [];
  const resumed = agentOn(storeWith(prefix), effects, approval, asked, false);
  let idle = false;
  void resumed.resume().then(() => (idle = true));
  for (let i = 0; i < 50 && !idle; i++) await new Promise((resolve) => setImmediate(resolve));
  expect(idle, "the resumed run waited for an answer").toBe(true);
  expect(checkTranscript(resumed.state.messages)).toEqual([]);
  expect(resumed.state.isStreaming).toBe(false);
  const result = resumed.state.messages.find((m): m is ToolResultMessage => (m as Message).role === "toolResult")!;
  return { effects, result: JSON.stringify(result.content), asked };
}

const isType = (type: JournalEntry["type"]) => (entry: JournalEntry) => entry.type === type;

describe("a never-replay call that never executed (SPEC S5)", () => {
  it("S5: the journal holds tool_executing between tool_started and tool_ended", async () => {
    const types = (await journalOf(false)).map((e) => e.type);
    expect(types.indexOf("tool_started")).toBeLessThan(types.indexOf("tool_executing"));
    expect(types.indexOf("tool_executing")).toBeLessThan(types.indexOf("tool_ended"));
  });

  it("S5: stopped in preflight (after tool_started, before tool_executing): the resume runs it, once, and the model gets its real result", async () => {
    const { effects, result } = await resumeAfter(await journalOf(false), isType("tool_started"));
    expect(effects).toEqual(["c1"]);
    expect(result).toContain("charged");
    expect(result).not.toContain(INTERRUPTED_TOOL_TEXT);
  });

  it("S5 R1: stopped after its approval, before it executed: the resume runs it with the recorded answer, no one has to answer again", async () => {
    const entries = await journalOf(true);
    expect(entries.map((e) => e.type)).toContain("approval_answered");
    const { effects, result, asked } = await resumeAfter(entries, isType("approval_answered"), true);
    expect(asked.length).toBeLessThanOrEqual(1);
    expect(effects).toEqual(["c1"]);
    expect(result).toContain("charged");
  });

  it("S5: its tool executed and never finished: not run again, answered as interrupted", async () => {
    const { effects, result } = await resumeAfter(await journalOf(false), isType("tool_executing"));
    expect(effects).toEqual([]);
    expect(result).toContain(INTERRUPTED_TOOL_TEXT);
  });

  it("S5: a journal written before tool_executing existed (tool_started without tracksExecution): answered as interrupted, as before", async () => {
    const old = (await journalOf(false)).filter((e) => e.type !== "tool_executing").map((e, i) => {
      const copy = { ...e, seq: i + 1 } as JournalEntry & { tracksExecution?: true };
      delete copy.tracksExecution;
      return copy as JournalEntry;
    });
    const { effects, result } = await resumeAfter(old, isType("tool_started"));
    expect(effects).toEqual([]);
    expect(result).toContain(INTERRUPTED_TOOL_TEXT);
  });
});
