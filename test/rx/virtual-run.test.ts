/**
 * Telling a `TestScheduler.run()` callback from real time, and which thenables would stall it
 * (SPEC L12).
 */
import { TestScheduler } from "rxjs/testing";
import { describe, expect, it } from "vitest";
import { ignoreOutcome, insideTestSchedulerRun, promiseInVirtualRunError, stallsVirtualRun } from "../../src/rx/virtual-run.js";

describe("L12: promises inside TestScheduler.run", () => {
  it("L12: insideTestSchedulerRun is true only inside run()", () => {
    const scheduler = new TestScheduler(() => undefined);
    let inside = false;
    scheduler.run(() => {
      inside = insideTestSchedulerRun();
    });
    expect(inside).toBe(true);
    expect(insideTestSchedulerRun()).toBe(false);
    // a scheduler that is not running is not virtual time for anybody else
    expect(new TestScheduler(() => undefined).now()).toBe(0);
    expect(insideTestSchedulerRun()).toBe(false);
  });

  it("L12: a native promise stalls a run inside run(); a thenable of the test's own does not; outside run() nothing does", () => {
    const scheduler = new TestScheduler(() => undefined);
    const own: PromiseLike<number> = { then: (resolve) => (resolve?.(1), own) as never };
    const verdicts: boolean[] = [];
    scheduler.run(() => {
      const promise = Promise.resolve(1);
      verdicts.push(stallsVirtualRun(promise), stallsVirtualRun(own));
    });
    verdicts.push(stallsVirtualRun(Promise.resolve(1)));
    expect(verdicts).toEqual([true, false, false]);
  });

  it("the error names the way out, and a refused promise that rejects is not an unhandled rejection", async () => {
    expect(promiseInVirtualRunError().message).toMatch(/settleVirtualTime\(scheduler\) from rxagent\/testing/);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      ignoreOutcome(Promise.reject(new Error("late")));
      await new Promise((resolve) => setTimeout(resolve, 10));
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
    expect(unhandled).toEqual([]);
  });
});
