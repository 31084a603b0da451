/**
 * Every bug the scenario generator found, as a named test with the seed that found it
 * and the (shrunk) scenario, so it stays fixed whatever the generator draws next.
 */
import { take } from "rxjs";
import { Ajv } from "ajv";
import { describe, expect, it, vi } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { ajvValidator } from "../../src/tools/validators/ajv-validator.js";
import { agentLoop } from "../../src/loop/agent-loop.js";
import type { AgentEvent, AgentMessage, Message } from "../../src/index.js";
import { fauxProvider, fauxToolCall } from "../../src/testing/index.js";
import { contextWith, model, textOf, textResult, tool, user } from "../helpers/fixtures.js";
import { label } from "./harness.js";
import { violations } from "./replay.js";
import type { Hooks, Scenario } from "./scenario.js";

const NO_HOOKS: Hooks = { before: null, after: null, finishTurn: null, prepareNextTurn: null, hookDelay: 0, hookAsync: "observable", throwIn: null, listenerDelay: 0 };

function scenario(partial: Partial<Scenario> & Pick<Scenario, "via" | "turns">): Scenario {
  return { steeringMode: "all", followUpMode: "all", toolExecution: "parallel", providerDelay: "sync", actions: [], steerBeforeStart: 0, ...partial, hooks: { ...NO_HOOKS, ...partial.hooks } };
}

function clean(s: Scenario) {
  const { trace, violations: found } = violations(s);
  expect(found).toEqual([]);
  return trace;
}

const contentOf = (m: AgentMessage): unknown => (m as { content?: unknown }).content;
const oneCall = { t: "call" as const, id: "c0_0", tool: "t0" as const, args: "valid" as const, behaviour: { kind: "plain" as const, frames: 0, updates: 0, outcome: "ok" as const } };

describe("regressions found by the generator", () => {
  it("R1 (fc.sample seed 1, run 9): a steering message polled before a failing prepareNextTurn is committed, not dropped", () => {
    for (const via of ["loop", "loop-emit", "agent"] as const) {
      const trace = clean(
        scenario({
          via,
          providerDelay: 1,
          turns: [{ blocks: [oneCall], stop: "natural", fault: "none" }],
          hooks: { ...NO_HOOKS, prepareNextTurn: [0], throwIn: { hook: "prepareNextTurn", at: 0, how: "sync" } },
          actions: [{ frame: 1, kind: "steer" }],
        }),
      );
      const committed = trace.events.flatMap((e) => (e.event.type === "message_end" ? [e.event.message] : []));
      expect(committed.map(contentOf)).toContain("steer 0");
      // ... after the tool batch, before the failure's assistant message.
      expect((committed[committed.length - 1] as Message).role).toBe("assistant");
    }
  });

  it("R1b: a listener failing on agent_start keeps the prompt in the transcript", () => {
    const trace = clean(scenario({ via: "agent", turns: [{ blocks: [{ t: "text", text: "hi" }], stop: "natural", fault: "none" }], hooks: { ...NO_HOOKS, throwIn: { hook: "listener", at: 0, how: "sync" } } }));
    expect(trace.finalState!.messages.map((m) => textOf(m))).toContain("go");
  });

  it("R2 (fc.sample seed 1, run 21): the subscriber sees the event a listener threw on, so its brackets hold (agent_start first)", () => {
    for (const at of [0, 1, 2, 4, 5]) {
      const trace = clean(scenario({ via: "agent", turns: [{ blocks: [{ t: "text", text: "hi" }], stop: "natural", fault: "none" }], hooks: { ...NO_HOOKS, throwIn: { hook: "listener", at, how: "sync" } } }));
      expect(trace.subscriberEvents.map(label)[0]).toBe("agent_start");
      expect(trace.subscriberEvents).toEqual(trace.events.map((e) => e.event));
    }
  });

  it("R3 (fc.sample seed 1, run 532): when finishTurn fails after an error/aborted response, that response's tool calls get no results", () => {
    for (const stop of ["error", "aborted"] as const) {
      const trace = clean(
        scenario({
          via: "loop-emit",
          turns: [{ blocks: [oneCall], stop, fault: "none" }],
          hooks: { ...NO_HOOKS, throwIn: { hook: "finishTurn", at: 0, how: "observable" } },
        }),
      );
      const roles = trace.events.flatMap((e) => (e.event.type === "message_end" ? [(e.event.message as Message).role] : []));
      expect(roles).toEqual(["user", "assistant", "assistant"]);
      expect(trace.executes).toEqual([]);
    }
  });

  it("R4 (seed 695773516): after a listener fails mid-response, the abort sent to the provider is not emitted or committed as one more message", () => {
    const trace = clean(scenario({ via: "loop-emit", turns: [{ blocks: [], stop: "natural", fault: "none" }], hooks: { ...NO_HOOKS, throwIn: { hook: "listener", at: 4, how: "sync" } } }));
    expect(trace.events.map((e) => label(e.event))).toEqual([
      "agent_start",
      "turn_start",
      "message_start:user",
      "message_end:user",
      "message_start:assistant:stop",
      "message_end:assistant:error",
      "turn_end",
      "agent_end",
    ]);
  });

  it("R5 (cancellation sweep, index 0): agentLoop(...).pipe(take(1)) on a synchronous run stops it — no provider request, no tool runs", () => {
    let executed = 0;
    const provider = fauxProvider([{ content: [fauxToolCall("t", {}, "a")] }, { content: "done" }]);
    const t = tool("t", () => (executed++, textResult("ok")));
    const seen: AgentEvent[] = [];
    agentLoop([user("go")], contextWith([t]), { model }, undefined, provider).pipe(take(1)).subscribe((e) => seen.push(e));
    expect(seen.map((e) => e.type)).toEqual(["agent_start"]);
    expect(provider.requests.length).toBe(0);
    expect(executed).toBe(0);
  });

  it("R6 (cancellation sweep, index 0): Agent.prompt$().pipe(take(1)) on a synchronous run aborts it at once; the run still settles", () => {
    let executed = 0;
    const provider = fauxProvider([{ content: [fauxToolCall("t", {}, "a")] }, { content: "done" }]);
    const agent = new Agent({ initialState: { model, tools: [tool("t", () => (executed++, textResult("ok")))] }, streamFn: provider });
    agent.prompt$("go").pipe(take(1)).subscribe();
    expect(executed).toBe(0);
    expect(provider.requests.length).toBe(0);
    expect(agent.state.isStreaming).toBe(false);
    const last = agent.state.messages[agent.state.messages.length - 1] as Message;
    expect(last.role === "assistant" && last.stopReason).toBe("aborted");
  });

  it("R7 (soak, 10 000 Agents: +42 MB retained): with ajvValidator, tools built per Agent with equal schemas share one compiled validator", async () => {
    const compile = vi.spyOn(Ajv.prototype, "compile");
    try {
      for (let i = 0; i < 5; i++) {
        const schema = { type: "object", description: "R7 per-agent tool", properties: { n: { type: "number" } } };
        const agent = new Agent({ initialState: { model, tools: [tool("t", () => textResult("ok"), schema)] }, validator: ajvValidator, streamFn: fauxProvider([{ content: [fauxToolCall("t", { n: i })] }, { content: "done" }]) });
        await agent.prompt("go");
        expect((agent.state.messages.find((m) => (m as Message).role === "toolResult") as { isError: boolean }).isError).toBe(false);
      }
      expect(compile).toHaveBeenCalledTimes(1);
    } finally {
      compile.mockRestore();
    }
  });

  it("R8 (fc.sample seed 11, run 226): a failing run whose listeners return promises still ends in virtual time (no Promise.resolve of our own)", () => {
    for (const via of ["loop-emit", "agent"] as const) {
      const trace = clean(
        scenario({
          via,
          providerDelay: 1,
          turns: [{ blocks: [{ t: "text", text: "hi" }], stop: "natural", fault: "none" }],
          hooks: { ...NO_HOOKS, listenerDelay: 1, hookAsync: "promise", throwIn: { hook: "convertToLlm", at: 0, how: "sync" } },
        }),
      );
      expect(trace.completed).toBe(true);
      expect(trace.events.map((e) => label(e.event)).slice(-3)).toEqual(["message_end:assistant:error", "turn_end", "agent_end"]);
    }
  });
});

describe("run-control regressions found by the generator", () => {
  const call = (id: string, toolName: "t0" | "t1") => ({ t: "call" as const, id, tool: toolName, args: "valid" as const, behaviour: { kind: "plain" as const, frames: 0, updates: 0, outcome: "ok" as const } });

  it("R1 L10 (seed 1327851409 and 592748912): an abort from the listener of tool_approval_end is not a second answer", () => {
    for (const via of ["loop", "loop-emit", "agent"] as const) {
      const base = scenario({
        via,
        turns: [{ blocks: [call("c0_0", "t0"), call("c0_1", "t1"), call("c0_2", "t0")], stop: "natural", fault: "none" }],
        control: { approvals: { c0_1: "approve" }, approvalDelay: 1 },
      });
      // The subscriber aborts on the approval's end itself.
      const index = clean(base).subscriberEvents.findIndex((e) => e.type === "tool_approval_end");
      expect(index, via).toBeGreaterThan(0);
      const trace = clean({ ...base, eventActions: [{ index, kind: "abort" }] });
      const ends = trace.events.filter((e) => e.event.type === "tool_approval_end").length;
      expect(ends, via).toBe(1);
    }
  });

  it("R9 A5 (listener sweep, events 4 and 33): a listener that aborts is not called again from inside its own call, and every observer sees the same order", () => {
    const slow = (frames: number, updates: number) => ({ kind: "observable" as const, frames, updates, outcome: "ok" as const });
    for (const via of ["loop-emit", "agent"] as const) {
      const base = scenario({
        via,
        providerDelay: 1,
        turns: [
          {
            blocks: [{ t: "text", text: "Checking." }, { t: "call", id: "a", tool: "t0", args: "valid", behaviour: slow(3, 1) }, { t: "call", id: "b", tool: "slow", args: "valid", behaviour: slow(5, 0) }],
            stop: "natural",
            fault: "none",
          },
        ],
      });
      const events = clean(base).events.map((e) => e.event);
      // The response: the abort ends it from inside the listener's call for its first update.
      const update = events.findIndex((e) => e.type === "message_update");
      // The batch: the abort makes the running Observable tool answer at once.
      const progress = events.findIndex((e) => e.type === "tool_execution_update");
      expect(update, via).toBeGreaterThan(0);
      expect(progress, via).toBeGreaterThan(update);
      for (const at of [update, progress]) {
        const trace = clean({ ...base, abortInListenerAt: at });
        expect(trace.listenerReentries, `${via} at ${at}`).toEqual([]);
        expect(trace.cancel?.kind).toBe("abort");
      }
    }
  });
});
