/**
 * The cancellation report (SPEC R4): after an abort, each call of the batch says what became of
 * it — never started, stopped on the signal, finished after the abort, or ignored the signal —
 * in its `tool_execution_end`, in `agent_end`, and in the Agent's state. Promise tools wait on a
 * virtual clock, driven frame by frame by settleVirtualTime so their promises settle between
 * frames (`TestScheduler.run` would stop the clock before any promise settled).
 */
import { firstValueFrom, lastValueFrom, timer, toArray, map } from "rxjs";
import type { TestScheduler } from "rxjs/testing";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/index.js";
import { agentLoop } from "../../src/loop/agent-loop.js";
import type { AgentEvent, AgentTool } from "../../src/index.js";
import { fauxProvider, fauxToolCall, settleVirtualTime } from "../../src/testing/index.js";
import { agentEnd, contextWith, model, textResult, tool, user } from "../helpers/fixtures.js";
import { newScheduler } from "../helpers/marbles.js";

/** The events of a run, and the virtual frame it completed at, once `scheduler` has run it through. */
async function settled(events$: ReturnType<typeof agentLoop>, scheduler: TestScheduler): Promise<{ events: AgentEvent[]; endedAt: number }> {
  let endedAt = -1;
  const run = lastValueFrom(events$.pipe(toArray())).then((events) => ((endedAt = scheduler.now()), events));
  await settleVirtualTime(scheduler, { until: run });
  return { events: await run, endedAt };
}

/** The four kinds of tool: one per status, their work timed on `scheduler`. */
function tools(scheduler: TestScheduler): AgentTool[] {
  return [
    // An Observable tool is unsubscribed at once: stopped.
    tool("watch", () => timer(5_000, scheduler).pipe(map(() => textResult("never")))),
    // Rejects when its signal fires: stopped.
    tool("fetch", (_id, _args, signal) => new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(new Error("fetch aborted"))))),
    // Ignores the signal and finishes its work: finished.
    tool("save", async () => (await firstValueFrom(timer(60, scheduler)), textResult("saved"))),
    // Never settles: ignored, once the grace has passed.
    tool("hang", () => new Promise(() => {})),
  ];
}

function calls() {
  return [fauxToolCall("watch", {}, "w"), fauxToolCall("fetch", {}, "f"), fauxToolCall("save", {}, "s"), fauxToolCall("save", {}, "q")];
}

describe("R4: what became of each call of an aborted batch", () => {
  it("R4: stopped, finished, and not started (waiting for a slot): in the events and in agent_end", async () => {
    const scheduler = newScheduler();
    const controller = new AbortController();
    const provider = fauxProvider([{ content: calls() }, { content: "never asked" }]);
    const events$ = agentLoop([user("go")], contextWith(tools(scheduler)), { model, scheduler, maxConcurrency: 3 }, controller.signal, provider);
    scheduler.schedule(() => controller.abort(), 20);
    const { events, endedAt } = await settled(events$, scheduler);
    const ends = events.filter((e): e is Extract<AgentEvent, { type: "tool_execution_end" }> => e.type === "tool_execution_end");
    expect(Object.fromEntries(ends.map((e) => [e.toolCallId, e.cancellation]))).toEqual({ w: "stopped", f: "stopped", q: "not_started", s: "finished" });
    // Completion order: watch stops at once and frees its slot, where q finds the run aborted;
    // fetch's rejection comes a microtask later; save when its work is done.
    expect(agentEnd(events).cancellation).toEqual([
      { toolCallId: "w", toolName: "watch", status: "stopped" },
      { toolCallId: "q", toolName: "save", status: "not_started" },
      { toolCallId: "f", toolName: "fetch", status: "stopped" },
      { toolCallId: "s", toolName: "save", status: "finished" },
    ]);
    const saved = ends.find((e) => e.toolCallId === "s")!;
    expect(saved.isError).toBe(false);
    expect(provider.requests).toHaveLength(1);
    // save's work took its 60 frames: the run waited for it.
    expect(endedAt).toBe(60);
  });

  it("R4: abortGraceMs: a tool that ignores the signal is given up on after the grace, reported 'ignored', and the run ends", async () => {
    const scheduler = newScheduler();
    const controller = new AbortController();
    const provider = fauxProvider([{ content: [fauxToolCall("hang", {}, "h"), fauxToolCall("save", {}, "s")] }, { content: "never asked" }]);
    const events$ = agentLoop([user("go")], contextWith(tools(scheduler)), { model, scheduler, abortGraceMs: 30 }, controller.signal, provider);
    scheduler.schedule(() => controller.abort(), 10);
    const { events, endedAt } = await settled(events$, scheduler);
    // save needs 60 ms; aborted at 10 with 30 ms of grace, it is given up on at 40 as well.
    expect(agentEnd(events).cancellation).toEqual([
      { toolCallId: "h", toolName: "hang", status: "ignored" },
      { toolCallId: "s", toolName: "save", status: "ignored" },
    ]);
    // The grace ended the run: at abort + grace, not when save finished (60) or never (hang).
    expect(endedAt).toBe(40);
  });

  it("R4: a run that was not aborted reports nothing", async () => {
    const scheduler = newScheduler();
    const provider = fauxProvider([{ content: [fauxToolCall("save", {}, "s")] }, { content: "ok" }]);
    const { events } = await settled(agentLoop([user("go")], contextWith(tools(scheduler)), { model, scheduler }, undefined, provider), scheduler);
    expect(agentEnd(events).cancellation).toBeUndefined();
    expect(events.some((e) => e.type === "tool_execution_end" && e.cancellation !== undefined)).toBe(false);
  });

  it("R4 A4: agent.abort() leaves the report in state.cancellation; the next run clears it", async () => {
    const provider = fauxProvider([{ content: [fauxToolCall("watch", {}, "w"), fauxToolCall("save", {}, "s")] }, { content: "x" }, { content: "fine" }]);
    const scheduler = newScheduler();
    const agent = new Agent({ initialState: { model, tools: tools(scheduler) }, streamFn: provider, scheduler });
    agent.subscribe((event) => {
      if (event.type === "tool_execution_start" && event.toolCallId === "s") scheduler.schedule(() => agent.abort(), 10);
    });
    const prompted = agent.prompt("go");
    await settleVirtualTime(scheduler, { until: prompted });
    await prompted;
    expect(agent.state.cancellation).toEqual([
      { toolCallId: "w", toolName: "watch", status: "stopped" },
      { toolCallId: "s", toolName: "save", status: "finished" },
    ]);
    await agent.prompt("again");
    expect(agent.state.cancellation).toBeUndefined();
  });
});
