/**
 * Generated whole runs in virtual time, every invariant checked on every run.
 *
 * Each property draws scenarios (scripted model turns with text, thinking, 0–5 tool calls,
 * `length` / `error` / `aborted` stops and provider faults; tools that take frames, report
 * progress, throw, return errors or `terminate`, as Observables or plain values; hook decisions
 * and hook failures; steering, follow-up, abort and unsubscribe at random frames, an abort from
 * inside the listener at a random event; both queue
 * modes and both execution modes; approvals, run limits and concurrency limits) and runs each one
 * twice under `TestScheduler.run`.
 *
 * A failure prints its seed and a replay command:
 *   RXAGENT_SEED=<seed> RXAGENT_PATH="<path>" npx vitest run test/reliability/generated.test.ts -t "<property>"
 */
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { checkScenarios, runCounter } from "./replay.js";
import { scenarioArb, type Scenario } from "./scenario.js";

/** Scenarios that always cancel the run at some frame, so cancellation is hit often. */
function cancelling(vias: Scenario["via"][]): fc.Arbitrary<Scenario> {
  return fc
    .tuple(scenarioArb(vias), fc.integer({ min: 0, max: 40 }), fc.constantFrom("abort" as const, "unsubscribe" as const))
    .map(([scenario, frame, kind]) => ({ ...scenario, actions: [...scenario.actions, { frame, kind }].sort((a, b) => a.frame - b.frame) }));
}

/**
 * Scenarios whose listener (the waiting emit) aborts the run from inside its call at some event,
 * the Agent's sometimes after a listener that waits (SPEC A5: it is never called from inside
 * its own call).
 */
function abortingInListener(): fc.Arbitrary<Scenario> {
  return fc
    .tuple(scenarioArb(["loop-emit", "agent"]), fc.integer({ min: 0, max: 60 }), fc.constantFrom(undefined, "settles-at-once" as const, "promise" as const))
    .map(([scenario, index, leading]) => ({ ...scenario, abortInListenerAt: index, ...(leading && scenario.via === "agent" ? { leadingListener: leading } : {}) }));
}

describe("generated runs keep every invariant", () => {
  it("agentLoop (no emit): 800 runs", () => {
    checkScenarios("agentLoop (no emit)", scenarioArb(["loop"]), 800);
  });

  it("runAgentLoop with a waiting emit: 700 runs", () => {
    checkScenarios("runAgentLoop with a waiting emit", scenarioArb(["loop-emit"]), 700);
  });

  it("Agent.prompt$ (and a second run): 1 000 runs", () => {
    checkScenarios("Agent.prompt$", scenarioArb(["agent"]), 1000);
  });

  it("R1 R2 R3: run control (approvals answered, denied or never answered then aborted; limits; concurrency) on every entry point: 600 runs", () => {
    checkScenarios("run control", scenarioArb(["loop", "loop-emit", "agent"], "always"), 600);
  });

  it("every entry point, cancelled at a random frame: 500 runs", () => {
    checkScenarios("cancelled at a random frame", cancelling(["loop", "loop-emit", "agent"]), 500);
  });

  it("A5 L10: a listener aborts from inside its call at a random event: 400 runs", () => {
    checkScenarios("a listener aborts", abortingInListener(), 400);
  });

  afterAll(() => {
    // At least 2 000 generated runs per `npm test` (each also run a second time for determinism).
    expect(runCounter.runs).toBeGreaterThanOrEqual(process.env.RXAGENT_PATH ? 1 : 2000);
  });
});
