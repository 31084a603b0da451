/**
 * An abort and the Agent's queues (SPEC A10), as pi-agent-core 1.6 does it: `abort()` stops the
 * run and leaves the queues alone. What the run had not taken stays queued for the next
 * `prompt()` or `continue()`; a poll point the aborted run still reaches (L7) takes what is
 * queued there and commits it before the aborted answer. No queued message is dropped. Whole
 * runs in virtual time.
 */
import { describe, expect, it } from "vitest";
import type { AgentEvent, AssistantMessage, Message } from "../../src/index.js";
import { fauxProvider, fauxToolCall } from "../../src/testing/index.js";
import { agentWith, newScheduler, textOf, timerTool, userTexts } from "./support.js";

/** The transcript as `role:text`, with the stop reason of assistant messages. */
function lines(messages: readonly unknown[]): string[] {
  return messages.map((m) => {
    const message = m as Message;
    if (message.role === "assistant") return `assistant:${(message as AssistantMessage).stopReason}`;
    if (message.role === "toolResult") return `toolResult:${textOf(message)}`;
    return `${message.role}:${textOf(message)}`;
  });
}

describe("A10: abort() leaves the queues alone", () => {
  it("A10: abort while the answer streams: queued steering and follow-up stay queued, none is committed; continue() then delivers them (steering first, A3)", () => {
    const scheduler = newScheduler();
    const provider = fauxProvider([{ content: "a long answer that streams for a while" }, { content: "about the steering" }, { content: "about the follow-up" }], { scheduler, delay: 1 });
    const agent = agentWith({ scheduler, streamFn: provider });
    scheduler.run(() => {
      scheduler.schedule(() => {
        agent.steer("steer");
        agent.followUp("follow");
        agent.abort();
      }, 3);
      agent.prompt$("go").subscribe();
    });
    expect(lines(agent.state.messages)).toEqual(["user:go", "assistant:aborted"]);
    expect(agent.state.outcome).toBe("aborted");
    expect(agent.hasQueuedMessages()).toBe(true);
    expect(userTexts(agent.peekQueuedMessages())).toEqual(["steer"]);
    expect(provider.requests).toHaveLength(1);

    // Nothing started by itself; the next continue() takes the steering batch, then the follow-up.
    scheduler.run(() => agent.continue$().subscribe());
    expect(lines(agent.state.messages)).toEqual(["user:go", "assistant:aborted", "user:steer", "assistant:stop", "user:follow", "assistant:stop"]);
    expect(agent.hasQueuedMessages()).toBe(false);
    expect(agent.state.outcome).toBe("completed");
  });

  it("A10: abort during a tool batch: the steering poll after the batch still takes the steering message (committed before the aborted answer, as in pi); the follow-up stays queued", () => {
    const scheduler = newScheduler();
    const provider = fauxProvider([{ content: [fauxToolCall("slow", {}, "c1")] }, { content: "never asked" }], { scheduler, delay: 1 });
    const agent = agentWith({ scheduler, streamFn: provider, initialState: { tools: [timerTool("slow", 10)] } });
    const ends: AgentEvent[] = [];
    agent.subscribe((event) => {
      if (event.type === "agent_end") ends.push(event);
    });
    scheduler.run(() => {
      agent.subscribe((event) => {
        if (event.type !== "tool_execution_start") return;
        agent.steer("steer");
        agent.followUp("follow");
        scheduler.schedule(() => agent.abort(), 3);
      });
      agent.prompt$("go").subscribe();
    });
    expect(lines(agent.state.messages).slice(1)).toEqual(["user:go", "assistant:toolUse", "toolResult:Operation aborted", "user:steer", "assistant:aborted"]);
    expect(userTexts(agent.peekQueuedMessages())).toEqual(["follow"]);
    // The aborted run asked the model nothing more (SPEC L10).
    expect(provider.requests).toHaveLength(1);
    expect(ends.map((e) => (e.type === "agent_end" ? e.outcome : undefined))).toEqual(["aborted"]);
  });

  it("A10: abort after the last answer (from a turn_end listener): the follow-up poll, where the run would stop, takes the follow-up and commits it before the aborted answer; nothing is lost", () => {
    const scheduler = newScheduler();
    const provider = fauxProvider([{ content: "done" }, { content: "never asked" }], { scheduler, delay: 1 });
    const agent = agentWith({ scheduler, streamFn: provider });
    let once = true;
    agent.subscribe((event) => {
      if (event.type !== "turn_end" || !once) return;
      once = false;
      agent.followUp("follow");
      agent.abort();
    });
    scheduler.run(() => agent.prompt$("go").subscribe());
    expect(lines(agent.state.messages)).toEqual(["user:go", "assistant:stop", "user:follow", "assistant:aborted"]);
    expect(agent.hasQueuedMessages()).toBe(false);
    expect(provider.requests).toHaveLength(1);
    expect(agent.state.outcome).toBe("aborted");
  });
});
