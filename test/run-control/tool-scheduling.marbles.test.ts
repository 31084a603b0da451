/**
 * Tool scheduling (SPEC R3) in virtual time: `maxConcurrency` bounds a parallel batch, calls with
 * the same `concurrencyKey` run one after another in source order, other calls side by side;
 * `tool_execution_end` stays in completion order and the result messages in source order (T4).
 *
 * The virtual-time scenarios run in rxjs-marbles' context (`marbles((m) => …)`, TestScheduler run
 * mode: frame 1 = 1 ms), with `m.scheduler` given to the loop. One test stays on a bare
 * TestScheduler: "R3 A6 …" drives an Agent whose `prompt()` is a promise with
 * `settleVirtualTime`, which advances the clock frame by frame across awaits — outside any
 * `run()`, where rxjs-marbles' context (one synchronous `run()` per test) cannot follow it.
 */
import { map, Subscriber, timer } from "rxjs";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../../src/loop/agent-loop.js";
import type { AgentEvent, AgentLoopConfig, AgentTool, ToolResultMessage } from "../../src/index.js";
import { fauxProvider, fauxToolCall, settleVirtualTime } from "../../src/testing/index.js";
import { agentWith } from "../agent/support.js";
import { committed, contextWith, model, textOf, textResult, tool, user } from "../helpers/fixtures.js";
import { newScheduler } from "../helpers/marbles.js";
import { marbles } from "../helpers/rxjs-marbles.js";
import type { TestScheduler } from "rxjs/testing";

/** A tool whose call `{ ms, key? }` takes `ms` frames; it logs the frame each call starts and ends at. */
function timedTool(scheduler: TestScheduler, log: string[], extra: Partial<AgentTool> = {}): AgentTool {
  return tool(
    "work",
    (id, params) => {
      const { ms } = params as { ms: number };
      log.push(`${scheduler.now()} start ${id}`);
      return timer(ms).pipe(map(() => (log.push(`${scheduler.now()} end ${id}`), textResult(id))));
    },
    { type: "object", properties: { ms: { type: "number" }, key: { type: "string" } } },
    extra,
  );
}

interface Ran {
  log: string[];
  ends: string[];
  results: string[];
  /** Each result's text, by call id. */
  texts: Record<string, string>;
}

/** One batch of `calls` ({ id, ms, key? }) with `config`, in virtual time (rxjs-marbles' context); what ran when. */
function runBatch(calls: { id: string; ms: number; key?: string }[], config: Partial<AgentLoopConfig> = {}, extra: Partial<AgentTool> = {}): Ran {
  const log: string[] = [];
  const events: { frame: number; event: AgentEvent }[] = [];
  marbles((m) => {
    const provider = fauxProvider([{ content: calls.map((c) => fauxToolCall("work", c.key === undefined ? { ms: c.ms } : { ms: c.ms, key: c.key }, c.id)) }, { content: "done" }]);
    agentLoop([user("go")], contextWith([timedTool(m.scheduler, log, extra)]), { model, scheduler: m.scheduler, ...config }, undefined, provider).subscribe((event) =>
      events.push({ frame: m.scheduler.now(), event }),
    );
    m.flush();
  })();
  const all = events.map((e) => e.event);
  return {
    log,
    ends: events.flatMap(({ frame, event }) => (event.type === "tool_execution_end" ? [`${frame} ${event.toolCallId}`] : [])),
    results: committed(all).flatMap((m) => ((m as ToolResultMessage).role === "toolResult" ? [(m as ToolResultMessage).toolCallId] : [])),
    texts: Object.fromEntries(committed(all).flatMap((m) => ((m as ToolResultMessage).role === "toolResult" ? [[(m as ToolResultMessage).toolCallId, textOf(m as ToolResultMessage)]] : []))),
  };
}

const keyed: Partial<AgentTool> = { concurrencyKey: (args) => (args as { key?: string }).key };

describe("R3: maxConcurrency", () => {
  it("R3 T4: limit 2 over 6 calls: two run at a time, each starting the frame a slot frees; ends in completion order, results in source order", () => {
    const calls = [
      { id: "a", ms: 10 },
      { id: "b", ms: 4 },
      { id: "c", ms: 3 },
      { id: "d", ms: 8 },
      { id: "e", ms: 2 },
      { id: "f", ms: 5 },
    ];
    const ran = runBatch(calls, { maxConcurrency: 2 });
    expect(ran.log).toEqual([
      "0 start a",
      "0 start b",
      "4 end b",
      "4 start c",
      "7 end c",
      "7 start d",
      "10 end a",
      "10 start e",
      "12 end e",
      "12 start f",
      "15 end d",
      "17 end f",
    ]);
    expect(ran.ends).toEqual(["4 b", "7 c", "10 a", "12 e", "15 d", "17 f"]);
    expect(ran.results).toEqual(["a", "b", "c", "d", "e", "f"]);
  });

  it("R3: without a limit the same batch runs all six at frame 0 (the limit is what changed it)", () => {
    const ran = runBatch([{ id: "a", ms: 10 }, { id: "b", ms: 4 }, { id: "c", ms: 3 }]);
    expect(ran.log.filter((line) => line.includes("start"))).toEqual(["0 start a", "0 start b", "0 start c"]);
  });

  it("R3: a limit of 1 runs a parallel batch one call at a time, in source order", () => {
    const ran = runBatch([{ id: "a", ms: 3 }, { id: "b", ms: 1 }, { id: "c", ms: 2 }], { maxConcurrency: 1 });
    expect(ran.log).toEqual(["0 start a", "3 end a", "3 start b", "4 end b", "4 start c", "6 end c"]);
  });

  it("R3: a limit that is not a positive integer is refused at call time", () => {
    const provider = fauxProvider([{ content: "x" }]);
    for (const bad of [0, -1, 1.5, Number.NaN, "2" as unknown as number]) {
      expect(() => agentLoop([user("go")], contextWith([]), { model, maxConcurrency: bad }, undefined, provider)).toThrow(/maxConcurrency must be a positive integer/);
    }
  });
});

describe("R3: concurrencyKey", () => {
  it("R3: calls with the same key run in source order, calls with another key or none beside them", () => {
    const ran = runBatch(
      [
        { id: "x1", ms: 5, key: "x" },
        { id: "y1", ms: 2, key: "y" },
        { id: "x2", ms: 1, key: "x" },
        { id: "n", ms: 3 },
        { id: "y2", ms: 2, key: "y" },
      ],
      {},
      keyed,
    );
    expect(ran.log).toEqual(["0 start x1", "0 start y1", "0 start n", "2 end y1", "2 start y2", "3 end n", "4 end y2", "5 end x1", "5 start x2", "6 end x2"]);
    expect(ran.ends).toEqual(["2 y1", "3 n", "4 y2", "5 x1", "6 x2"]);
    expect(ran.results).toEqual(["x1", "y1", "x2", "n", "y2"]);
  });

  it("R3 T4 L12: calls that end synchronously still start in source order, lane or not, with and without a limit", () => {
    for (const config of [{}, { maxConcurrency: 1 }, { maxConcurrency: 2 }]) {
      const ran: string[] = [];
      const sync = tool("s", (_id, args) => (ran.push((args as { id: string }).id), textResult("ok")), { type: "object" }, { concurrencyKey: (args) => (args as { key?: string }).key });
      const calls = [{ id: "a", key: "k" }, { id: "b" }, { id: "c", key: "k" }, { id: "d", key: "j" }];
      const provider = fauxProvider([{ content: calls.map((c) => fauxToolCall("s", c, c.id)) }, { content: "done" }]);
      const events: AgentEvent[] = [];
      agentLoop([user("go")], contextWith([sync]), { model, ...config }, undefined, provider).subscribe((e) => events.push(e));
      expect(ran).toEqual(["a", "b", "c", "d"]);
      expect(events.flatMap((e) => (e.type === "tool_execution_end" ? [e.toolCallId] : []))).toEqual(["a", "b", "c", "d"]);
    }
  });

  it("R3: a batch whose calls all have keys (no limit, no approval) still runs each lane in order", () => {
    const ran = runBatch([{ id: "x1", ms: 2, key: "x" }, { id: "x2", ms: 1, key: "x" }, { id: "y1", ms: 1, key: "y" }], {}, keyed);
    expect(ran.log).toEqual(["0 start x1", "0 start y1", "1 end y1", "2 end x1", "2 start x2", "3 end x2"]);
  });

  it("R3: keys and a limit compose: a lane holds one slot at a time", () => {
    const ran = runBatch(
      [
        { id: "x1", ms: 4, key: "x" },
        { id: "x2", ms: 4, key: "x" },
        { id: "a", ms: 2 },
        { id: "b", ms: 2 },
      ],
      { maxConcurrency: 2 },
      keyed,
    );
    expect(ran.log).toEqual(["0 start x1", "0 start a", "2 end a", "2 start b", "4 end x1", "4 start x2", "4 end b", "8 end x2"]);
  });

  it("R3 T4: sequential mode wins over keys: one call at a time, in source order", () => {
    const ran = runBatch([{ id: "x1", ms: 2, key: "x" }, { id: "y1", ms: 1, key: "y" }], { toolExecution: "sequential" }, keyed);
    expect(ran.log).toEqual(["0 start x1", "2 end x1", "2 start y1", "3 end y1"]);
  });

  it("R3 T3: a concurrencyKey that throws gives that call an error result; the others run", () => {
    const ran = runBatch([{ id: "a", ms: 1, key: "boom" }, { id: "b", ms: 1 }], {}, {
      concurrencyKey: (args) => {
        if ((args as { key?: string }).key === "boom") throw new Error("no key");
        return undefined;
      },
    });
    expect(ran.log).toEqual(["0 start b", "1 end b"]);
    expect(ran.ends).toEqual(["0 a", "1 b"]);
    expect(ran.results).toEqual(["a", "b"]);
    expect(ran.texts.a).toBe('concurrencyKey of tool "work" failed: no key');
  });
});

describe("R3 L10: an unsubscribe while calls wait for a slot", () => {
  it(
    "R3 L10: the running call is unsubscribed and no waiting call starts",
    marbles((m) => {
      const slow = m.cold("10ms (r|)", { r: textResult("a") });
      const started: string[] = [];
      const t = tool("work", (id) => (started.push(id), id === "a" ? slow : textResult(id)));
      const provider = fauxProvider([{ content: [fauxToolCall("work", {}, "a"), fauxToolCall("work", {}, "b"), fauxToolCall("work", {}, "c")] }, { content: "done" }]);
      const subscription = agentLoop([user("go")], contextWith([t]), { model, scheduler: m.scheduler, maxConcurrency: 1 }, undefined, provider).subscribe();
      m.scheduler.schedule(() => subscription.unsubscribe(), 4);
      m.expect(slow).toHaveSubscriptions("^---!");
      m.flush();
      expect(started).toEqual(["a"]);
    }),
  );
});

describe("R3 L10: a consumer that leaves inside a synchronous call's progress", () => {
  it("R3 L10 (seed 2008553481): with a slot, no afterToolCall runs after the unsubscribe", () => {
    for (const concurrencyKey of [undefined, () => "k"]) {
      const calls: string[] = [];
      let gone = false;
      const t = tool("t", (id, _args, _signal, onUpdate) => (id === "b" && onUpdate(textResult("progress")), textResult(id)), { type: "object" }, concurrencyKey ? { concurrencyKey } : {});
      const provider = fauxProvider([{ content: [fauxToolCall("t", {}, "a"), fauxToolCall("t", {}, "b")] }, { content: "done" }]);
      // A Subscriber, so it can leave inside the synchronous run (subscribe has not returned yet).
      const sink: Subscriber<AgentEvent> = new Subscriber<AgentEvent>({
        next: (event: AgentEvent) => {
          if (event.type === "tool_execution_update") {
            gone = true;
            sink.unsubscribe();
          }
        },
        error: () => undefined,
        complete: () => undefined,
      });
      agentLoop([user("go")], contextWith([t]), { model, maxConcurrency: 1, afterToolCall: ({ toolCall }) => void calls.push(`${toolCall.id}${gone ? " after unsubscribe" : ""}`) }, undefined, provider).subscribe(sink);
      expect(calls).toEqual(["a"]);
    }
  });
});

describe("R3 A6: a listener that fails on a call's end", () => {
  it("R3 A6: fails the run, and no call waiting for a slot starts after it", async () => {
    // a bare TestScheduler, not rxjs-marbles: settleVirtualTime drives it across awaits (see the header)
    const scheduler = newScheduler();
    const log: string[] = [];
    const provider = fauxProvider([{ content: ["a", "b", "c"].map((id) => fauxToolCall("work", { ms: 2 }, id)) }, { content: "done" }]);
    const agent = agentWith({ streamFn: provider, scheduler, maxConcurrency: 2, initialState: { model, tools: [timedTool(scheduler, log)] } });
    agent.subscribe((event) => {
      if (event.type === "tool_execution_end" && event.toolCallId === "a") throw new Error("listener failed");
    });
    const prompted = agent.prompt("go");
    await settleVirtualTime(scheduler, { until: prompted });
    await prompted;
    // a and b held the two slots; a's end failed the run before c could take a's slot.
    expect(log.filter((line) => line.includes("start"))).toEqual(["0 start a", "0 start b"]);
    expect(agent.state.errorMessage).toMatch(/listener failed/);
  });
});
