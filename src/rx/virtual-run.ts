/**
 * Promises inside `TestScheduler.run` (SPEC L12): `run()` flushes its frames synchronously and
 * stops the virtual clock when its callback returns, before any promise can settle, so a run
 * that waits on one would stall without a word. The loop refuses such a promise instead, with
 * an error that names the way out.
 *
 * @module
 */
import { asyncScheduler } from "rxjs";

/**
 * Whether this code runs inside `TestScheduler.run()`. There, rxjs points its timestamp provider
 * at the virtual clock, so `asyncScheduler.now()` reads a frame number (near 0) instead of the
 * epoch time `Date.now()` reads (~1.7e12). Only public API is read.
 */
export function insideTestSchedulerRun(): boolean {
  return Date.now() - asyncScheduler.now() > 1e11;
}

/**
 * Whether waiting for `value` would stall a run inside `TestScheduler.run()`: a native promise
 * settles in a microtask, after `run()` returned. A thenable of another kind may settle on the
 * virtual clock itself (a test's own), so it is waited for as usual.
 */
export function stallsVirtualRun(value: PromiseLike<unknown>): boolean {
  return value instanceof Promise && insideTestSchedulerRun();
}

/**
 * A frame after anything a test schedules: the refused promise's error is thrown there, once the
 * run it ended (with the error as its result) is over.
 */
const AFTER_EVERYTHING = 1e12;

/**
 * The error for a promise returned inside `TestScheduler.run()`. The run ends with it as its
 * result, and `run()` itself throws it once everything else in virtual time happened, so the
 * test fails with these words, not only the tool's result. (Its clock then stands at that late
 * frame, and a `run()` whose callback threw first leaves the throw queued: a failed test's
 * scheduler is not for reuse.)
 */
export function promiseInVirtualRunError(): Error {
  const error = refusal();
  if (insideTestSchedulerRun()) {
    asyncScheduler.schedule(() => {
      throw error;
    }, AFTER_EVERYTHING);
  }
  return error;
}

function refusal(): Error {
  return new Error(
    "A provider, tool, hook or listener returned a promise (or an async iterable) inside TestScheduler.run(): run() stops the virtual clock before a promise settles, so the run would stall. " +
      "Return a value or an Observable (e.g. timer(5).pipe(map(() => result))), or leave run() out and drive the scheduler with settleVirtualTime(scheduler) from rxagent/testing.",
  );
}

/** Keeps a refused promise's rejection from becoming an unhandled one. */
export function ignoreOutcome(promise: PromiseLike<unknown>): void {
  promise.then(undefined, () => undefined);
}
