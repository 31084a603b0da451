/**
 * Virtual time for runs whose tools or hooks return promises. `TestScheduler.run` flushes its
 * frames synchronously, so a promise a tool returns settles only after the virtual clock has
 * stopped, and the run stalls. {@link settleVirtualTime} drives a virtual-time scheduler one
 * frame at a time instead, letting promises settle between frames.
 *
 * @module
 */
import type { VirtualTimeScheduler } from "rxjs";

/** Options of {@link settleVirtualTime}. */
export interface SettleVirtualTimeOptions {
  /** Fails when the next action is due after this frame (a run that never ends). Default 1 000 000. */
  maxFrame?: number | undefined;
  /**
   * Real event-loop turns with nothing scheduled after which the run counts as settled. Raise it
   * for promise chains that hop through several macrotasks. Default 2.
   */
  idleTurns?: number | undefined;
  /**
   * Keep going until this settles (e.g. the promise `agent.prompt()` returned), however long
   * nothing is scheduled: for code that also waits on real timers or I/O. Fails after
   * `timeoutMs` of real time.
   */
  until?: PromiseLike<unknown> | undefined;
  /** Real milliseconds to wait for `until`. Default 10 000. */
  timeoutMs?: number | undefined;
}

// One real macrotask: every microtask (every `await` on a settled promise) has run by then.
const macrotask = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * Runs `scheduler`'s actions frame by frame, waiting one real macrotask between frames so that
 * promises returned by tools, hooks and listeners settle, until nothing is scheduled and nothing
 * new arrives. Resolves with the frame it stopped at. Use it instead of `TestScheduler.run` when
 * the code under test awaits; pass the scheduler to the Agent (or loop config) and to the faux
 * provider so their timestamps and pacing are virtual. Code that also waits on real timers or
 * I/O takes real time: pass `until` (the run's promise) so the helper waits for it rather than
 * stopping when the clock is idle. Not for use with fake timers (`vi.useFakeTimers()`): it
 * waits for a real `setTimeout`.
 *
 * @example
 * ```ts
 * const scheduler = new TestScheduler((a, b) => expect(a).toEqual(b));
 * const provider = fauxProvider(script, { scheduler });
 * const agent = new Agent({ streamFn: provider, scheduler, initialState: { model: provider.model, tools } });
 * const done = agent.prompt("hi"); // tools with `execute: async` are fine
 * await settleVirtualTime(scheduler, { until: done });
 * ```
 */
export async function settleVirtualTime(scheduler: VirtualTimeScheduler, options: SettleVirtualTimeOptions = {}): Promise<number> {
  const maxFrame = options.maxFrame ?? 1_000_000;
  const idleTurns = options.idleTurns ?? 2;
  const previousLimit = scheduler.maxFrames;
  let settled = options.until === undefined;
  options.until?.then(
    () => (settled = true),
    () => (settled = true),
  );
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  try {
    for (let idle = 0; idle < idleTurns || !settled; ) {
      await macrotask();
      const next = scheduler.actions[0];
      if (!next) {
        idle++;
        if (!settled && Date.now() > deadline) throw new Error(`settleVirtualTime: \`until\` did not settle within ${options.timeoutMs ?? 10_000} ms of real time (virtual frame ${scheduler.frame}, nothing scheduled).`);
        continue;
      }
      idle = 0;
      if (next.delay > maxFrame) throw new Error(`settleVirtualTime: the next action is due at frame ${next.delay}, after maxFrame ${maxFrame}: the run does not end.`);
      // Only what is due at the next frame: a promise settled in between may schedule earlier work.
      scheduler.maxFrames = next.delay;
      scheduler.flush();
    }
  } finally {
    scheduler.maxFrames = previousLimit;
  }
  return scheduler.frame;
}
