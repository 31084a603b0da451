/**
 * Steering and follow-up (SPEC L7): when the queues are polled, and what one poll takes in the
 * two queue modes. The loop polls through `getSteeringMessages` / `getFollowUpMessages`; a
 * queue mode is how much one poll drains, so the tests model both modes with a small queue.
 */
import { map, of, timer } from "rxjs";
import { describe, expect, it } from "vitest";
import { agentLoop, runAgentLoop } from "../../src/loop/agent-loop.js";
import type { AgentEvent, AgentMessage, QueueMode } from "../../src/index.js";
import { fauxProvider, fauxToolCall, type FauxScriptEntry } from "../../src/testing/index.js";
import { agentEnd, collectSync, contextWith, model, roles, textOf, textResult, tool, user } from "../helpers/fixtures.js";
import { newScheduler, timerTool } from "../helpers/marbles.js";

/** A queue drained per poll in `mode`, recording when it was polled. */
function queue(mode: QueueMode, initial: AgentMessage[] = []) {
  const items = initial.slice();
  const polls: number[] = [];
  let now = () => 0;
  return {
    items,
    polls,
    clock(clock: () => number) {
      now = clock;
    },
    poll: () => {
      polls.push(now());
      return mode === "all" ? items.splice(0) : items.splice(0, 1);
    },
  };
}

const echo = tool("echo", () => textResult("echoed"));

function texts(events: readonly AgentEvent[]): string[] {
  return agentEnd(events).messages.map((m) => textOf(m) || (m as { role: string }).role);
}

describe("L7: steering", () => {
  it("L7: steering queued before the run is polled at run start and follows the prompt in the first request", () => {
    const steering = queue("all", [user("also this")]);
    const provider = fauxProvider([{ content: "ok" }]);
    const events = collectSync(agentLoop([user("go")], { messages: [] }, { model, getSteeringMessages: steering.poll }, undefined, provider));
    expect(provider.requests).toHaveLength(1);
    expect(provider.requests[0]!.messages.map(textOf)).toEqual(["go", "also this"]);
    expect(texts(events)).toEqual(["go", "also this", "ok"]);
  });

  it("L7: skipInitialSteeringPoll leaves the queue alone at run start (the Agent's continue() drained a batch already)", () => {
    const steering = queue("all", [user("later")]);
    const provider = fauxProvider([{ content: "first" }, { content: "second" }]);
    const events = collectSync(runAgentLoop({ prompts: [user("go")], context: { messages: [] }, config: { model, getSteeringMessages: steering.poll }, streamFn: provider, skipInitialSteeringPoll: true }));
    expect(texts(events)).toEqual(["go", "first", "later", "second"]);
  });

  it("L7: steering is never polled inside a tool batch — only after the complete turn", () => {
    const scheduler = newScheduler();
    const steering = queue("all");
    steering.clock(() => scheduler.now());
    scheduler.run(() => {
      const provider = fauxProvider([{ content: [fauxToolCall("a", {}, "1"), fauxToolCall("b", {}, "2")] }, { content: "done" }]);
      const config = { model, scheduler, toolExecution: "sequential" as const, getSteeringMessages: steering.poll };
      agentLoop([user("go")], contextWith([timerTool("a", 10), timerTool("b", 10)]), config, undefined, provider).subscribe();
    });
    // run start; after turn 1 (20) and once more after prepareNextTurn (nothing was pending); after turn 2
    expect(steering.polls).toEqual([0, 20, 20, 20]);
  });

  it("L7: steering is polled once more after prepareNextTurn, picking up what arrived while it ran", () => {
    const scheduler = newScheduler();
    const steering = queue("one-at-a-time");
    steering.clock(() => scheduler.now());
    let events: AgentEvent[] = [];
    scheduler.run(({ cold }) => {
      cold("5ms s", { s: user("typed during compaction") }).subscribe((m) => steering.items.push(m));
      const provider = fauxProvider([{ content: [fauxToolCall("echo", {}, "1")] }, { content: "done" }]);
      const config = { model, scheduler, getSteeringMessages: steering.poll, prepareNextTurn: () => timer(10).pipe(map(() => undefined)) };
      events = [];
      agentLoop([user("go")], contextWith([echo]), config, undefined, provider).subscribe((e) => events.push(e));
    });
    expect(steering.polls).toEqual([0, 0, 10, 10]);
    expect(texts(events)).toEqual(["go", "assistant", "echoed", "typed during compaction", "done"]);
  });

  it("L7: one-at-a-time steering delivers one message per turn; 'all' delivers them together", () => {
    const run = (mode: QueueMode) => {
      const steering = queue(mode);
      const script: FauxScriptEntry[] = [{ content: [fauxToolCall("echo", {}, "1")] }, { content: "r2" }, { content: "r3" }, { content: "r4" }];
      const provider = fauxProvider(script);
      // the user types two messages while the tool runs
      const typing = tool("echo", () => {
        steering.items.push(user("s1"), user("s2"));
        return textResult("echoed");
      });
      const events = collectSync(agentLoop([user("go")], contextWith([typing]), { model, getSteeringMessages: steering.poll }, undefined, provider));
      return { provider, events };
    };
    const one = run("one-at-a-time");
    expect(one.provider.requests).toHaveLength(3);
    expect(texts(one.events)).toEqual(["go", "assistant", "echoed", "s1", "r2", "s2", "r3"]);
    const all = run("all");
    expect(all.provider.requests).toHaveLength(2);
    expect(texts(all.events)).toEqual(["go", "assistant", "echoed", "s1", "s2", "r2"]);
  });

  it("L7: a steering poll may return a promise or an Observable", async () => {
    const provider = fauxProvider([{ content: "ok" }]);
    const queued = [[user("from an Observable")]];
    const events = collectSync(agentLoop([user("go")], { messages: [] }, { model, getSteeringMessages: () => of(queued.shift() ?? []) }, undefined, provider));
    expect(texts(events)).toEqual(["go", "from an Observable", "ok"]);
    const viaPromise = await new Promise<AgentEvent[]>((resolve) => {
      const seen: AgentEvent[] = [];
      const answers = [[user("from a promise")]];
      agentLoop([user("go")], { messages: [] }, { model, getSteeringMessages: async () => answers.shift() ?? [] }, undefined, fauxProvider([{ content: "ok" }])).subscribe({ next: (e) => seen.push(e), complete: () => resolve(seen) });
    });
    expect(texts(viaPromise)).toEqual(["go", "from a promise", "ok"]);
  });

  it("L7: a poll that returns undefined or null counts as empty; a non-array is a clear failure", () => {
    for (const none of [undefined, null]) {
      const provider = fauxProvider([{ content: "ok" }]);
      const events = collectSync(agentLoop([user("go")], { messages: [] }, { model, getSteeringMessages: () => none as never, getFollowUpMessages: () => none as never }, undefined, provider));
      expect(texts(events)).toEqual(["go", "ok"]);
      expect((agentEnd(events).messages.at(-1) as { stopReason?: string }).stopReason).toBe("stop");
    }
    const broken = collectSync(agentLoop([user("go")], { messages: [] }, { model, getSteeringMessages: () => "nope" as never }, undefined, fauxProvider([{ content: "ok" }])));
    expect(agentEnd(broken).messages.at(-1)).toMatchObject({ stopReason: "error", errorMessage: "getSteeringMessages must return an array of messages, got string." });
  });
});

describe("L7: follow-up", () => {
  it("L7: follow-up is polled only when the run would otherwise stop — never after a tool turn", () => {
    const followUp = queue("all");
    let turn = 0;
    followUp.clock(() => turn);
    const provider = fauxProvider([{ content: [fauxToolCall("echo", {}, "1")] }, { content: [fauxToolCall("echo", {}, "2")] }, { content: "done" }]);
    collectSync(agentLoop([user("go")], contextWith([echo]), { model, getFollowUpMessages: followUp.poll, finishTurn: () => void turn++ }, undefined, provider));
    expect(followUp.polls).toEqual([3]);
  });

  it("L7: steering wins over follow-up: follow-up is polled only when steering is empty", () => {
    const order: string[] = [];
    const steering = [[], [user("steer")]];
    const followUps = [[user("follow")]];
    const provider = fauxProvider([{ content: "r1" }, { content: "r2" }, { content: "r3" }]);
    const events = collectSync(
      agentLoop([user("go")], { messages: [] }, {
        model,
        getSteeringMessages: () => (order.push("steering"), steering.shift() ?? []),
        getFollowUpMessages: () => (order.push("followUp"), followUps.shift() ?? []),
      }, undefined, provider),
    );
    expect(texts(events)).toEqual(["go", "r1", "steer", "r2", "follow", "r3"]);
    // start; after r1 (steer found, so no second poll after prepareNextTurn); after r2, then follow-up;
    // after r3, then follow-up
    expect(order).toEqual(["steering", "steering", "steering", "followUp", "steering", "followUp"]);
  });

  it("L7: one-at-a-time follow-up starts one turn per message; 'all' starts one turn with all of them", () => {
    const run = (mode: QueueMode) => {
      const followUp = queue(mode, [user("f1"), user("f2")]);
      const provider = fauxProvider([{ content: "r1" }, { content: "r2" }, { content: "r3" }]);
      return collectSync(agentLoop([user("go")], { messages: [] }, { model, getFollowUpMessages: followUp.poll }, undefined, provider));
    };
    expect(texts(run("one-at-a-time"))).toEqual(["go", "r1", "f1", "r2", "f2", "r3"]);
    expect(texts(run("all"))).toEqual(["go", "r1", "f1", "f2", "r2"]);
  });

  it("L7: follow-up appears as its own turn: turn_end, turn_start, then the messages", () => {
    const followUps = [[user("more")]];
    const events = collectSync(agentLoop([user("go")], { messages: [] }, { model, getFollowUpMessages: () => followUps.shift() ?? [] }, undefined, fauxProvider([{ content: "a" }, { content: "b" }])));
    const labels = events.filter((e) => e.type !== "message_update").map((e) => (e.type === "message_end" ? `end:${textOf(e.message)}` : e.type)).filter((l) => !l.startsWith("message_start"));
    expect(labels).toEqual(["agent_start", "turn_start", "end:go", "end:a", "turn_end", "turn_start", "end:more", "end:b", "turn_end", "agent_end"]);
    expect(roles(agentEnd(events).messages)).toEqual(["user", "assistant", "user", "assistant"]);
  });
});
