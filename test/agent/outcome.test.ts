/**
 * The Agent's `state.outcome` (SPEC A9, L15): how the last run ended — completed, aborted by the
 * user, failed, or ended by a limit — set from `agent_end`, cleared when a run begins, and
 * `failed` when the Agent could not end a run cleanly. `errorMessage` stays as pi sets it.
 * Runs in virtual time through `prompt$()` where nothing returns a promise.
 */
import { distinctUntilChanged, map, Subject, timer } from "rxjs";
import { describe, expect, it } from "vitest";
import type { AgentEvent, AgentStateSnapshot, AssistantMessage, RunOutcome } from "../../src/index.js";
import { fauxProvider, fauxToolCall, type FauxScriptEntry } from "../../src/testing/index.js";
import { Agent, type AgentOptions } from "../../src/agent/agent.js";
import { agentSession } from "../../src/session/agent-session.js";
import { InMemorySessionStore } from "../../src/session/stores/memory-store.js";
import { storeAppending } from "../session/store-contract.js";
import { agentWith, model, newScheduler, textResult, tool } from "./support.js";

const echo = tool("echo", () => textResult("echoed"));

/** An Agent on the faux model whose provider answers one event per frame of `scheduler`. */
function scheduledAgent(script: FauxScriptEntry[], options: Partial<AgentOptions> = {}) {
  const scheduler = newScheduler();
  const provider = fauxProvider(script, { scheduler, delay: 1 });
  const agent = agentWith({ scheduler, streamFn: provider, initialState: { tools: [echo] }, ...options });
  return { scheduler, agent, provider };
}

/** The outcome on each `agent_end` the run told. */
function ends(events: AgentEvent[]): RunOutcome[] {
  return events.flatMap((e) => (e.type === "agent_end" ? [e.outcome] : []));
}

describe("A9: state.outcome tells how the last run ended", () => {
  it("A9: completed — the state says so after the run, and says nothing while a run goes", () => {
    const { scheduler, agent } = scheduledAgent([{ content: [fauxToolCall("echo", {}, "c1")] }, { content: "done" }, { content: "again" }]);
    const seen: (RunOutcome | undefined)[] = [];
    const events: AgentEvent[] = [];
    agent.subscribe((event) => {
      events.push(event);
      if (event.type === "turn_start") seen.push(agent.state.outcome);
    });
    expect(agent.state.outcome).toBeUndefined();
    scheduler.run(() => agent.prompt$("go").subscribe());
    expect(agent.state.outcome).toBe("completed");
    expect(agent.state.errorMessage).toBeUndefined();
    // A new run clears it at its start.
    scheduler.run(() => agent.prompt$("again").subscribe());
    expect(seen).toEqual([undefined, undefined, undefined]);
    expect(ends(events)).toEqual(["completed", "completed"]);
    expect(agent.state.outcome).toBe("completed");
  });

  it("A9: aborted — agent.abort() mid-stream: outcome aborted, errorMessage exactly as pi's", () => {
    const { scheduler, agent } = scheduledAgent([{ content: "a long answer that streams for a while" }]);
    scheduler.run(() => {
      scheduler.schedule(() => agent.abort(), 3);
      agent.prompt$("go").subscribe();
    });
    expect(agent.state.outcome).toBe("aborted");
    expect(agent.state.errorMessage).toBe("Request was aborted");
  });

  it("A9: aborted — unsubscribing from prompt$() aborts the run, and the state says it was stopped", () => {
    const { scheduler, agent } = scheduledAgent([{ content: "a long answer that streams for a while" }]);
    scheduler.run(() => {
      const subscription = agent.prompt$("go").subscribe();
      scheduler.schedule(() => subscription.unsubscribe(), 3);
    });
    expect(agent.state.isStreaming).toBe(false);
    expect(agent.state.outcome).toBe("aborted");
  });

  it("A9: failed — the provider answers with an error", () => {
    const { scheduler, agent } = scheduledAgent([{ content: "", stopReason: "error", errorMessage: "HTTP 401: invalid key" }]);
    scheduler.run(() => agent.prompt$("go").subscribe());
    expect(agent.state.outcome).toBe("failed");
    expect(agent.state.errorMessage).toBe("HTTP 401: invalid key");
  });

  it("A9: failed — a listener throws mid-run (the normalized failure, SPEC A6)", () => {
    const { scheduler, agent } = scheduledAgent([{ content: [fauxToolCall("echo", {}, "c1")] }, { content: "never" }]);
    agent.subscribe((event) => {
      if (event.type === "tool_execution_end") throw new Error("the UI broke");
    });
    scheduler.run(() => agent.prompt$("go").subscribe());
    expect(agent.state.outcome).toBe("failed");
    expect(agent.state.errorMessage).toBe("the UI broke");
  });

  it("A9: failed — a listener fails on agent_end: the event said completed, the state says the run failed, with pi's errorMessage", () => {
    const { scheduler, agent } = scheduledAgent([{ content: "done" }]);
    const told: RunOutcome[] = [];
    agent.subscribe((event) => {
      if (event.type !== "agent_end") return;
      told.push(event.outcome);
      throw new Error("could not save");
    });
    scheduler.run(() => agent.prompt$("go").subscribe());
    expect(told).toEqual(["completed"]);
    expect(agent.state.outcome).toBe("failed");
    expect(agent.state.errorMessage).toBe("A listener failed on agent_end: could not save");
  });

  it("A9: limit — a run limit ended the run: outcome limit, state.limit says which", () => {
    const { scheduler, agent } = scheduledAgent([{ content: [fauxToolCall("echo", {}, "c1")] }, { content: "never" }], { limits: { maxTurns: 1 } });
    scheduler.run(() => agent.prompt$("go").subscribe());
    expect(agent.state.outcome).toBe("limit");
    expect(agent.state.limit?.limit).toBe("maxTurns");
    expect(agent.state.errorMessage).toBeUndefined();
  });

  it("A9: state$ snapshots carry the outcome; reset() clears it", () => {
    const { scheduler, agent } = scheduledAgent([{ content: "a long answer that streams for a while" }]);
    const outcomes: (RunOutcome | undefined)[] = [];
    scheduler.run(() => {
      agent.state$.pipe(map((s: AgentStateSnapshot) => s.outcome), distinctUntilChanged()).subscribe((o) => outcomes.push(o));
      scheduler.schedule(() => agent.abort(), 3);
      agent.prompt$("go").subscribe();
    });
    expect(outcomes).toEqual([undefined, "aborted"]);
    agent.reset();
    expect(agent.state.outcome).toBeUndefined();
  });
});

describe("A9 L15: what failed stays failed, whatever comes after", () => {
  const errorAnswer: FauxScriptEntry = { content: "", stopReason: "error", errorMessage: "HTTP 401: invalid key" };

  it("A9 L15: failed — the provider answers with an error, then the user presses Stop while a message_end listener holds the run", () => {
    const { scheduler, agent } = scheduledAgent([errorAnswer]);
    agent.subscribe((event) => {
      if (event.type !== "message_end" || (event.message as AssistantMessage).role !== "assistant") return;
      agent.abort();
      return timer(5, scheduler);
    });
    scheduler.run(() => agent.prompt$("go").subscribe());
    expect(agent.state.outcome).toBe("failed");
    expect(agent.state.errorMessage).toBe("HTTP 401: invalid key");
  });

  it("A9 L15 R2: failed — the provider answers with an error, then timeoutMs passes while a turn_end listener holds the run: no limit", () => {
    const { scheduler, agent } = scheduledAgent([errorAnswer], { limits: { timeoutMs: 10 } });
    agent.subscribe((event) => (event.type === "turn_end" ? timer(50, scheduler) : undefined));
    scheduler.run(() => agent.prompt$("go").subscribe());
    expect(agent.state.outcome).toBe("failed");
    expect(agent.state.limit).toBeUndefined();
    expect(agent.state.errorMessage).toBe("HTTP 401: invalid key");
  });

  it("A9 L15 A6: failed — after agent.abort(), a listener throws (a bug in the UI, not the abort's error): the answer is aborted, as in pi; the outcome is failed", () => {
    const { scheduler, agent } = scheduledAgent([{ content: "a long answer that streams for a while" }]);
    agent.subscribe((event) => {
      if (event.type === "message_end" && (event.message as AssistantMessage).stopReason === "aborted") throw new TypeError("Cannot read properties of undefined (reading 'text')");
    });
    scheduler.run(() => {
      scheduler.schedule(() => agent.abort(), 3);
      agent.prompt$("go").subscribe();
    });
    expect((agent.state.messages.at(-1) as AssistantMessage).stopReason).toBe("aborted");
    expect(agent.state.outcome).toBe("failed");
    expect(agent.state.errorMessage).toBe("Cannot read properties of undefined (reading 'text')");
  });
});

describe("A9: a stream given to the Agent fails", () => {
  it("A9 Q4: a steerFrom() stream fails while no run goes: outcome failed, errorMessage says which stream", () => {
    const { scheduler, agent } = scheduledAgent([{ content: "done" }]);
    scheduler.run(() => agent.prompt$("go").subscribe());
    expect(agent.state.outcome).toBe("completed");
    const typing = new Subject<string>();
    agent.steerFrom(typing);
    typing.error(new Error("socket closed"));
    expect(agent.state.outcome).toBe("failed");
    expect(agent.state.errorMessage).toBe("The stream given to steerFrom() failed: socket closed");
  });

  it("A9 R1: an answerApprovals() stream fails, or gives an answer nobody waits for, while no run goes: outcome failed", () => {
    const { agent } = scheduledAgent([]);
    const answers = new Subject<{ toolCallId: string; approved: boolean }>();
    agent.answerApprovals(answers);
    answers.next({ toolCallId: "nobody", approved: true });
    expect(agent.state.outcome).toBe("failed");
    expect(agent.state.errorMessage).toBe('No tool call "nobody" is waiting for approval.');
    agent.reset();
    answers.error(new Error("socket closed"));
    expect(agent.state.outcome).toBe("failed");
    expect(agent.state.errorMessage).toBe("The stream given to answerApprovals() failed: socket closed");
  });

  it("A9 Q4: a steerFrom() stream fails while a run goes: errorMessage says so, the outcome is what the run ends with", () => {
    const { scheduler, agent } = scheduledAgent([{ content: "a long answer that streams for a while" }]);
    const typing = new Subject<string>();
    agent.steerFrom(typing);
    let during: unknown = "not read";
    scheduler.run(() => {
      scheduler.schedule(() => {
        typing.error(new Error("socket closed"));
        // While the run goes, its outcome is still to come: the stream's failure does not decide it.
        during = agent.state.outcome;
      }, 3);
      agent.prompt$("go").subscribe();
    });
    expect(during).toBeUndefined();
    expect(agent.state.isStreaming).toBe(false);
    expect(agent.state.outcome).toBe("completed");
    expect(agent.state.errorMessage).toBe("The stream given to steerFrom() failed: socket closed");
  });
});

describe("A9 S6: the Agent could not end the run cleanly", () => {
  it("A9 S6: the session journal cannot record the run's end: the state says the run failed, with the journal's error", async () => {
    const memory = new InMemorySessionStore();
    const store = storeAppending(memory, (id, entries, condition) => {
      if (entries.some((entry) => entry.type === "run_ended")) throw new Error("disk full");
      return memory.append(id, entries, condition);
    });
    const agent = new Agent({ initialState: { model }, streamFn: fauxProvider([{ content: "done" }]), session: agentSession({ store, id: "s" }) });
    await agent.resume();
    await agent.prompt("go");
    expect(agent.state.outcome).toBe("failed");
    expect(agent.state.errorMessage).toMatch(/^The session journal could not be written: disk full/);
  });
});
