/**
 * The Agent's queues on the stream mechanism (Q4): `steer()` is a `next`, and any stream can be
 * routed into steering or follow-up with `steerFrom` / `followUpFrom`, in virtual time.
 */
import { debounceTime, map, Subject } from "rxjs";
import { describe, expect, it } from "vitest";
import { AgentQueues, type QueueObserver } from "../../src/agent/agent-queues.js";
import { AgentStateStore } from "../../src/agent/agent-state.js";
import type { AgentMessage } from "../../src/index.js";
import { fauxProvider } from "../../src/testing/index.js";
import { agentWith, newScheduler, textOf, user } from "./support.js";

describe("Q4: the Agent's queues", () => {
  it("Q4 L7: a debounced input stream routed with steerFrom lands once, after the burst, in the running prompt", () => {
    const scheduler = newScheduler();
    const transcripts: string[][] = [];
    scheduler.run(({ hot }) => {
      const keys = hot("-abc", { a: "h", b: "he", c: "hel" });
      const provider = fauxProvider([{ content: "first" }, { content: "second" }], { scheduler, delay: 3 });
      const agent = agentWith({ streamFn: provider, scheduler });
      agent.steerFrom(keys.pipe(debounceTime(2), map((text) => user(text))));
      agent.prompt$("go").subscribe({ complete: () => transcripts.push(agent.state.messages.map((m) => textOf(m))) });
    });
    expect(transcripts).toEqual([["go", "first", "hel", "second"]]);
  });

  it("Q4: followUpFrom queues text as user messages; unsubscribing stops the routing", () => {
    const agent = agentWith({ streamFn: fauxProvider([]) });
    const source = new Subject<string>();
    const routing = agent.followUpFrom(source);
    source.next("later");
    routing.unsubscribe();
    source.next("ignored");
    expect(agent.peekQueuedMessages().map(textOf)).toEqual(["later"]);
  });

  it("Q4 A2: steer() and followUp() still queue as before; clearing empties both", () => {
    const agent = agentWith({ streamFn: fauxProvider([]), steeringMode: "all" });
    agent.steer("a");
    agent.steer(user("b"));
    agent.followUp("c");
    expect(agent.peekQueuedMessages().map(textOf)).toEqual(["a", "b"]);
    expect(agent.hasQueuedMessages()).toBe(true);
    agent.clearAllQueues();
    expect(agent.hasQueuedMessages()).toBe(false);
  });
});

describe("Q4: a routed stream that errors", () => {
  it("Q4: stops routing and sets state.errorMessage; what it sent stays queued; nothing is thrown", () => {
    const agent = agentWith({ streamFn: fauxProvider([]) });
    const source = new Subject<string>();
    agent.steerFrom(source);
    source.next("first");
    source.error(new Error("socket closed"));
    expect(agent.state.errorMessage).toBe("The stream given to steerFrom() failed: socket closed");
    expect(agent.peekQueuedMessages().map(textOf)).toEqual(["first"]);
  });

  it("Q4: a failing followUpFrom stream is named in state.errorMessage", () => {
    const agent = agentWith({ streamFn: fauxProvider([]) });
    const source = new Subject<string>();
    agent.followUpFrom(source);
    source.error(new Error("socket closed"));
    expect(agent.state.errorMessage).toBe("The stream given to followUpFrom() failed: socket closed");
  });
});

describe("Q4 L7: which queue a routed stream feeds", () => {
  it("Q4 L7: steerFrom feeds steering: what a poll would take now is its message, not the older follow-up", () => {
    const agent = agentWith({ streamFn: fauxProvider([]) });
    agent.followUp("queued to follow up");
    const steering = new Subject<string>();
    agent.steerFrom(steering);
    steering.next("steer");
    expect(agent.peekQueuedMessages().map(textOf)).toEqual(["steer"]);
  });
});

describe("Q4 S1: what the queues tell their observer (the session journal)", () => {
  function observed(): { queues: AgentQueues; told: string[] } {
    const queues = new AgentQueues("all", "all", new AgentStateStore());
    const told: string[] = [];
    const observer: QueueObserver = {
      enqueued: (queue, message) => told.push(`enqueued ${queue} ${textOf(message)}`),
      took: (queue, messages) => told.push(`took ${queue} ${messages.map(textOf).join(",")}`),
      cleared: (queue, messages) => told.push(`cleared ${queue} ${messages.map(textOf).join(",")}`),
    };
    queues.observer = observer;
    return { queues, told };
  }

  it("Q4 S1: each routed message is told with the queue it joined", () => {
    const { queues, told } = observed();
    const steering = new Subject<AgentMessage>();
    const followUp = new Subject<AgentMessage>();
    queues.steerFrom(steering);
    queues.followUpFrom(followUp);
    steering.next(user("s"));
    followUp.next(user("f"));
    queues.steer(user("s2"));
    queues.queueFollowUp(user("f2"));
    expect(told).toEqual(["enqueued steering s", "enqueued followUp f", "enqueued steering s2", "enqueued followUp f2"]);
  });

  it("Q4 S1: a poll or a clear that finds nothing is not told (no empty journal entry)", () => {
    const { queues, told } = observed();
    expect(queues.take("steering")).toEqual([]);
    queues.clear();
    expect(told).toEqual([]);
    queues.steer(user("s"));
    queues.queueFollowUp(user("f"));
    queues.take("steering");
    queues.clear();
    expect(told).toEqual(["enqueued steering s", "enqueued followUp f", "took steering s", "cleared followUp f"]);
  });
});
