/**
 * A queued message is on record before anything after it is shown (SPEC S6): once `steer()` or
 * `followUp()` returned, the next event the Agent tells (to its state, `events$` and listeners)
 * waits until the `queued` entry is durable, even an event that writes no entry of its own
 * (`turn_start`, `message_start`, `message_update`, `tool_execution_update`). A crash can then
 * never lose a steering message that a UI showed later events after.
 */
import { Observable, Subject } from "rxjs";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { AgentEvent, AgentTool } from "../../src/index.js";
import type { JournalEntry } from "../../src/session/journal-entry.js";
import { agentSession } from "../../src/session/agent-session.js";
import type { AppendCondition } from "../../src/session/session-store.js";
import { InMemorySessionStore } from "../../src/session/stores/memory-store.js";
import { fauxProvider, fauxToolCall } from "../../src/testing/index.js";
import { userTexts } from "./scenario.js";
import { storeAppending } from "./store-contract.js";

const model = { id: "faux-1", api: "faux", provider: "faux" };

/** A memory store whose append of a `queued` entry is held until `release()`; every other append is synchronous. */
function holdingQueued() {
  const memory = new InMemorySessionStore();
  const held = new Subject<void>();
  let holding = 0;
  const store = storeAppending(memory, (id: string, entries: readonly JournalEntry[], condition: AppendCondition) => {
    if (!entries.some((e) => e.type === "queued")) return memory.append(id, entries, condition);
    holding++;
    return new Observable<number>((subscriber) => {
      const sub = held.subscribe(() => {
        holding--;
        subscriber.next(memory.append(id, entries, condition));
        subscriber.complete();
      });
      return () => sub.unsubscribe();
    });
  });
  return { memory, store, release: () => held.next(), holding: () => holding };
}

/** Lets every pending promise and immediate run (no wall clock involved). */
const drain = async (): Promise<void> => {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** A tool that reports progress twice (`tool_execution_update`, no entry of its own) before its result. */
const progress: AgentTool = {
  name: "progress",
  label: "Progress",
  description: "Reports progress.",
  parameters: { type: "object", properties: {} },
  execute: async (_id, _params, _signal, onUpdate) => {
    onUpdate?.({ content: [{ type: "text", text: "half" }] });
    onUpdate?.({ content: [{ type: "text", text: "almost" }] });
    return { content: [{ type: "text", text: "done" }] };
  },
};

describe("a queued entry is durable before the next event is shown (SPEC S6)", () => {
  for (const [name, trigger, call] of [
    ["steer() on the user's message_end: the streamed answer (message_start, message_update) waits", "message_end", "steer"],
    ["followUp() on agent_start: turn_start waits", "agent_start", "followUp"],
    ["steer() on tool_execution_start: the tool's progress updates wait", "tool_execution_start", "steer"],
  ] as const) {
    it(`S6: ${name}`, async () => {
      const { memory, store, release, holding } = holdingQueued();
      const agent = new Agent({
        initialState: { model, tools: [progress] },
        streamFn: fauxProvider([{ content: [fauxToolCall("progress", {}, "p1")] }, { content: "a fairly long answer streamed in several chunks" }, { content: "ack" }], { chunkSize: 4 }),
        session: agentSession({ store, id: "s" }),
      });
      await agent.resume();
      let queuedAt: number | undefined;
      const seen: AgentEvent[] = [];
      agent.subscribe((event) => {
        seen.push(event);
        if (queuedAt === undefined && event.type === trigger) {
          if (call === "steer") agent.steer("late");
          else agent.followUp("late");
          queuedAt = seen.length;
        }
      });
      const done = agent.prompt("go");
      await drain();
      expect(queuedAt).toBeDefined();
      expect(holding()).toBe(1);
      // Nothing after the steer is shown while its entry is not on record.
      expect(seen.slice(queuedAt).map((e) => e.type)).toEqual([]);
      release();
      await done;
      expect(seen.length).toBeGreaterThan(queuedAt!);
      expect(agent.state.errorMessage).toBeUndefined();
      const entries = memory.load("s")!.entries;
      expect(entries.filter((e) => e.type === "queued")).toHaveLength(1);
      expect(entries.at(-1)!.type).toBe("run_ended");
    });
  }

  it("S6 L12: with a synchronous store nothing waits: steer() inside a listener, the run stays synchronous", () => {
    const store = new InMemorySessionStore();
    const agent = new Agent({ initialState: { model }, streamFn: fauxProvider([{ content: "hi" }, { content: "ack" }]), session: agentSession({ store, id: "s" }) });
    agent.resume();
    let steered = false;
    agent.subscribe((event) => {
      if (!steered && event.type === "message_end") {
        steered = true;
        agent.steer("late");
      }
    });
    let settled = false;
    agent.prompt$("go").subscribe({ complete: () => (settled = true) });
    expect(settled).toBe(true);
    expect(userTexts(agent.state.messages)).toEqual(["go", "late"]);
  });
});
