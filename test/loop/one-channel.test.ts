/**
 * Every event through the Observable (SPEC L13): what `agentLoop` emits is exactly what its
 * waiting `emit` is called with, and what an Agent's listeners, `events$` and `prompt$()` see
 * are the same events in the same order — so `agentLoop(...).pipe(anyOperator)` observes the
 * whole run, streamed deltas and tool progress included.
 */
import { map, Observable, tap, timer } from "rxjs";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/index.js";
import { runAgentLoop } from "../../src/loop/agent-loop.js";
import type { AgentEvent, AgentToolResult } from "../../src/index.js";
import { fauxProvider, fauxToolCall } from "../../src/testing/index.js";
import { contextWith, model, textResult, tool, user } from "../helpers/fixtures.js";
import { newScheduler } from "../helpers/marbles.js";

/** A tool that reports progress twice over frames, then its result. */
const progressing = tool("count", () =>
  new Observable<AgentToolResult>((subscriber) => {
    subscriber.next(textResult("1"));
    return timer(2)
      .pipe(map(() => textResult("2")))
      .subscribe({ next: (v) => subscriber.next(v), complete: () => timer(1).subscribe(() => (subscriber.next(textResult("done")), subscriber.complete())) });
  }),
);

/** Two calls of the tool, then a text streamed in small deltas, one event per frame. */
const script = (scheduler: import("rxjs").SchedulerLike) =>
  fauxProvider([{ content: [fauxToolCall("count", {}, "1"), fauxToolCall("count", {}, "2")] }, { content: "all of them are counted now" }], { scheduler, chunkSize: 4 });

describe("L13: one channel for a run's events", () => {
  it("L13: the loop emits exactly the events its waiting emit is called with, in order, streamed deltas and tool progress included", () => {
    const scheduler = newScheduler();
    const told: AgentEvent[] = [];
    const emitted: AgentEvent[] = [];
    scheduler.run(() => {
      const emit = (event: AgentEvent) => {
        told.push(event);
        // Every third event holds the run for a frame: the order must not depend on it.
        return told.length % 3 === 0 ? timer(1) : undefined;
      };
      runAgentLoop({ prompts: [user("go")], context: contextWith([progressing]), config: { model, scheduler }, streamFn: script(scheduler), emit })
        .pipe(tap((event) => emitted.push(event)))
        .subscribe();
    });
    expect(emitted.map((e) => e.type)).toContain("message_update");
    expect(emitted.map((e) => e.type)).toContain("tool_execution_update");
    expect(emitted).toEqual(told);
    expect(emitted.at(-1)!.type).toBe("agent_end");
  });

  it("L13: an Agent's listeners, events$ and prompt$() see the same events in the same order", () => {
    const scheduler = newScheduler();
    const heard: AgentEvent[] = [];
    const broadcast: AgentEvent[] = [];
    const returned: AgentEvent[] = [];
    scheduler.run(() => {
      const agent = new Agent({ initialState: { model, tools: [progressing] }, streamFn: script(scheduler), scheduler });
      agent.subscribe((event) => void heard.push(event));
      agent.events$.subscribe((event) => broadcast.push(event));
      agent.prompt$("go").subscribe((event) => returned.push(event));
    });
    expect(heard.length).toBeGreaterThan(10);
    expect(broadcast).toEqual(heard);
    expect(returned).toEqual(heard);
  });
});
