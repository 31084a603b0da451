/**
 * Virtual-time helpers for the loop's marble tests (SPEC L12).
 *
 * The loop emits many events in one frame (agent_start, turn_start, the prompt's start and
 * end, ...). A marble string cannot place a multi-value group at frame 0 and a single value at
 * frame 1, so {@link byFrame} folds the events of one frame into one array value emitted at the
 * end of that frame; a marble then has one character per busy frame.
 */
import { concatMap, filter, map, Observable, range, type OperatorFunction, timer } from "rxjs";
import { type RunHelpers, TestScheduler } from "rxjs/testing";
import { expect } from "vitest";
import type { AgentEvent, AgentTool, AgentToolResult, Message } from "../../src/index.js";
import { textResult, tool } from "./fixtures.js";

/** A fresh TestScheduler that compares with `toStrictEqual` (one per test, as RxJS does). */
export function newScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toStrictEqual(expected));
}

/**
 * A short, readable name for an event: `message_start:user`, `tool_execution_end:b`, ...
 * Timestamps and contents are asserted separately. `detail` adds a suffix to the start and end
 * of user, assistant and system messages (their text, a stop reason) for suites that need it.
 */
export function label(event: AgentEvent, detail?: (message: Message) => string | undefined): string {
  switch (event.type) {
    case "message_start":
    case "message_end": {
      const message = event.message as Message;
      if (message.role === "toolResult") return `${event.type}:toolResult:${message.toolCallId}`;
      const extra = detail?.(message);
      return extra === undefined ? `${event.type}:${message.role}` : `${event.type}:${message.role}:${extra}`;
    }
    case "message_update":
      return `message_update:${event.assistantMessageEvent.type}`;
    case "tool_execution_start":
    case "tool_execution_update":
    case "tool_execution_end":
    case "tool_approval_request":
      return `${event.type}:${event.toolCallId}`;
    case "tool_approval_end":
      return `${event.type}:${event.toolCallId}:${event.approved ? "approved" : (event.reason ?? "denied")}`;
    default:
      return event.type;
  }
}

/**
 * `byFrame` over the labels of a run's events. `updates: false` leaves out `message_update`
 * (a synchronous provider streams a dozen of them in frame 0; they are not what a batch test checks).
 */
export function labelsByFrame(scheduler: TestScheduler, options: { updates?: boolean } = {}): OperatorFunction<AgentEvent, string[]> {
  const updates = options.updates ?? true;
  return (events) =>
    events.pipe(
      filter((event) => updates || event.type !== "message_update"),
      map((event) => label(event)),
      byFrame(scheduler),
    );
}

interface PendingAction {
  delay: number;
}

/** The flush actions of every `byFrame`, so two of them never wait for each other. */
const flushActions = new WeakSet<object>();

/**
 * Folds the values of each frame into one array, emitted at the end of that frame (after every
 * other action queued for the same frame ran). Completion and errors follow the last array in
 * the same frame.
 */
export function byFrame<T>(scheduler: TestScheduler): OperatorFunction<T, T[]> {
  return (source) =>
    new Observable<T[]>((subscriber) => {
      let bucket: T[] = [];
      let flushing = false;
      let ending: (() => void) | undefined;
      const queuedAtThisFrame = (): boolean =>
        (scheduler.actions as unknown as PendingAction[]).some((action) => action.delay <= scheduler.frame && !flushActions.has(action));
      const scheduleFlush = (): void => {
        if (flushing) return;
        flushing = true;
        const first = scheduler.schedule(function flush() {
            // Something else still runs in this frame: let it go first.
            if (queuedAtThisFrame()) {
              const again = this.schedule(undefined, 0);
              flushActions.add(again);
              subscriber.add(again);
              return;
            }
            flushing = false;
            const values = bucket;
            bucket = [];
            if (values.length > 0) subscriber.next(values);
            ending?.();
          });
        flushActions.add(first);
        subscriber.add(first);
      };
      const subscription = source.subscribe({
        next: (value) => {
          bucket.push(value);
          scheduleFlush();
        },
        error: (error) => {
          ending = () => subscriber.error(error);
          scheduleFlush();
        },
        complete: () => {
          ending = () => subscriber.complete();
          scheduleFlush();
        },
      });
      subscriber.add(subscription);
    });
}

/**
 * Events with the frame they arrived at, for assertions that are easier as a table than as a
 * marble (e.g. "the steering message comes after frame 30").
 */
export interface Stamped {
  frame: number;
  event: AgentEvent;
}

/** An Observable tool: `timer(frames)` then one result whose text is `text`. */
export function timerTool(name: string, frames: number, text = name, extra: Partial<AgentTool> = {}): AgentTool {
  return tool(name, () => timer(frames).pipe(map(() => textResult(text))), { type: "object" }, extra);
}

/**
 * An Observable tool that emits `updates` progress values and then its result, one every
 * `every` frames (each emission before the last is an update, SPEC T1).
 *
 * Built from one-shot timers on purpose: under `TestScheduler.run`, a periodic `timer(d, p)` can
 * make rxjs's fake `setInterval` throw "Expected a due immediate or interval" when two timers are
 * due in the same frame and one of them is cleared by a cancel in that frame (the periodic
 * record keeps its old place while its next run action gets a later index).
 */
export function progressTool(name: string, updates: number, every: number, extra: Partial<AgentTool> = {}): AgentTool {
  return tool(name, (id) => progress(updates, every, (i) => textResult(i < updates ? `update ${i}` : `done ${id}`)), { type: "object" }, extra);
}

/** `count + 1` values, one every `every` frames, from one-shot timers (see {@link progressTool}). */
export function progress<T>(updates: number, every: number, value: (index: number) => T): Observable<T> {
  return range(0, updates + 1).pipe(concatMap((i) => timer(every).pipe(map(() => value(i)))));
}

/**
 * Every notification of what `build` returns, each with its frame, under a fresh
 * `TestScheduler.run`, unsubscribed at frame `unsubscribeAt`. `record` adds entries of the
 * test's own (a call it wants ordered with the notifications). For properties that compare one
 * of the loop's operators with the rxjs one it replaces: two builds, the same entries.
 */
export function framesOf(build: (helpers: RunHelpers, record: (...entry: unknown[]) => void) => Observable<unknown>, unsubscribeAt: number): unknown[] {
  const scheduler = new TestScheduler(() => undefined);
  const seen: unknown[] = [];
  scheduler.run((helpers) => {
    const record = (...entry: unknown[]): void => void seen.push([scheduler.now(), ...entry]);
    const subscription = build(helpers, record).subscribe({
      next: (value) => record("next", value),
      error: (error: unknown) => record("error", error),
      complete: () => record("complete"),
    });
    scheduler.schedule(() => subscription.unsubscribe(), unsubscribeAt);
  });
  return seen;
}
