/**
 * `microtask`: `asapScheduler.schedule(work)` for code that needs one callback after the current
 * task, without the asap scheduler's actions and immediate provider in an app's bundle.
 *
 * @module
 */
import { asyncScheduler, type Unsubscribable } from "rxjs";
import { insideTestSchedulerRun } from "./virtual-run.js";

/**
 * Runs `work` once the current task is done, unless unsubscribed first. Outside
 * `TestScheduler.run()` that is a microtask. Inside it, a microtask would come after the virtual
 * clock stopped, so the work runs on the virtual clock's current frame instead (rxjs points
 * `asyncScheduler` at it there), as the asap scheduler's would (SPEC L12).
 *
 * ```text
 * task:       [--- current task ---]
 * microtask:                        w
 * ```
 *
 * @example
 * ```ts
 * const pending = microtask(() => show(latest));
 * pending.unsubscribe(); // before it ran: it never runs
 * ```
 */
export function microtask(work: () => void): Unsubscribable {
  if (insideTestSchedulerRun()) return asyncScheduler.schedule(work);
  let cancelled = false;
  queueMicrotask(() => {
    if (!cancelled) work();
  });
  return {
    unsubscribe: () => {
      cancelled = true;
    },
  };
}
