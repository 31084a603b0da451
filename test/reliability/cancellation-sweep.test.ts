/**
 * cancellation at every point: one rich scenario (thinking, text, a parallel batch with
 * progress, a sequential batch, an override, a prepared message, steering and follow-up, hooks
 * and listeners that take frames), cancelled from inside the subscriber's `next` at every event
 * index in turn — by unsubscribing, and separately by aborting — through `agentLoop`,
 * `runAgentLoop` with a waiting emit, and `Agent.prompt$`, with a synchronous and a paced
 * provider; and aborted from inside the listener (the waiting emit) at every event index. Every
 * cancelled run must keep every invariant.
 */
import { describe, expect, it } from "vitest";
import { runScenario } from "./harness.js";
import { violations } from "./replay.js";
import type { Scenario } from "./scenario.js";

function rich(via: Scenario["via"], providerDelay: Scenario["providerDelay"], promises = false): Scenario {
  const slow = (frames: number, updates: number) => ({ kind: "observable" as const, frames, updates, outcome: "ok" as const });
  return {
    via,
    steeringMode: "one-at-a-time",
    followUpMode: "all",
    toolExecution: "parallel",
    providerDelay,
    steerBeforeStart: 0,
    turns: [
      {
        stop: "natural",
        fault: "none",
        blocks: [
          { t: "thinking", text: "let me look" },
          { t: "text", text: "Checking." },
          { t: "call", id: "a", tool: "t0", args: "valid", behaviour: slow(3, 2) },
          { t: "call", id: "b", tool: "slow", args: "numericString", behaviour: slow(5, 0) },
          { t: "call", id: "c", tool: "t1", args: "valid", behaviour: { kind: promises ? "promise" : "plain", frames: 2, updates: 1, outcome: "ok" } },
          { t: "call", id: "d", tool: "nope", args: "valid", behaviour: slow(1, 0) },
        ],
      },
      {
        stop: "natural",
        fault: "none",
        blocks: [
          { t: "text", text: "More." },
          { t: "call", id: "e", tool: "seq", args: "valid", behaviour: slow(2, 1) },
          { t: "call", id: "f", tool: "t0", args: "valid", behaviour: { kind: "plain", frames: 0, updates: 0, outcome: "throw" } },
        ],
      },
      { stop: "natural", fault: "none", blocks: [{ t: "text", text: "Done for now." }] },
      { stop: "natural", fault: "none", blocks: [{ t: "text", text: "Follow-up answered." }] },
    ],
    hooks: {
      before: ["allow", "allow", "allow", "allow", "allow"],
      after: ["keep", "override", "keep"],
      finishTurn: null,
      prepareNextTurn: [1, 0],
      hookDelay: promises ? 1 : 0,
      hookAsync: promises ? "promise" : "observable",
      throwIn: null,
      listenerDelay: via === "loop" || providerDelay === "sync" ? 0 : 1,
    },
    actions: [
      { frame: 1, kind: "steer" },
      { frame: 2, kind: "followUp" },
    ],
  };
}

const combos: [Scenario["via"], Scenario["providerDelay"]][] = [
  ["loop", "sync"],
  ["loop", 1],
  ["loop-emit", "sync"],
  ["loop-emit", 1],
  ["agent", "sync"],
  ["agent", 1],
];

describe("cancellation at every event index", () => {
  // Hooks and one tool as promise-likes settled on the TestScheduler, hooks taking a frame each.
  for (const via of ["loop", "loop-emit", "agent"] as const) {
    for (const kind of ["unsubscribe", "abort"] as const) {
      it(`L10 ${via}, promise hooks and tool: ${kind} at every event`, () => {
        const base = rich(via, 1, true);
        expect(violations(base).violations).toEqual([]);
        const total = runScenario(base).subscriberEvents.length;
        for (let index = 0; index < total; index++) {
          const found = violations({ ...base, cancelAtEvent: { index, kind } }).violations;
          if (found.length > 0) throw new Error(`${kind} at event #${index} (${via}, promises):\n  - ${found.join("\n  - ")}`);
        }
      });
    }
  }

  // A listener (the waiting emit) that aborts synchronously, from inside its own call: what the
  // abort ends is told after that call returned, in order, to the listener and the subscriber alike.
  for (const via of ["loop-emit", "agent"] as const) {
    for (const [delay, promises] of [["sync", false], [1, false], [1, true]] as const) {
      it(`L10, A5 ${via}, provider ${delay === "sync" ? "synchronous" : "paced"}${promises ? ", promise hooks and tool" : ""}: a listener aborts at every event`, () => {
        const base = rich(via, delay, promises);
        const total = runScenario(base).events.length;
        for (let index = 0; index < total; index++) {
          const scenario: Scenario = { ...base, abortInListenerAt: index };
          const { trace, violations: found } = violations(scenario);
          if (found.length > 0) throw new Error(`abort in the listener at event #${index} (${via}, provider ${delay}${promises ? ", promises" : ""}):\n  - ${found.join("\n  - ")}`);
          if (index < total - 1) expect(trace.cancel?.kind).toBe("abort");
        }
      });
    }
  }
  // The listener that aborts comes after one that waits: it is called once that one settled.
  for (const leading of ["settles-at-once", "promise"] as const) {
    it(`L10, A5 agent, provider paced, a listener before it ${leading === "promise" ? "returning a promise" : "returning an Observable that settles at once"}: a listener aborts at every event`, () => {
      const base: Scenario = { ...rich("agent", 1), leadingListener: leading };
      const total = runScenario(base).events.length;
      expect(total).toBeGreaterThan(40);
      for (let index = 0; index < total; index++) {
        const { violations: found } = violations({ ...base, abortInListenerAt: index });
        if (found.length > 0) throw new Error(`abort in the listener at event #${index} (after a ${leading} listener):\n  - ${found.join("\n  - ")}`);
      }
    });
  }

  for (const [via, delay] of combos) {
    for (const kind of ["unsubscribe", "abort"] as const) {
      it(`L10 ${via}, provider ${delay === "sync" ? "synchronous" : "paced"}: ${kind} at every event`, () => {
        const base = rich(via, delay);
        const full = runScenario(base);
        // The uncancelled run is rich: several turns, tools, steering and follow-up.
        expect(violations(base).violations).toEqual([]);
        const total = full.subscriberEvents.length;
        expect(total).toBeGreaterThan(40);
        expect(full.executes.length).toBeGreaterThanOrEqual(4);
        for (let index = 0; index < total; index++) {
          const scenario: Scenario = { ...base, cancelAtEvent: { index, kind } };
          const { trace, violations: found } = violations(scenario);
          if (found.length > 0) throw new Error(`${kind} at event #${index} (${via}, provider ${delay}):\n  - ${found.join("\n  - ")}`);
          // The cancel happened while the run was active, except at the very last event.
          if (index < total - 1) expect(trace.cancel?.kind).toBe(kind);
        }
      });
    }
  }
});
