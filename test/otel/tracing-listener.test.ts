/**
 * Tracing the stateful Agent through its listeners (`instrumentAgent`, `tracingListener`),
 * against the official SDK: the same span tree as the operator's, what is read from the Agent,
 * and every span ended on abort, on an unsubscribed `prompt$` and when tracing stops mid-run.
 */
import { SpanStatusCode } from "@opentelemetry/api";
import { ignoreElements } from "rxjs";
import { TestScheduler } from "rxjs/testing";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/index.js";
import { instrumentAgent, tracingListener } from "../../src/otel/index.js";
import { fauxProvider, fauxToolCall } from "../../src/testing/index.js";
import { delayedTool, only, recorder, tree, when } from "./support.js";

function newScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toStrictEqual(expected));
}

/** An Agent in virtual time whose model asks for `slow` (30 frames) and `fast` (10) at once, then answers. */
function parallelAgent(scheduler: TestScheduler, replies = 1) {
  const script = Array.from({ length: replies }, () => [{ content: [fauxToolCall("slow", {}), fauxToolCall("fast", {})] }, { content: "done" }]).flat();
  const faux = fauxProvider(script, { scheduler, delay: 1 });
  const model = { ...faux.model, baseUrl: "http://127.0.0.1:8080/v1" };
  const tools = [delayedTool("slow", 30, "slow result", "Takes its time."), delayedTool("fast", 10, "fast result", "Quick.")];
  return new Agent({ streamFn: faux, scheduler, sessionId: "sess-1", initialState: { systemPrompt: "Be brief.", model, tools } });
}

const TREE = ["invoke_agent helper", "  chat faux-1", "  execute_tool fast", "  execute_tool slow", "  chat faux-1"];

describe("instrumentAgent", () => {
  it("(SPEC O1, O2) traces each run: the tree, the times, and what it reads from the Agent (model, server, session, tool descriptions)", () => {
    const { provider, spans, open } = recorder();
    const scheduler = newScheduler();
    scheduler.run(({ expectObservable }) => {
      const agent = parallelAgent(scheduler);
      instrumentAgent(agent, { tracerProvider: provider, agentName: "helper", now: () => scheduler.now() });
      expectObservable(agent.prompt$("go").pipe(ignoreElements()), "^").toBe("41ms |", undefined);
    });
    const all = spans();
    expect(tree(all)).toEqual(TREE);
    expect(open()).toEqual([]);
    const run = only(all, "invoke_agent helper");
    expect(when(run)).toEqual({ start: 0, end: 41 });
    expect(run.attributes).toMatchObject({
      "gen_ai.provider.name": "faux",
      "gen_ai.request.model": "faux-1",
      "gen_ai.conversation.id": "sess-1",
      "server.address": "127.0.0.1",
      "server.port": 8080,
    });
    expect(only(all, "execute_tool slow").attributes["gen_ai.tool.description"]).toBe("Takes its time.");
    expect(when(only(all, "execute_tool fast"))).toEqual({ start: 7, end: 17 });
    for (const span of all.filter((s) => s !== run)) expect(span.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
  });

  it("(SPEC O2) with captureContent the chat input is the Agent's whole transcript: the system prompt, earlier runs, this run", () => {
    const { provider, spans } = recorder();
    const scheduler = newScheduler();
    scheduler.run(({ expectObservable }) => {
      const agent = parallelAgent(scheduler, 2);
      instrumentAgent(agent, { tracerProvider: provider, captureContent: true });
      expectObservable(agent.prompt$("first").pipe(ignoreElements())).toBe("41ms |", undefined);
      scheduler.schedule(() => agent.prompt$("second").subscribe(), 50);
    });
    const chats = spans().filter((s) => s.name === "chat faux-1");
    const inputs = chats.map((s) => JSON.parse(s.attributes["gen_ai.input.messages"] as string) as { role: string; parts: { content?: string }[] }[]);
    expect(inputs[0]!.map((m) => m.role)).toEqual(["system", "user"]);
    expect(inputs[0]![0]!.parts).toEqual([{ type: "text", content: "Be brief." }]);
    // The last request of the second run: the system prompt, all of run one, then run two so far.
    const last = inputs.at(-1)!;
    expect(last.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "tool", "assistant", "user", "assistant", "tool", "tool"]);
    expect(last[6]!.parts).toEqual([{ type: "text", content: "second" }]);
  });

  it("(SPEC O4) agent.abort() mid-batch: every span ends at the abort's frame; the run carries error.type aborted", () => {
    const { provider, spans, open } = recorder();
    const scheduler = newScheduler();
    scheduler.run(({ expectObservable }) => {
      const agent = parallelAgent(scheduler);
      instrumentAgent(agent, { tracerProvider: provider, agentName: "helper", now: () => scheduler.now() });
      scheduler.schedule(() => agent.abort(), 12);
      expectObservable(agent.prompt$("go").pipe(ignoreElements())).toBe("12ms |", undefined);
    });
    expect(open()).toEqual([]);
    const all = spans();
    expect(tree(all)).toEqual(TREE);
    const run = only(all, "invoke_agent helper");
    expect(when(run)).toEqual({ start: 0, end: 12 });
    expect(run.status.code).toBe(SpanStatusCode.ERROR);
    expect(run.attributes["error.type"]).toBe("aborted");
    expect(when(only(all, "execute_tool slow")).end).toBe(12);
  });

  it("(SPEC O4) unsubscribing from prompt$ aborts the run, which still reaches agent_end: every span ends", () => {
    const { provider, spans, open } = recorder();
    const scheduler = newScheduler();
    scheduler.run(({ expectObservable }) => {
      const agent = parallelAgent(scheduler);
      instrumentAgent(agent, { tracerProvider: provider, agentName: "helper", now: () => scheduler.now() });
      expectObservable(agent.prompt$("go").pipe(ignoreElements()), "^ 19ms !").toBe("", undefined);
    });
    expect(open()).toEqual([]);
    const run = only(spans(), "invoke_agent helper");
    expect(when(run)).toEqual({ start: 0, end: 20 });
    expect(run.attributes["error.type"]).toBe("aborted");
  });

  it("(SPEC O4) stopping tracing mid-run ends the open spans (rxagent.tracing_stopped); nothing after is traced", () => {
    const { provider, spans, open } = recorder();
    const scheduler = newScheduler();
    let agent!: Agent;
    scheduler.run(({ expectObservable }) => {
      agent = parallelAgent(scheduler, 2);
      const stop = instrumentAgent(agent, { tracerProvider: provider, agentName: "helper", now: () => scheduler.now() });
      scheduler.schedule(() => stop(), 20);
      expectObservable(agent.prompt$("go").pipe(ignoreElements())).toBe("41ms |", undefined);
      scheduler.schedule(() => agent.prompt$("again").subscribe(), 50);
    });
    expect(open()).toEqual([]);
    const all = spans();
    expect(tree(all)).toEqual(["invoke_agent helper", "  chat faux-1", "  execute_tool fast", "  execute_tool slow"]);
    const stopped = all.filter((s) => s.attributes["rxagent.tracing_stopped"] === true).map((s) => s.name);
    expect(stopped.sort()).toEqual(["execute_tool slow", "invoke_agent helper"]);
    expect(when(only(all, "invoke_agent helper")).end).toBe(20);
    expect(agent.state.messages.length).toBe(11); // both runs ran to the end
  });
});

describe("instrumentAgent: options", () => {
  it("(SPEC O1, O2) an option given as undefined leaves the Agent's own value in place (model, tools, session)", () => {
    const { provider, spans } = recorder();
    const scheduler = newScheduler();
    scheduler.run(({ expectObservable }) => {
      const agent = parallelAgent(scheduler);
      instrumentAgent(agent, { tracerProvider: provider, agentName: "helper", conversationId: undefined, model: undefined, tools: undefined, history: undefined });
      expectObservable(agent.prompt$("go").pipe(ignoreElements())).toBe("41ms |", undefined);
    });
    const all = spans();
    expect(only(all, "invoke_agent helper").attributes).toMatchObject({ "gen_ai.conversation.id": "sess-1", "gen_ai.request.model": "faux-1", "server.port": 8080 });
    expect(only(all, "execute_tool slow").attributes["gen_ai.tool.description"]).toBe("Takes its time.");
  });

  it("(SPEC O1) an option given wins over the Agent's value", () => {
    const { provider, spans } = recorder();
    const scheduler = newScheduler();
    scheduler.run(({ expectObservable }) => {
      const agent = parallelAgent(scheduler);
      instrumentAgent(agent, { tracerProvider: provider, conversationId: "thread-9", tools: [{ name: "slow", description: "Given." }] });
      expectObservable(agent.prompt$("go").pipe(ignoreElements())).toBe("41ms |", undefined);
    });
    expect(only(spans(), "invoke_agent").attributes["gen_ai.conversation.id"]).toBe("thread-9");
    expect(only(spans(), "execute_tool slow").attributes["gen_ai.tool.description"]).toBe("Given.");
  });

  it("(SPEC O4) tracing that fails mid-run (a tools reader that throws) ends the open spans; the Agent's run is untouched", () => {
    const { provider, spans, open } = recorder();
    const scheduler = newScheduler();
    let agent!: Agent;
    scheduler.run(({ expectObservable }) => {
      agent = parallelAgent(scheduler);
      const tools = () => {
        throw new Error("registry gone");
      };
      instrumentAgent(agent, { tracerProvider: provider, agentName: "helper", tools, now: () => scheduler.now() });
      expectObservable(agent.prompt$("go").pipe(ignoreElements())).toBe("41ms |", undefined);
    });
    expect(open()).toEqual([]);
    expect(agent.state.messages.length).toBe(6); // system, user, assistant, two results, assistant
    const run = only(spans(), "invoke_agent helper");
    expect(run.attributes["error.type"]).toBe("tracing_error");
    // Ended when tracing failed, at the first tool call (frame 7), not at the run's end.
    expect(when(run).end).toBe(7);
  });
});

describe("tracingListener", () => {
  it("(SPEC O1) agent.subscribe(tracingListener(...)) traces with the options given; close() ends a run left open", () => {
    const { provider, spans, open } = recorder();
    const scheduler = newScheduler();
    scheduler.run(({ expectObservable }) => {
      const agent = parallelAgent(scheduler);
      const listener = tracingListener({ tracerProvider: provider, agentName: "helper", now: () => scheduler.now() });
      const remove = agent.subscribe(listener);
      scheduler.schedule(() => {
        remove();
        listener.close();
      }, 30);
      expectObservable(agent.prompt$("go").pipe(ignoreElements())).toBe("41ms |", undefined);
    });
    expect(open()).toEqual([]);
    const all = spans();
    expect(tree(all)).toEqual(["invoke_agent helper", "  chat faux-1", "  execute_tool fast", "  execute_tool slow"]);
    // Without the Agent's model given, the run span takes the provider from the first answer.
    expect(only(all, "invoke_agent helper").attributes["gen_ai.provider.name"]).toBe("faux");
    expect(only(all, "invoke_agent helper").attributes["gen_ai.request.model"]).toBeUndefined();
    expect(when(only(all, "execute_tool slow")).end).toBe(30);
  });
});
