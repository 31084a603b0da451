/**
 * The Agent's queues on the stream mechanism (Q4): `steer()` is a `next`, and any stream can be
 * routed into steering or follow-up with `steerFrom` / `followUpFrom`, in virtual time.
 */
import { debounceTime, map, Subject } from "rxjs";
import { describe, expect, it } from "vitest";
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
});
