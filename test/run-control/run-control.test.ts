/**
 * `runControl` as a run uses it (SPEC R1, R2): the options it refuses at call time, and the run's
 * time limit measured from the run's own start on the loop's scheduler.
 */
import { filter, switchMap, tap, timer } from "rxjs";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../../src/loop/agent-loop.js";
import type { AgentEvent, AgentLoopConfig } from "../../src/index.js";
import { fauxProvider } from "../../src/testing/index.js";
import { agentEnd, contextWith, model, user } from "../helpers/fixtures.js";
import { labelsByFrame, newScheduler } from "../helpers/marbles.js";

describe("R1: the options run control refuses", () => {
  it("R1: a requestApproval that is no function is refused at call time, by name", () => {
    const start = (requestApproval: unknown) => () => agentLoop([user("go")], contextWith([]), { model, requestApproval } as unknown as AgentLoopConfig, undefined, fauxProvider([]));
    expect(start("yes")).toThrow(new TypeError("requestApproval must be a function."));
    expect(start(() => ({ approved: true }))).not.toThrow();
    expect(start(undefined)).not.toThrow();
  });
});

describe("R2: the run's time limit", () => {
  it("R2: a run subscribed at frame 4 with timeoutMs 6 ends at frame 10, having used 6 ms", () => {
    const scheduler = newScheduler();
    scheduler.run(({ expectObservable, flush }) => {
      const provider = fauxProvider([{ content: "a long answer that streams slowly, one delta per frame" }], { scheduler, chunkSize: 2 });
      const events: AgentEvent[] = [];
      const run$ = timer(4).pipe(switchMap(() => agentLoop([user("go")], contextWith([]), { model, scheduler, limits: { timeoutMs: 6 } }, undefined, provider)));
      expectObservable(run$.pipe(tap((e) => events.push(e)), filter((e) => e.type === "agent_end"), labelsByFrame(scheduler))).toBe("10ms (a|)", { a: ["agent_end"] });
      flush();
      expect(agentEnd(events).limit).toEqual({ limit: "timeoutMs", value: 6, used: 6, message: "The run reached its time limit (6 ms)." });
    });
  });
});
