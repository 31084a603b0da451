/**
 * A crash after every journal entry, in one process (SPEC S5, S6): the scenario runs to the end
 * once; then, for every prefix of its journal, a fresh Agent resumes from exactly that prefix.
 * The SIGKILL sweep (`crash-sigkill.test.ts`) does the same with real processes and the file store.
 */
import { describe, expect, it } from "vitest";
import { replayJournal } from "../../src/session/session-image.js";
import { InMemorySessionStore } from "../../src/session/stores/memory-store.js";
import { INTERRUPTED_TOOL_TEXT } from "../../src/session/resume-plan.js";
import type { ToolResultMessage } from "../../src/index.js";
import { driveFresh, scenarioAgent, userTexts } from "./scenario.js";
import { storeWith } from "./store-contract.js";
import { checkTranscript } from "./transcript-invariants.js";

describe("a crash after any journal entry (SPEC S5, S6)", () => {
  it("S5: every prefix resumes to a valid transcript: nothing committed lost or doubled, each call answered once, never-replay effects at most once, queued messages delivered once", async () => {
    const store = new InMemorySessionStore();
    const effects: string[] = [];
    const agent = scenarioAgent(store, "s", { record: (id) => effects.push(id) });
    await agent.resume();
    await driveFresh(agent);
    const journal = store.load("s")!.entries;
    expect(checkTranscript(agent.state.messages)).toEqual([]);
    expect(effects).toEqual(["charge-1", "charge-2"]);
    expect(userTexts(agent.state.messages)).toEqual(["start", "steer-1", "follow-1"]);
    expect(journal.length).toBeGreaterThanOrEqual(30);

    const outcomes = new Map<string, number>();
    const recoveries = new Map<string, number>();
    const count = (what: string, _checked: void): void => void recoveries.set(what, (recoveries.get(what) ?? 0) + 1);
    for (let k = 1; k <= journal.length; k++) {
      const prefix = journal.slice(0, k);
      const before = replayJournal(prefix);
      const resumedEffects: string[] = [];
      const resumedReads: string[] = [];
      const seed = storeWith(prefix);
      const resumed = scenarioAgent(seed, "s", { record: (id) => resumedEffects.push(id), read: (id) => resumedReads.push(id) });
      await resumed.resume();
      const messages = resumed.state.messages;
      const where = `after entry ${k} (${prefix[k - 1]!.type})`;
      expect(checkTranscript(messages), where).toEqual([]);
      // What was committed stays, in place.
      expect(JSON.parse(JSON.stringify(messages.slice(0, before.messages.length))), where).toEqual(before.messages);
      // A charge whose tool executed before the crash may have taken effect: it must not run again.
      const chargeIds = new Set(prefix.filter((e) => e.type === "tool_started" && e.toolName === "charge").map((e) => (e as { toolCallId: string }).toolCallId));
      const startedBefore = prefix.filter((e) => e.type === "tool_executing" && chargeIds.has(e.toolCallId)).map((e) => (e as { toolCallId: string }).toolCallId);
      for (const id of ["charge-1", "charge-2"]) expect(startedBefore.filter((s) => s === id).length + resumedEffects.filter((r) => r === id).length, `${where}: ${id}`).toBeLessThanOrEqual(1);
      // Each message that was queued is delivered exactly once; none that was not.
      const queued = userTexts(prefix.flatMap((e) => (e.type === "queued" ? [e.message] : [])));
      const texts = userTexts(messages);
      for (const text of ["steer-1", "follow-1"]) expect(texts.filter((t) => t === text).length, `${where}: ${text}`).toBe(queued.includes(text) ? 1 : 0);
      // The resumed run finished: the journal ends with its end, and the Agent is idle.
      const after = replayJournal(seed.load("s")!.entries);
      expect(after.runOpen, where).toBe(false);
      expect(JSON.parse(JSON.stringify(after.messages)), where).toEqual(JSON.parse(JSON.stringify(messages)));
      expect(resumed.state.isStreaming).toBe(false);
      // What the resume did with calls a crash left open.
      const open = new Set(before.toolCalls.keys());
      const results = messages.slice(before.messages.length).filter((m): m is ToolResultMessage => (m as { role?: string }).role === "toolResult" && open.has((m as ToolResultMessage).toolCallId));
      for (const result of results) {
        const record = before.toolCalls.get(result.toolCallId)!;
        const text = JSON.stringify(result.content);
        if (record.ended) count("recorded outcome used", expect(text, where).toBe(JSON.stringify(record.ended.result.content)));
        else if (record.replay === "safe") count("safe call run again", expect(resumedReads, where).toContain(result.toolCallId));
        else if (record.executed === false) count("never call that had not executed run", expect(text, where).not.toContain(INTERRUPTED_TOOL_TEXT));
        else count("never call answered as interrupted", expect(text, where).toContain(INTERRUPTED_TOOL_TEXT));
      }
      const last = prefix[k - 1]!.type;
      outcomes.set(last, (outcomes.get(last) ?? 0) + 1);
    }
    expect([...recoveries.keys()].sort()).toEqual(["never call answered as interrupted", "never call that had not executed run", "recorded outcome used", "safe call run again"]);
    expect([...outcomes.keys()].sort()).toEqual(["created", "message", "queued", "run_ended", "run_started", "taken", "tool_ended", "tool_executing", "tool_started", "transcript"].sort());
  });
});

