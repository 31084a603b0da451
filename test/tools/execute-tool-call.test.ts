/**
 * One prepared call executed (SPEC T1, T3, R2, R4, L10): progress updates, then exactly one
 * result; time limits and abort grace on the loop's scheduler; nothing scheduled or listened to
 * after the call ended or was torn down.
 */
import { getEventListeners } from "node:events";
import { config, map, NEVER, Observable, type SchedulerAction, type SchedulerLike, Subject, type Subscription } from "rxjs";

import { afterEach, describe, expect, it } from "vitest";
import type { AgentTool, AgentToolResult } from "../../src/index.js";
import { executeToolCall, timedOutText, type ToolExecutionNote } from "../../src/tools/execute-tool-call.js";
import type { PreparedToolCall } from "../../src/tools/prepare-tool-call.js";
import { textOf, textResult, tool, toolEnvironment } from "../helpers/fixtures.js";
import { newScheduler } from "../helpers/marbles.js";

/** A scheduler that counts the actions it holds that have not run or been cancelled. */
class CountingScheduler implements SchedulerLike {
  private readonly live = new Set<Subscription>();
  /** Actions scheduled so far. */
  scheduled = 0;
  constructor(private readonly inner: SchedulerLike) {}
  now(): number {
    return this.inner.now();
  }
  schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay?: number, state?: T): Subscription {
    const live = this.live;
    const subscription: Subscription = this.inner.schedule(
      function (this: SchedulerAction<T>, s?: T) {
        live.delete(subscription);
        work.call(this, s);
      },
      delay,
      state,
    );
    live.add(subscription);
    this.scheduled++;
    subscription.add(() => live.delete(subscription));
    return subscription;
  }
  /** Actions scheduled and neither run nor unsubscribed. */
  get pending(): number {
    return this.live.size;
  }
}

function prepare(t: AgentTool): PreparedToolCall {
  return { kind: "prepared", toolCall: { type: "toolCall", id: "c1", name: t.name, arguments: {} }, tool: t, args: {} };
}


/** `u:<text>` for an update, `R:<text>` for the result (with `!` when it is an error). */
function label(note: ToolExecutionNote): string {
  return note.type === "update" ? `u:${textOf(note.partialResult)}` : `R:${textOf(note.result)}${note.isError ? "!" : ""}`;
}

/** What a call reports, collected; `done` once it completed. */
function collect(source: Observable<ToolExecutionNote>): { notes: ToolExecutionNote[]; labels: string[]; done: () => boolean; subscription: Subscription } {
  const notes: ToolExecutionNote[] = [];
  let completed = false;
  const subscription = source.subscribe({ next: (n) => notes.push(n), complete: () => (completed = true), error: (e) => expect.unreachable(String(e)) });
  return { notes, get labels() { return notes.map(label); }, done: () => completed, subscription };
}

const results = (texts: Record<string, string>): Record<string, AgentToolResult> => Object.fromEntries(Object.entries(texts).map(([k, v]) => [k, textResult(v)]));

describe("T1: an Observable tool's progress", () => {
  function timeline(marbles: string, values: Record<string, string>): string[] {
    const scheduler = newScheduler();
    const lines: string[] = [];
    scheduler.run(({ cold }) => {
      const t = tool("t", () => cold(marbles, results(values)));
      executeToolCall(prepare(t), toolEnvironment({ scheduler })).subscribe((note) => lines.push(`${scheduler.now()} ${label(note)}`));
    });
    return lines;
  }

  it("T1: values followed by another are updates; the one completion follows in its frame is the result only", () => {
    expect(timeline("-p-q-(r|)", { p: "p", q: "q", r: "r" })).toEqual(["1 u:p", "3 u:q", "5 R:r"]);
  });

  it("T1: a value standing when its frame ends is an update, and the result when the tool completes later", () => {
    expect(timeline("-p-q-r--|", { p: "p", q: "q", r: "r" })).toEqual(["1 u:p", "3 u:q", "5 u:r", "8 R:r"]);
  });

  it("T1: two values in one frame: the first at once, the second when the frame ends", () => {
    expect(timeline("(pq)--(r|)", { p: "p", q: "q", r: "r" })).toEqual(["0 u:p", "0 u:q", "6 R:r"]);
  });

  it("T1: a value and an error in one frame: no update, the error is the result; a value that stood is an update first", () => {
    expect(timeline("-(p#)", { p: "p" })).toEqual(["1 R:error!"]);
    expect(timeline("-p-#", { p: "p" })).toEqual(["1 u:p", "3 R:error!"]);
  });

  it("T1: what a tool emits while it is subscribed: shown when its subscribe returns; a tool that completed there costs no scheduled action", () => {
    const scheduler = newScheduler();
    const counting = new CountingScheduler(scheduler);
    const lines: string[] = [];
    scheduler.run(() => {
      const sync = (complete: boolean) =>
        tool("t", () => new Observable<AgentToolResult>((s) => {
          s.next(textResult("p"));
          s.next(textResult("q"));
          if (complete) s.complete();
        }));
      executeToolCall(prepare(sync(true)), toolEnvironment({ scheduler: counting })).subscribe((note) => lines.push(`a ${label(note)}`));
      expect(counting.scheduled).toBe(0);
      // p is shown when q arrives; q when the task that subscribed ends.
      executeToolCall(prepare(sync(false)), toolEnvironment({ scheduler: counting })).subscribe((note) => lines.push(`b ${label(note)}`));
      expect(lines).toEqual(["a u:p", "a R:q", "b u:p"]);
      expect(counting.pending).toBe(1);
    });
    expect(lines).toEqual(["a u:p", "a R:q", "b u:p", "b u:q"]);
  });

  it("T1: one value while subscribed, the result later: the value is an update once the subscribing task ends", () => {
    const scheduler = newScheduler();
    const lines: string[] = [];
    scheduler.run(({ cold }) => {
      const t = tool("t", () => new Observable<AgentToolResult>((s) => {
        s.next(textResult("p"));
        return cold("--(r|)", results({ r: "r" })).subscribe(s);
      }));
      executeToolCall(prepare(t), toolEnvironment({ scheduler })).subscribe((note) => lines.push(`${scheduler.now()} ${label(note)}`));
      expect(lines).toEqual([]);
    });
    expect(lines).toEqual(["0 u:p", "2 R:r"]);
  });

  it("L10: unsubscribed while a value waits to be shown: no update, and no action left on the scheduler", () => {
    const scheduler = newScheduler();
    const counting = new CountingScheduler(scheduler);
    const values = new Subject<AgentToolResult>();
    const seen = collect(executeToolCall(prepare(tool("t", () => values)), toolEnvironment({ scheduler: counting })));
    values.next(textResult("p"));
    expect(counting.pending).toBe(1);
    seen.subscription.unsubscribe();
    expect(counting.pending).toBe(0);
    expect(values.observed).toBe(false);
    scheduler.flush();
    expect(seen.labels).toEqual([]);
  });

  it("T3: an error or completion while a value waits to be shown cancels the wait", () => {
    for (const end of ["error", "complete"] as const) {
      const scheduler = newScheduler();
      const counting = new CountingScheduler(scheduler);
      const values = new Subject<AgentToolResult>();
      const seen = collect(executeToolCall(prepare(tool("t", () => values)), toolEnvironment({ scheduler: counting })));
      values.next(textResult("p"));
      if (end === "error") values.error(new Error("broke"));
      else values.complete();
      expect(counting.pending).toBe(0);
      scheduler.flush();
      expect(seen.labels).toEqual([end === "error" ? "R:broke!" : "R:p"]);
    }
  });

  it("T1: without a scheduler, a standing value is shown in a later task (asap)", async () => {
    const values = new Subject<AgentToolResult>();
    const seen = collect(executeToolCall(prepare(tool("t", () => values)), toolEnvironment()));
    values.next(textResult("p"));
    expect(seen.labels).toEqual([]);
    await Promise.resolve();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(seen.labels).toEqual(["u:p"]);
    values.next(textResult("q"));
    values.complete();
    expect(seen.labels).toEqual(["u:p", "R:q"]);
  });
});

describe("T3: the result", () => {
  it("T3: durationMs is measured with env.now from the start of the call, never below 0; no cancellation key when none applies", () => {
    let clock = 100;
    const t = tool("t", () => new Observable<AgentToolResult>((s) => {
      clock = 140;
      s.next(textResult("r"));
      s.complete();
    }));
    const seen = collect(executeToolCall(prepare(t), toolEnvironment({ now: () => clock })));
    expect(seen.notes).toEqual([{ type: "result", result: textResult("r"), isError: false, durationMs: 40 }]);
    expect("cancellation" in seen.notes[0]!).toBe(false);
    // A clock that went back while the tool ran.
    const backwards = collect(executeToolCall(prepare(tool("t", () => ((clock = 0), textResult("r")))), toolEnvironment({ now: () => clock })));
    expect((backwards.notes[0] as { durationMs: number }).durationMs).toBe(0);
  });

  it("T3: a promise tool that rejects after the run's abort is 'stopped'; one that resolves then is 'finished'", async () => {
    for (const settle of ["reject", "resolve"] as const) {
      const run = new AbortController();
      let answer!: (value: AgentToolResult) => void;
      let refuse!: (error: Error) => void;
      const t = tool("t", () => new Promise<AgentToolResult>((resolve, reject) => ((answer = resolve), (refuse = reject))));
      const seen = collect(executeToolCall(prepare(t), toolEnvironment({ signal: run.signal })));
      run.abort();
      if (settle === "reject") refuse(new Error("gave up"));
      else answer(textResult("late"));
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(seen.notes).toMatchObject([settle === "reject" ? { isError: true, cancellation: "stopped" } : { isError: false, cancellation: "finished" }]);
      expect(seen.done()).toBe(true);
    }
  });

  it("T3: a promise tool that settles without an abort has no cancellation", async () => {
    const seen = collect(executeToolCall(prepare(tool("t", () => Promise.reject(new Error("no")))), toolEnvironment()));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(seen.labels).toEqual(["R:no!"]);
    expect("cancellation" in seen.notes[0]!).toBe(false);
  });

  it("L10: a promise tool unsubscribed before it settles reports nothing, and its timers are released", async () => {
    const scheduler = newScheduler();
    const counting = new CountingScheduler(scheduler);
    const run = new AbortController();
    let answer!: (value: AgentToolResult) => void;
    const t = tool("t", () => new Promise<AgentToolResult>((resolve) => (answer = resolve)), { type: "object" }, { timeoutMs: 50 });
    const seen = collect(executeToolCall(prepare(t), toolEnvironment({ signal: run.signal, scheduler: counting, abortGraceMs: 10 })));
    expect(counting.pending).toBe(1);
    seen.subscription.unsubscribe();
    expect(counting.pending).toBe(0);
    // The grace's abort listener is gone too: an abort now schedules nothing.
    run.abort();
    expect(counting.pending).toBe(0);
    answer(textResult("late"));
    await new Promise((resolve) => setTimeout(resolve, 0));
    scheduler.flush();
    expect(seen.notes).toEqual([]);
  });
});

describe("L10: nothing after the end", () => {
  const heard: string[] = [];
  afterEach(() => {
    config.onStoppedNotification = null;
    heard.length = 0;
  });
  /** What reached the call's subscriber after it was closed (rxjs drops it, and tells this hook). */
  const listen = (): void => {
    config.onStoppedNotification = (notification) => void heard.push(notification.kind);
  };
  const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

  it("L10: a promise tool that settles or reports progress after it was unsubscribed sends nothing at all", async () => {
    listen();
    let answer!: (value: AgentToolResult) => void;
    let report!: (r: AgentToolResult) => void;
    const t = tool("t", (_id, _args, _signal, onUpdate) => ((report = onUpdate!), new Promise<AgentToolResult>((resolve) => (answer = resolve))));
    const seen = collect(executeToolCall(prepare(t), toolEnvironment()));
    seen.subscription.unsubscribe();
    report(textResult("late"));
    answer(textResult("late"));
    await tick();
    await tick();
    expect(seen.notes).toEqual([]);
    expect(heard).toEqual([]);
  });

  it("R4 L10: a promise tool that settles after the grace gave up on it sends no second result", async () => {
    listen();
    const scheduler = newScheduler();
    const run = new AbortController();
    let answer!: (value: AgentToolResult) => void;
    const t = tool("t", () => new Promise<AgentToolResult>((resolve) => (answer = resolve)));
    const seen = collect(executeToolCall(prepare(t), toolEnvironment({ signal: run.signal, scheduler, abortGraceMs: 5 })));
    run.abort();
    scheduler.flush();
    answer(textResult("late"));
    await tick();
    await tick();
    expect(seen.labels).toEqual(["R:Operation aborted!"]);
    expect(heard).toEqual([]);
  });

  it("L10: an Observable tool's onUpdate after it was unsubscribed sends nothing at all", async () => {
    listen();
    let report!: (r: AgentToolResult) => void;
    const t = tool("t", (_id, _args, _signal, onUpdate) => ((report = onUpdate!), NEVER.pipe(map(() => textResult("x")))));
    const seen = collect(executeToolCall(prepare(t), toolEnvironment()));
    seen.subscription.unsubscribe();
    report(textResult("late"));
    await tick();
    expect(seen.notes).toEqual([]);
    expect(heard).toEqual([]);
  });
});

describe("R2: a tool's time limit", () => {
  it("R2: a promise tool past its limit: its own signal aborts with a TimeoutError, the run's does not, and the model reads the timeout", () => {
    const scheduler = newScheduler();
    const run = new AbortController();
    let toolSignal!: AbortSignal;
    const t = tool("slow", (_id, _args, signal) => ((toolSignal = signal), new Promise<AgentToolResult>(() => undefined)), { type: "object" }, { timeoutMs: 30 });
    const seen = collect(executeToolCall(prepare(t), toolEnvironment({ signal: run.signal, scheduler, now: () => scheduler.now() })));
    expect(toolSignal).not.toBe(run.signal);
    scheduler.flush();
    expect(toolSignal.aborted).toBe(true);
    expect((toolSignal.reason as DOMException).name).toBe("TimeoutError");
    expect((toolSignal.reason as DOMException).message).toBe(timedOutText("slow", 30));
    expect(run.signal.aborted).toBe(false);
    expect(seen.notes).toEqual([{ type: "result", result: { content: [{ type: "text", text: 'Tool "slow" timed out after 30 ms and was stopped.' }], details: {} }, isError: true, durationMs: 30 }]);
    expect(seen.done()).toBe(true);
  });

  it("R2: the run's toolTimeoutMs applies when the tool names none; the tool's own wins", () => {
    for (const [own, run, expected] of [[undefined, 20, 20], [5, 20, 5]] as const) {
      const scheduler = newScheduler();
      const t = tool("t", () => new Promise<AgentToolResult>(() => undefined), { type: "object" }, own === undefined ? {} : { timeoutMs: own });
      const seen = collect(executeToolCall(prepare(t), toolEnvironment({ scheduler, now: () => scheduler.now(), toolTimeoutMs: run })));
      scheduler.flush();
      expect(seen.notes).toMatchObject([{ isError: true, durationMs: expected }]);
    }
  });

  it("R2: an Observable tool past its limit is unsubscribed and reads the timeout, not 'Operation aborted'", () => {
    const scheduler = newScheduler();
    let unsubscribed = false;
    const t = tool("t", () => new Observable<AgentToolResult>(() => () => (unsubscribed = true)), { type: "object" }, { timeoutMs: 10 });
    const seen = collect(executeToolCall(prepare(t), toolEnvironment({ scheduler })));
    scheduler.flush();
    expect(unsubscribed).toBe(true);
    expect(seen.labels).toEqual(['R:Tool "t" timed out after 10 ms and was stopped.!']);
    expect("cancellation" in seen.notes[0]!).toBe(false);
  });

  it("R2 R4: the limit passing after the run's abort, with the tool still running: the tool ignored the abort", () => {
    const scheduler = newScheduler();
    const run = new AbortController();
    let toolSignal!: AbortSignal;
    const t = tool("t", (_id, _args, signal) => ((toolSignal = signal), new Promise<AgentToolResult>(() => undefined)), { type: "object" }, { timeoutMs: 10 });
    const seen = collect(executeToolCall(prepare(t), toolEnvironment({ signal: run.signal, scheduler })));
    run.abort(new Error("user stop"));
    // The run's abort reaches the tool's own signal at once, with the run's reason.
    expect(toolSignal.aborted).toBe(true);
    expect((toolSignal.reason as Error).message).toBe("user stop");
    scheduler.flush();
    expect(seen.notes).toMatchObject([{ isError: true, cancellation: "ignored" }]);
  });

  it("R2: a limit the call ended before is cancelled: nothing is left on the scheduler", () => {
    const scheduler = newScheduler();
    const counting = new CountingScheduler(scheduler);
    const seen = collect(executeToolCall(prepare(tool("t", () => textResult("r"), { type: "object" }, { timeoutMs: 10 })), toolEnvironment({ scheduler: counting, abortGraceMs: 5 })));
    expect(seen.labels).toEqual(["R:r"]);
    expect(counting.pending).toBe(0);
  });

  it("R2: the tool's own signal adds no listener to the run's signal (AbortSignal.any), and still follows it after the call ended", () => {
    const scheduler = newScheduler();
    const run = new AbortController();
    let toolSignal!: AbortSignal;
    const t = tool("t", (_id, _args, signal) => ((toolSignal = signal), textResult("r")), { type: "object" }, { timeoutMs: 10 });
    const seen = collect(executeToolCall(prepare(t), toolEnvironment({ signal: run.signal, scheduler })));
    expect(seen.labels).toEqual(["R:r"]);
    expect(getEventListeners(run.signal, "abort")).toHaveLength(0);
    run.abort();
    expect(toolSignal.aborted).toBe(true);
  });

  describe("where AbortSignal.any is missing", () => {
    const any = AbortSignal.any;
    afterEach(() => {
      AbortSignal.any = any;
    });

    it("R2: the run's abort and the limit still reach the tool's own signal, and an aborted run's signal is passed on at once", () => {
      // @ts-expect-error: removed to take the fallback
      delete AbortSignal.any;
      expect(AbortSignal.any).toBeUndefined();
      const scheduler = newScheduler();
      const signals: AbortSignal[] = [];
      const t = tool("t", (_id, _args, signal) => (signals.push(signal), new Promise<AgentToolResult>(() => undefined)), { type: "object" }, { timeoutMs: 10 });

      const run = new AbortController();
      collect(executeToolCall(prepare(t), toolEnvironment({ signal: run.signal, scheduler })));
      run.abort(new Error("user stop"));
      expect(signals[0]!.aborted).toBe(true);
      expect((signals[0]!.reason as Error).message).toBe("user stop");

      collect(executeToolCall(prepare(t), toolEnvironment({ scheduler })));
      scheduler.flush();
      expect(signals[1]!.aborted).toBe(true);
      expect((signals[1]!.reason as DOMException).name).toBe("TimeoutError");

      const aborted = new AbortController();
      aborted.abort(new Error("before"));
      collect(executeToolCall(prepare(t), toolEnvironment({ signal: aborted.signal, scheduler })));
      expect(signals[2]!.aborted).toBe(true);
      expect((signals[2]!.reason as Error).message).toBe("before");
    });
  });
});

describe("R4: abort grace", () => {
  it("R4: a promise tool that ignores the abort is given up on after abortGraceMs: 'Operation aborted', 'ignored'", () => {
    const scheduler = newScheduler();
    const run = new AbortController();
    const t = tool("t", () => new Promise<AgentToolResult>(() => undefined));
    const seen = collect(executeToolCall(prepare(t), toolEnvironment({ signal: run.signal, scheduler, now: () => scheduler.now(), abortGraceMs: 25 })));
    scheduler.schedule(() => run.abort(), 5);
    scheduler.flush();
    expect(seen.notes).toEqual([{ type: "result", result: { content: [{ type: "text", text: "Operation aborted" }], details: {} }, isError: true, durationMs: 30, cancellation: "ignored" }]);
  });

  it("R4: no grace timer without an abort, and none after the call ended; the abort listener is removed", () => {
    const scheduler = newScheduler();
    const counting = new CountingScheduler(scheduler);
    const run = new AbortController();
    const seen = collect(executeToolCall(prepare(tool("t", () => textResult("r"))), toolEnvironment({ signal: run.signal, scheduler: counting, abortGraceMs: 25 })));
    expect(seen.labels).toEqual(["R:r"]);
    expect(getEventListeners(run.signal, "abort")).toHaveLength(0);
    run.abort();
    expect(counting.pending).toBe(0);
  });
});

describe("L10: an Observable tool and the abort", () => {
  it("L10: the run's abort unsubscribes the tool at once: 'Operation aborted', 'stopped', and the listener is removed", () => {
    const run = new AbortController();
    let unsubscribed = false;
    const t = tool("t", () => new Observable<AgentToolResult>(() => () => (unsubscribed = true)));
    const seen = collect(executeToolCall(prepare(t), toolEnvironment({ signal: run.signal })));
    expect(getEventListeners(run.signal, "abort")).toHaveLength(1);
    run.abort();
    expect(unsubscribed).toBe(true);
    expect(seen.notes).toMatchObject([{ isError: true, cancellation: "stopped", result: { content: [{ type: "text", text: "Operation aborted" }] } }]);
    expect(getEventListeners(run.signal, "abort")).toHaveLength(0);
  });

  it("L10: a tool that aborts the run while it is subscribed is answered once its subscribe returns", () => {
    const run = new AbortController();
    let unsubscribed = false;
    const t = tool("t", () => new Observable<AgentToolResult>(() => {
      run.abort();
      return () => (unsubscribed = true);
    }));
    const seen = collect(executeToolCall(prepare(t), toolEnvironment({ signal: run.signal })));
    expect(unsubscribed).toBe(true);
    expect(seen.notes).toMatchObject([{ isError: true, cancellation: "stopped" }]);
    expect(seen.done()).toBe(true);
  });

  it("L10: no listener is left on the signal by a tool that was unsubscribed, nor by one that completed while it was subscribed", () => {
    const run = new AbortController();
    const seen = collect(executeToolCall(prepare(tool("t", () => NEVER.pipe(map(() => textResult("x"))))), toolEnvironment({ signal: run.signal })));
    seen.subscription.unsubscribe();
    expect(getEventListeners(run.signal, "abort")).toHaveLength(0);
    const once = collect(executeToolCall(prepare(tool("t", () => new Observable<AgentToolResult>((s) => (s.next(textResult("r")), s.complete())))), toolEnvironment({ signal: run.signal })));
    expect(once.labels).toEqual(["R:r"]);
    expect(getEventListeners(run.signal, "abort")).toHaveLength(0);
  });

  it("T1 L10: progress a tool reports while it is being stopped comes after the call was decided: dropped", () => {
    const scheduler = newScheduler();
    const run = new AbortController();
    for (const stop of ["timeout", "abort"] as const) {
      const t = tool("t", (_id, _args, _signal, onUpdate) => new Observable<AgentToolResult>(() => () => onUpdate!(textResult("cleaning up"))), { type: "object" }, stop === "timeout" ? { timeoutMs: 10 } : {});
      const seen = collect(executeToolCall(prepare(t), toolEnvironment({ signal: stop === "abort" ? run.signal : new AbortController().signal, scheduler })));
      if (stop === "abort") run.abort();
      scheduler.flush();
      expect(seen.notes).toHaveLength(1);
      expect(seen.notes[0]!.type).toBe("result");
    }
  });

  it("T1: a tool's onUpdate after its result is dropped", () => {
    let report!: (r: AgentToolResult) => void;
    const t = tool("t", (_id, _args, _signal, onUpdate) => ((report = onUpdate!), textResult("r")));
    const seen = collect(executeToolCall(prepare(t), toolEnvironment()));
    report(textResult("late"));
    expect(seen.labels).toEqual(["R:r"]);
  });
});


