/**
 * `microtask`, the asap scheduler's one use in the loop (SPEC L12): after the current task in
 * real time, on the virtual clock's current frame inside `TestScheduler.run`.
 */
import { timer } from "rxjs";
import { TestScheduler } from "rxjs/testing";
import { describe, expect, it } from "vitest";
import { microtask } from "../../src/rx/microtask.js";

describe("microtask", () => {
  it("runs once the current task is done, before a timer", async () => {
    const log: string[] = [];
    setTimeout(() => log.push("timeout"), 0);
    microtask(() => log.push("microtask"));
    log.push("task");
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(log).toEqual(["task", "microtask", "timeout"]);
  });

  it("does not run when unsubscribed before", async () => {
    const log: string[] = [];
    microtask(() => log.push("cancelled")).unsubscribe();
    microtask(() => log.push("kept"));
    await Promise.resolve();
    expect(log).toEqual(["kept"]);
  });

  it("L12: inside TestScheduler.run it runs on the virtual clock, in the frame it was asked in", () => {
    const scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    const frames: number[] = [];
    scheduler.run(() => {
      timer(3).subscribe(() => microtask(() => frames.push(scheduler.now())));
      microtask(() => frames.push(scheduler.now())).unsubscribe();
    });
    expect(frames).toEqual([3]);
  });
});
