/**
 * Promise tools and hooks in virtual time (SPEC L12 and its limit): under `TestScheduler.run`
 * a promise settles after the clock stopped; `settleVirtualTime` drives the clock frame by frame
 * so an `execute: async` tool, an async hook and an async listener run to `agent_end` with
 * virtual timestamps.
 */
import { TestScheduler } from "rxjs/testing";
import { describe, expect, it } from "vitest";
import { Agent, type AgentEvent, type AgentTool } from "../../src/index.js";
import { fauxProvider, fauxToolCall, settleVirtualTime } from "../../src/testing/index.js";
import { model } from "../helpers/fixtures.js";

const lookup: AgentTool<{ key: string }> = {
  name: "lookup", label: "Lookup", description: "Looks a key up.",
  parameters: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
  execute: async (_id, { key }) => {
    await Promise.resolve();
    return { content: [{ type: "text", text: `value of ${key}` }] };
  },
};

function scripted(scheduler: TestScheduler) {
  return fauxProvider([{ content: [fauxToolCall("lookup", { key: "a" }, "t1")] }, { content: "The value is known." }], { scheduler, delay: 10 });
}

describe("L12: promise tools in virtual time with settleVirtualTime", () => {
  it("L12: an execute: async tool, an async beforeToolCall and an async listener run to agent_end on virtual frames", async () => {
    const scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    const agent = new Agent({
      initialState: { model, tools: [lookup] },
      streamFn: scripted(scheduler),
      scheduler,
      beforeToolCall: async () => undefined,
    });
    const stamps: string[] = [];
    agent.subscribe(async (event: AgentEvent) => {
      await Promise.resolve();
      if (event.type === "tool_execution_end" || event.type === "agent_end" || event.type === "message_end") stamps.push(`${scheduler.now()} ${event.type}`);
    });
    const done = agent.prompt("what is a?");
    const frame = await settleVirtualTime(scheduler);
    await done;
    expect(agent.state.isStreaming).toBe(false);
    expect(agent.state.errorMessage).toBeUndefined();
    expect(agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
    expect(stamps.at(-1)).toBe(`${frame} agent_end`);
    // the provider paces one event per 10 frames: both replies took virtual time, nothing real
    expect(frame).toBeGreaterThanOrEqual(40);
    expect(stamps).toContain(`${stamps.find((s) => s.endsWith("tool_execution_end"))!.split(" ")[0]} tool_execution_end`);
    const endFrames = stamps.map((s) => Number(s.split(" ")[0]));
    expect([...endFrames].sort((a, b) => a - b)).toEqual(endFrames);
  });

  it("L12: inside TestScheduler.run a promise tool fails loudly, naming the way out: the run still ends in virtual time, then run() throws the same words", () => {
    const scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    let agent!: Agent;
    let ended = false;
    expect(() =>
      scheduler.run(() => {
        agent = new Agent({ initialState: { model, tools: [lookup] }, streamFn: scripted(scheduler), scheduler });
        agent.subscribe((event) => void (event.type === "agent_end" && (ended = true)));
        void agent.prompt("what is a?");
      }),
    ).toThrow(/returned a promise \(or an async iterable\) inside TestScheduler\.run\(\).*settleVirtualTime\(scheduler\) from rxagent\/testing/);
    expect(ended).toBe(true);
    expect(agent.state.isStreaming).toBe(false);
    const result = agent.state.messages.find((m) => m.role === "toolResult") as { isError: boolean; content: { text: string }[] };
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toMatch(/returned a promise \(or an async iterable\) inside TestScheduler\.run\(\).*settleVirtualTime\(scheduler\) from rxagent\/testing/);
  });

  it("L12 A6: inside TestScheduler.run an async listener or hook fails the run with that message instead of stalling it, and run() throws it", () => {
    for (const options of [{ listener: true }, { hook: true }]) {
      const scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
      let agent!: Agent;
      expect(() =>
        scheduler.run(() => {
          agent = new Agent({
            initialState: { model },
            streamFn: fauxProvider([{ content: "hi" }], { scheduler }),
            scheduler,
            ...(options.hook ? { transformContext: async (messages: unknown[]) => messages } : {}),
          } as ConstructorParameters<typeof Agent>[0]);
          if (options.listener) agent.subscribe(async () => undefined);
          void agent.prompt("hello");
        }),
      ).toThrow(/returned a promise \(or an async iterable\) inside TestScheduler\.run\(\)/);
      expect(agent.state.isStreaming, JSON.stringify(options)).toBe(false);
      expect(agent.state.errorMessage, JSON.stringify(options)).toMatch(/returned a promise \(or an async iterable\) inside TestScheduler\.run\(\)/);
    }
  });

  it("L12: inside TestScheduler.run a provider returning a promise or an async iterable ends the run with that message, in virtual time, and run() throws it", () => {
    const providers = [
      async () => [] as never,
      () => (async function* () {})() as never,
    ];
    for (const streamFn of providers) {
      const scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
      let agent!: Agent;
      expect(() =>
        scheduler.run(() => {
          agent = new Agent({ initialState: { model }, streamFn, scheduler });
          void agent.prompt("hello");
        }),
      ).toThrow(/returned a promise \(or an async iterable\) inside TestScheduler\.run\(\)/);
      expect(agent.state.isStreaming).toBe(false);
      expect(agent.state.errorMessage).toMatch(/A provider, tool, hook or listener returned a promise \(or an async iterable\) inside TestScheduler\.run\(\)/);
    }
  });

  it("L12: outside run() (settleVirtualTime, real time) promises are waited for as usual", async () => {
    const agent = new Agent({ initialState: { model, tools: [lookup] }, streamFn: fauxProvider([{ content: [fauxToolCall("lookup", { key: "b" }, "t1")] }, { content: "ok" }]) });
    agent.subscribe(async () => undefined);
    await agent.prompt("what is b?");
    expect(agent.state.errorMessage).toBeUndefined();
    expect(agent.state.messages.find((m) => m.role === "toolResult")).toMatchObject({ isError: false });
  });

  it("a run waiting on a pending promise leaves the helper idle (it resolves, the run goes on); an abort then ends it", async () => {
    const scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    const forever: AgentTool = {
      name: "forever", label: "Forever", description: "Waits for the signal.", parameters: { type: "object" },
      execute: (_id, _args, signal) => new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(new Error("stopped")))),
    };
    const agent = new Agent({ initialState: { model, tools: [forever] }, streamFn: fauxProvider([{ content: [fauxToolCall("forever", {}, "t1")] }], { scheduler, delay: 10 }), scheduler });
    void agent.prompt("go");
    // nothing more is scheduled while the tool waits: the helper settles (idle), the run is still going
    await settleVirtualTime(scheduler);
    expect(agent.state.isStreaming).toBe(true);
    agent.abort();
    await settleVirtualTime(scheduler);
    await agent.waitForIdle();
    expect(agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });
  });

  it("until: a tool that also waits on a real timer — the helper waits for the run instead of stopping when the clock is idle", async () => {
    const scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    const slow: AgentTool = {
      name: "lookup", label: "Lookup", description: "Waits 30 ms of real time.", parameters: { type: "object" },
      execute: async () => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        return { content: [{ type: "text", text: "late" }] };
      },
    };
    const agent = new Agent({ initialState: { model, tools: [slow] }, streamFn: scripted(scheduler), scheduler });
    const done = agent.prompt("go");
    await settleVirtualTime(scheduler, { until: done });
    await done;
    expect(agent.state.isStreaming).toBe(false);
    expect(agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
  });

  it("until that never settles fails after timeoutMs instead of hanging", async () => {
    const scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    await expect(settleVirtualTime(scheduler, { until: new Promise(() => undefined), timeoutMs: 50 })).rejects.toThrow(/did not settle within 50 ms/);
  });

  it("maxFrame stops a clock that runs away", async () => {
    const scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    scheduler.schedule(function tick(this: { schedule(state?: unknown, delay?: number): void }) {
      this.schedule(undefined, 100);
    }, 100);
    await expect(settleVirtualTime(scheduler, { maxFrame: 1_000 })).rejects.toThrow(/due at frame 1100, after maxFrame 1000/);
  });
});
