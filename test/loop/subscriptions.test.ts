/**
 * Who is subscribed when (SPEC L1, L10, T1, T4), stated with `expectSubscriptions`: the provider's
 * stream and Observable tools are subscribed exactly while their work runs, and unsubscribed at
 * the frame a run is cancelled or aborted.
 */
import { first, map, type Observable } from "rxjs";
import type { ColdObservable } from "rxjs/internal/testing/ColdObservable";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../../src/loop/agent-loop.js";
import type { AgentEvent, AgentTool, AgentToolResult, AssistantMessageEvent, StreamFn } from "../../src/index.js";
import { assistantMessage, contextWith, model, protocolEvents, textResult, tool, user } from "../helpers/fixtures.js";
import { newScheduler } from "../helpers/marbles.js";
import { fauxProvider } from "../../src/testing/index.js";

type Cold = (marbles: string, values?: Record<string, unknown>) => ColdObservable<unknown>;

/** The protocol events of `message`, one per frame from frame 0, as a cold Observable (e.g. `abcd|`). */
function coldReply(cold: Cold, content: Parameters<typeof assistantMessage>[0], stopReason: Parameters<typeof assistantMessage>[1] = "stop"): ColdObservable<AssistantMessageEvent> {
  const events = protocolEvents(assistantMessage(content, stopReason));
  const letters = "abcdefghijklmnopqrstuvwxyz".slice(0, events.length);
  return cold(letters, Object.fromEntries(events.map((e, i) => [letters[i]!, e]))) as ColdObservable<AssistantMessageEvent>;
}

const call = (name: string, id: string) => ({ type: "toolCall" as const, id, name, arguments: {} });

/** A provider that answers request n with the n-th cold Observable. */
function providerOf(replies: ColdObservable<AssistantMessageEvent>[]): StreamFn {
  let n = 0;
  return () => replies[n++] as Observable<AssistantMessageEvent>;
}

/** An Observable tool whose result is the given cold Observable. */
function coldTool(name: string, source: ColdObservable<unknown>): AgentTool {
  return tool(name, () => source.pipe(map(() => textResult(name))) as Observable<AgentToolResult>);
}

describe("subscriptions", () => {
  it("L1: the provider is subscribed from the request until its final event", () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectSubscriptions }) => {
      const reply = coldReply(cold, "hi"); // start, text_start, text_delta, text_end, done: frames 0–4
      agentLoop([user("go")], { messages: [] }, { model, scheduler }, undefined, providerOf([reply])).subscribe();
      expectSubscriptions(reply.subscriptions).toBe("^---!");
    });
  });

  it("L10: unsubscribing the run unsubscribes the provider at that frame", () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectSubscriptions }) => {
      const reply = coldReply(cold, "hi");
      const subscription = agentLoop([user("go")], { messages: [] }, { model, scheduler }, undefined, providerOf([reply])).subscribe();
      scheduler.schedule(() => subscription.unsubscribe(), 2);
      expectSubscriptions(reply.subscriptions).toBe("^-!");
    });
  });

  it("L10: abort unsubscribes the provider at the frame of the abort; the run ends aborted", () => {
    const scheduler = newScheduler();
    const events: AgentEvent[] = [];
    scheduler.run(({ cold, expectSubscriptions }) => {
      const reply = coldReply(cold, "hi");
      const controller = new AbortController();
      agentLoop([user("go")], { messages: [] }, { model, scheduler }, controller.signal, providerOf([reply])).subscribe((e) => events.push(e));
      scheduler.schedule(() => controller.abort(), 3);
      expectSubscriptions(reply.subscriptions).toBe("^--!");
    });
    expect(events.at(-1)?.type).toBe("agent_end");
    const end = events.find((e) => e.type === "turn_end") as { message: { stopReason: string } };
    expect(end.message.stopReason).toBe("aborted");
  });

  it("T1 T4 L3: parallel Observable tools are subscribed together after the answer, each until its result; the second request after both", () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectSubscriptions }) => {
      const first = coldReply(cold, [call("slow", "a"), call("fast", "b")], "toolUse"); // frames 0–5 (start, 2×(start, end), done)
      const second = coldReply(cold, "done");
      const slow = cold("------x|");
      const fast = cold("--x|");
      agentLoop([user("go")], contextWith([coldTool("slow", slow), coldTool("fast", fast)]), { model, scheduler }, undefined, providerOf([first, second])).subscribe();
      expectSubscriptions(first.subscriptions).toBe("^----!");
      expectSubscriptions(slow.subscriptions).toBe("-----^------!");
      expectSubscriptions(fast.subscriptions).toBe("-----^--!");
      expectSubscriptions(second.subscriptions).toBe("------------^---!");
    });
  });

  it("T4: a sequential batch subscribes each tool when the previous one ended", () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectSubscriptions }) => {
      const first = coldReply(cold, [call("one", "a"), call("two", "b")], "toolUse");
      const one = cold("---x|");
      const two = cold("-x|");
      agentLoop([user("go")], contextWith([coldTool("one", one), coldTool("two", two)]), { model, scheduler, toolExecution: "sequential" }, undefined, providerOf([first, coldReply(cold, "ok")])).subscribe();
      expectSubscriptions(one.subscriptions).toBe("-----^---!");
      expectSubscriptions(two.subscriptions).toBe("---------^-!");
    });
  });

  it("L10: unsubscribing the run during a batch unsubscribes every running tool at that frame", () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectSubscriptions }) => {
      const first = coldReply(cold, [call("slow", "a"), call("fast", "b")], "toolUse");
      const slow = cold("------x|");
      const fast = cold("----x|");
      const subscription = agentLoop([user("go")], contextWith([coldTool("slow", slow), coldTool("fast", fast)]), { model, scheduler }, undefined, providerOf([first])).subscribe();
      scheduler.schedule(() => subscription.unsubscribe(), 7);
      expectSubscriptions(slow.subscriptions).toBe("-----^-!");
      expectSubscriptions(fast.subscriptions).toBe("-----^-!");
    });
  });

  it("L10: abort during a batch unsubscribes the Observable tools at that frame; each call still gets one result", () => {
    const scheduler = newScheduler();
    const events: AgentEvent[] = [];
    scheduler.run(({ cold, expectSubscriptions }) => {
      const first = coldReply(cold, [call("slow", "a"), call("fast", "b")], "toolUse");
      const slow = cold("------x|");
      const fast = cold("--x|");
      const controller = new AbortController();
      agentLoop([user("go")], contextWith([coldTool("slow", slow), coldTool("fast", fast)]), { model, scheduler }, controller.signal, providerOf([first, coldReply(cold, "never")])).subscribe((e) => events.push(e));
      scheduler.schedule(() => controller.abort(), 9);
      expectSubscriptions(fast.subscriptions).toBe("-----^--!");
      expectSubscriptions(slow.subscriptions).toBe("-----^---!");
    });
    const results = events.filter((e) => e.type === "tool_execution_end").map((e) => (e as { toolCallId: string; isError: boolean }).toolCallId);
    expect(results.sort()).toEqual(["a", "b"]);
  });
});

describe("L10: a consumer that leaves", () => {
  it("L10: a consumer that leaves before agent_end still aborts the run's signal", () => {
    const signals: AbortSignal[] = [];
    const provider = fauxProvider([{ content: "hi" }]);
    const streamFn: StreamFn = (m, context, options) => {
      if (options?.signal) signals.push(options.signal);
      return provider(m, context, options);
    };
    agentLoop([user("go")], contextWith([]), { model }, undefined, streamFn)
      .pipe(first((event) => event.type === "message_end" && (event.message as { role?: string }).role === "assistant"))
      .subscribe();
    expect(signals[0]!.aborted).toBe(true);
  });
});
