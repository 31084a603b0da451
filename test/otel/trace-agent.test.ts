/**
 * `traceAgent` against the official SDK and its in-memory exporter: the span tree, names,
 * parentage, times (in virtual time), attributes and statuses of runs with parallel tools, a
 * failing provider, a failing tool, an abort and an unsubscribe.
 */
import { type ContextManager, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, context as otelContext } from "@opentelemetry/api";
import { filter, map, Observable, of, take, takeWhile, tap } from "rxjs";
import { TestScheduler } from "rxjs/testing";
import { describe, expect, it } from "vitest";
import { agentLoop, type AgentEvent, type AgentTool, type Model } from "../../src/index.js";
import { emptyUsage } from "../../src/model/assistant-message.js";
import type { AssistantMessage, AssistantMessageEvent, StreamFn } from "../../src/model/messages.js";
import { traceAgent } from "../../src/otel/index.js";
import { recordProviderFailure } from "../../src/providers/shared/provider-failure.js";
import { assistantMessage, model } from "../helpers/fixtures.js";
import { fauxProvider, fauxText, fauxToolCall } from "../../src/testing/index.js";
import { attributeKeys, delayedTool, instantTool, only, recorder, textResult, tree, user, when } from "./support.js";

function newScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toStrictEqual(expected));
}

/** Two calls in one answer: `slow` takes 30 frames, `fast` 10; then a closing answer. */
function parallelRun(scheduler: TestScheduler, usage = { input: 10, output: 5, cacheRead: 3 }) {
  const provider = fauxProvider(
    [{ content: [fauxToolCall("slow", {}, "call-slow"), fauxToolCall("fast", {}, "call-fast")], usage }, { content: "done", usage: { input: 20, output: 2 } }],
    { scheduler, delay: 1 },
  );
  const tools = [delayedTool("slow", 30, "slow result", "Takes its time."), delayedTool("fast", 10, "fast result", "Quick.")];
  const run$ = agentLoop([user("go")], { messages: [], tools }, { model: provider.model, scheduler }, undefined, provider);
  return { provider, tools, run$ };
}

describe("traceAgent: spans of a run", () => {
  it("(SPEC O1) parallel tools: invoke_agent over chat, execute_tool ×2 side by side, chat; times in frames", () => {
    const { provider, spans, open } = recorder();
    const scheduler = newScheduler();
    scheduler.run(({ expectObservable }) => {
      const { run$, provider: faux, tools } = parallelRun(scheduler);
      const traced$ = run$.pipe(traceAgent({ tracerProvider: provider, agentName: "weather", model: faux.model, tools, now: () => scheduler.now() }));
      // The closing answer streams in frames 37–41; the run ends there.
      expectObservable(traced$.pipe(filter((e) => e.type === "agent_end"), map(() => "z"))).toBe("41ms (z|)");
    });
    const all = spans();
    expect(tree(all)).toEqual(["invoke_agent weather", "  chat faux-1", "  execute_tool fast", "  execute_tool slow", "  chat faux-1"]);
    expect(open()).toEqual([]);

    const run = only(all, "invoke_agent weather");
    const [chat1, chat2] = all.filter((s) => s.name === "chat faux-1");
    const slow = only(all, "execute_tool slow");
    const fast = only(all, "execute_tool fast");
    for (const child of [chat1!, chat2!, slow, fast]) {
      expect(child.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
      expect(child.spanContext().traceId).toBe(run.spanContext().traceId);
    }
    expect(run.parentSpanContext).toBeUndefined();
    // The answer streams frames 0–7; both calls start at 7; fast ends at 17, slow at 37; the next request goes out at 37.
    expect(when(run)).toEqual({ start: 0, end: 41 });
    expect(when(chat1!)).toEqual({ start: 0, end: 7 });
    expect(when(fast)).toEqual({ start: 7, end: 17 });
    expect(when(slow)).toEqual({ start: 7, end: 37 });
    expect(when(chat2!)).toEqual({ start: 37, end: 41 });
    // Each tool span links to the chat span whose answer asked for it.
    expect(slow.links.map((l) => l.context.spanId)).toEqual([chat1!.spanContext().spanId]);
    expect(fast.links.map((l) => l.context.spanId)).toEqual([chat1!.spanContext().spanId]);
    expect([run.kind, chat1!.kind, slow.kind]).toEqual([SpanKind.INTERNAL, SpanKind.CLIENT, SpanKind.INTERNAL]);
    expect(all.every((s) => s.status.code === SpanStatusCode.UNSET)).toBe(true);
  });

  it("(SPEC O2) GenAI attributes on the run, chat and tool spans; no content by default", () => {
    const { provider, spans } = recorder();
    const scheduler = newScheduler();
    const model: Model = { id: "faux-1", api: "faux", provider: "openai", baseUrl: "https://api.example.com/v1" };
    scheduler.run(({ expectObservable }) => {
      const { run$, tools } = parallelRun(scheduler);
      const traced$ = run$.pipe(traceAgent({ tracerProvider: provider, agentName: "weather", agentId: "agent-7", conversationId: "conv-1", model, tools, now: () => scheduler.now() }));
      expectObservable(traced$.pipe(filter((e) => e.type === "agent_end"), map(() => "z"))).toBe("41ms (z|)");
    });
    const all = spans();
    const run = only(all, "invoke_agent weather");
    expect(run.attributes).toEqual({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "weather",
      "gen_ai.agent.id": "agent-7",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "faux-1",
      "gen_ai.conversation.id": "conv-1",
      "server.address": "api.example.com",
      "server.port": 443,
      // Summed over both answers; cached input counts as input (10 + 3, then 20).
      "gen_ai.usage.input_tokens": 33,
      "gen_ai.usage.output_tokens": 7,
      "gen_ai.usage.cache_read.input_tokens": 3,
    });
    const [chat1, chat2] = all.filter((s) => s.name === "chat faux-1");
    expect(chat1!.attributes).toEqual({
      "gen_ai.operation.name": "chat",
      // The answer's own provider (the faux provider says "faux"), not the configured model's.
      "gen_ai.provider.name": "faux",
      "gen_ai.request.model": "faux-1",
      "gen_ai.conversation.id": "conv-1",
      "server.address": "api.example.com",
      "server.port": 443,
      "rxagent.turn": 1,
      "gen_ai.response.time_to_first_chunk": 0.001,
      "gen_ai.response.model": "faux-1",
      "gen_ai.response.finish_reasons": ["tool_call"],
      "gen_ai.usage.input_tokens": 13,
      "gen_ai.usage.output_tokens": 5,
      "gen_ai.usage.cache_read.input_tokens": 3,
    });
    expect(chat2!.attributes).toMatchObject({ "rxagent.turn": 2, "gen_ai.response.finish_reasons": ["stop"], "gen_ai.usage.input_tokens": 20, "gen_ai.usage.output_tokens": 2 });
    expect(only(all, "execute_tool slow").attributes).toEqual({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "slow",
      "gen_ai.tool.call.id": "call-slow",
      "gen_ai.tool.type": "function",
      "gen_ai.tool.description": "Takes its time.",
      "rxagent.turn": 1,
    });
    const keys = attributeKeys(all);
    for (const key of ["gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result"]) expect(keys.has(key), key).toBe(false);
  });

  it("(SPEC O2) captureContent: prompts, answers, tool arguments and results, in the conventions' message shapes", () => {
    const { provider, spans } = recorder();
    const history = [{ role: "system" as const, content: "Be brief.", timestamp: 0 }, user("earlier question"), { role: "notice", text: "an app message", timestamp: 0 } as never];
    const faux = fauxProvider([{ content: [fauxText("Let me look."), fauxToolCall("lookup", { city: "Oslo" }, "c1")] }, { content: "Oslo: 3°C." }]);
    const tools = [instantTool("lookup", "3°C, snow")];
    agentLoop([user("Weather in Oslo?")], { messages: [], tools }, { model: faux.model }, undefined, faux)
      .pipe(traceAgent({ tracerProvider: provider, captureContent: true, history }))
      .subscribe();
    const all = spans();
    const [chat1, chat2] = all.filter((s) => s.name === "chat faux-1");
    expect(JSON.parse(chat1!.attributes["gen_ai.input.messages"] as string)).toEqual([
      { role: "system", parts: [{ type: "text", content: "Be brief." }] },
      { role: "user", parts: [{ type: "text", content: "earlier question" }] },
      { role: "user", parts: [{ type: "text", content: "Weather in Oslo?" }] },
    ]);
    expect(JSON.parse(chat1!.attributes["gen_ai.output.messages"] as string)).toEqual([
      {
        role: "assistant",
        parts: [
          { type: "text", content: "Let me look." },
          { type: "tool_call", id: "c1", name: "lookup", arguments: { city: "Oslo" } },
        ],
        finish_reason: "tool_call",
      },
    ]);
    const second = JSON.parse(chat2!.attributes["gen_ai.input.messages"] as string) as { role: string; parts: unknown[] }[];
    expect(second.slice(3).map((m) => m.role)).toEqual(["assistant", "tool"]);
    expect(second[4]!.parts).toEqual([{ type: "tool_call_response", id: "c1", response: "3°C, snow" }]);
    const lookup = only(all, "execute_tool lookup");
    expect(JSON.parse(lookup.attributes["gen_ai.tool.call.arguments"] as string)).toEqual({ city: "Oslo" });
    expect(lookup.attributes["gen_ai.tool.call.result"]).toBe("3°C, snow");
    const run = only(all, "invoke_agent");
    expect(JSON.parse(run.attributes["gen_ai.input.messages"] as string)).toEqual([{ role: "user", parts: [{ type: "text", content: "Weather in Oslo?" }] }]);
    expect(JSON.parse(run.attributes["gen_ai.output.messages"] as string)).toEqual([{ role: "assistant", parts: [{ type: "text", content: "Oslo: 3°C." }], finish_reason: "stop" }]);
  });

  it("(SPEC O2) gen_ai.response.model is the model that served the answer (responseModel) when the provider reports one; request model stays", () => {
    const { provider, spans } = recorder();
    const model: Model = { id: "faux-1", api: "faux", provider: "faux" };
    const answer = (responseModel?: string): StreamFn => (m) => {
      const message: AssistantMessage = { role: "assistant", content: [{ type: "text", text: "hi" }], api: m.api, provider: m.provider, model: m.id, usage: emptyUsage(), stopReason: "stop", timestamp: 0 };
      const served = responseModel === undefined ? message : ({ ...message, responseModel } as AssistantMessage);
      return of<AssistantMessageEvent[]>({ type: "start", partial: served }, { type: "done", reason: "stop", message: served });
    };
    for (const streamFn of [answer("faux-1-2026-01-15"), answer()]) {
      agentLoop([user("go")], { messages: [] }, { model }, undefined, streamFn).pipe(traceAgent({ tracerProvider: provider, model })).subscribe();
    }
    const [served, plain] = spans().filter((s) => s.name === "chat faux-1");
    expect(served!.attributes).toMatchObject({ "gen_ai.request.model": "faux-1", "gen_ai.response.model": "faux-1-2026-01-15" });
    expect(plain!.attributes).toMatchObject({ "gen_ai.request.model": "faux-1", "gen_ai.response.model": "faux-1" });
  });

  it("(SPEC O1) a parent context given is the run span's parent", () => {
    const { provider, spans } = recorder();
    const parent = provider.getTracer("app").startSpan("http request");
    const faux = fauxProvider([{ content: "hi" }]);
    agentLoop([user("a")], { messages: [] }, { model: faux.model }, undefined, faux)
      .pipe(traceAgent({ tracerProvider: provider, parentContext: trace.setSpan(ROOT_CONTEXT, parent) }))
      .subscribe();
    parent.end();
    const run = only(spans(), "invoke_agent");
    expect(run.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
    expect(run.spanContext().traceId).toBe(parent.spanContext().traceId);
  });

  it("(SPEC O1) by default the run span's parent is the context active at agent_start (with a context manager registered)", () => {
    const { provider, spans } = recorder();
    let active = ROOT_CONTEXT;
    // The smallest context manager: what a Node or web SDK registers, synchronous only.
    const manager: ContextManager = {
      active: () => active,
      with: (ctx, fn, thisArg, ...args) => {
        const previous = active;
        active = ctx;
        try {
          return fn.call(thisArg, ...args);
        } finally {
          active = previous;
        }
      },
      bind: (_ctx, target) => target,
      enable: () => manager,
      disable: () => manager,
    };
    expect(otelContext.setGlobalContextManager(manager)).toBe(true);
    try {
      const parent = provider.getTracer("app").startSpan("http request");
      const faux = fauxProvider([{ content: "hi" }, { content: "again" }]);
      const run$ = agentLoop([user("a")], { messages: [] }, { model: faux.model }, undefined, faux).pipe(traceAgent({ tracerProvider: provider }));
      otelContext.with(trace.setSpan(ROOT_CONTEXT, parent), () => run$.subscribe());
      run$.subscribe(); // outside: a root span
      parent.end();
      const [inside, outside] = spans().filter((s) => s.name === "invoke_agent");
      expect(inside!.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
      expect(outside!.parentSpanContext).toBeUndefined();
    } finally {
      otelContext.disable();
    }
  });

  it("(SPEC O1) consecutive runs on one subscription (an Agent's events$) each get their own trace", () => {
    const { provider, spans } = recorder();
    const faux = fauxProvider([{ content: "one" }, { content: "two" }]);
    const runs = new Observable<AgentEvent>((subscriber) => {
      const first = agentLoop([user("1")], { messages: [] }, { model: faux.model }, undefined, faux).subscribe({ next: (e) => subscriber.next(e) });
      const second = agentLoop([user("2")], { messages: [] }, { model: faux.model }, undefined, faux).subscribe({ next: (e) => subscriber.next(e) });
      return () => (first.unsubscribe(), second.unsubscribe());
    });
    runs.pipe(traceAgent({ tracerProvider: provider })).subscribe();
    const all = spans();
    expect(tree(all)).toEqual(["invoke_agent", "  chat faux-1", "invoke_agent", "  chat faux-1"]);
    const [a, b] = all.filter((s) => s.name === "invoke_agent");
    expect(a!.spanContext().traceId).not.toBe(b!.spanContext().traceId);
  });
});

describe("traceAgent: failures, aborts and cancellation end every span", () => {
  it("(SPEC O4, O2) a provider error fails the chat span and the run span (error.type provider_error); its text is content, recorded only on opt-in", () => {
    for (const captureContent of [false, true]) {
      const { provider, spans, open } = recorder();
      const faux = fauxProvider([{ content: [], stopReason: "error", errorMessage: "HTTP 500: upstream down" }]);
      agentLoop([user("go")], { messages: [] }, { model: faux.model }, undefined, faux).pipe(traceAgent({ tracerProvider: provider, captureContent })).subscribe();
      const all = spans();
      expect(tree(all)).toEqual(["invoke_agent", "  chat faux-1"]);
      for (const span of all) {
        expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: captureContent ? "HTTP 500: upstream down" : "The model request failed" });
        expect(span.attributes["error.type"]).toBe("provider_error");
      }
      expect(only(all, "chat faux-1").attributes["gen_ai.response.finish_reasons"]).toEqual(["error"]);
      expect(open()).toEqual([]);
    }
  });

  it("(SPEC O2) an upstream that echoes the key: without captureContent the span has the kind and HTTP status only; with it, the text without the key", () => {
    const key = "sk-proj-0123456789abcdefghij";
    const failing: StreamFn = () => {
      const error: AssistantMessage = { ...assistantMessage([], "error"), errorMessage: `HTTP 401 Unauthorized: Incorrect API key provided: ${key}. Sent Bearer ${key}` };
      recordProviderFailure(error, { kind: "http", status: 401, retryable: false });
      return [{ type: "start", partial: { ...error, stopReason: "stop" } }, { type: "error", reason: "error", error }] as AssistantMessageEvent[];
    };
    for (const captureContent of [false, true]) {
      const { provider, spans } = recorder();
      agentLoop([user("go")], { messages: [] }, { model }, undefined, failing).pipe(traceAgent({ tracerProvider: provider, captureContent })).subscribe();
      const all = spans();
      expect(JSON.stringify(all.map((s) => [s.status, s.attributes, s.events]))).not.toContain(key);
      const chat = all.find((s) => s.name.startsWith("chat"))!;
      expect(chat.attributes["http.response.status_code"]).toBe(401);
      expect(chat.status.message).toBe(captureContent ? "HTTP 401 Unauthorized: Incorrect API key provided: [redacted]. Sent Bearer [redacted]" : "The model request failed (HTTP 401)");
    }
  });

  it("(SPEC O4) a provider that throws still yields one failed chat span (SPEC M4)", () => {
    const { provider, spans } = recorder();
    const faux = fauxProvider([{ content: "x", fault: "throw" }]);
    agentLoop([user("go")], { messages: [] }, { model: faux.model }, undefined, faux).pipe(traceAgent({ tracerProvider: provider })).subscribe();
    const chat = only(spans(), "chat faux-1");
    expect(chat.status.code).toBe(SpanStatusCode.ERROR);
    // The thrown text is content (SPEC O2): without captureContent the span says only that it failed.
    expect(chat.status.message).toBe("The model request failed");
    expect(chat.attributes["error.type"]).toBe("provider_error");
  });

  it("(SPEC O4, O2) a tool that throws fails its span only; its error text is content, recorded only on opt-in", async () => {
    for (const captureContent of [false, true]) {
      const { provider, spans } = recorder();
      const broken: AgentTool = { name: "broken", label: "broken", description: "fails", parameters: { type: "object" }, execute: () => Promise.reject(new Error("disk full at /secret/path")) };
      const faux = fauxProvider([{ content: [fauxToolCall("broken", {}, "b1"), fauxToolCall("ok", {}, "o1")] }, { content: "sorry" }]);
      await new Promise<void>((resolve, reject) =>
        agentLoop([user("go")], { messages: [], tools: [broken, instantTool("ok")] }, { model: faux.model }, undefined, faux)
          .pipe(traceAgent({ tracerProvider: provider, captureContent }))
          .subscribe({ complete: resolve, error: reject }),
      );
      const all = spans();
      const span = only(all, "execute_tool broken");
      expect(span.attributes["error.type"]).toBe("tool_error");
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
      if (captureContent) expect(span.status.message).toContain("disk full at /secret/path");
      else expect(JSON.stringify(span.status) + JSON.stringify(span.attributes)).not.toContain("/secret/path");
      expect(only(all, "execute_tool ok").status.code).toBe(SpanStatusCode.UNSET);
      expect(only(all, "invoke_agent").status.code).toBe(SpanStatusCode.UNSET);
    }
  });

  it("(SPEC O4) an abort mid-batch: the tools' spans end, the aborted answer's chat and the run carry error.type aborted", () => {
    const { provider, spans, open } = recorder();
    const scheduler = newScheduler();
    scheduler.run(({ expectObservable, cold }) => {
      const controller = new AbortController();
      // Abort at frame 12: fast is still running (ends at 17), slow too.
      cold("12ms a").subscribe(() => controller.abort());
      const faux = fauxProvider([{ content: [fauxToolCall("slow", {}, "s"), fauxToolCall("fast", {}, "f")] }, { content: "never" }], { scheduler, delay: 1 });
      const aborted$ = agentLoop([user("go")], { messages: [], tools: [delayedTool("slow", 30, "s"), delayedTool("fast", 10, "f")] }, { model: faux.model, scheduler }, controller.signal, faux);
      expectObservable(aborted$.pipe(traceAgent({ tracerProvider: provider, now: () => scheduler.now() }), filter((e) => e.type === "agent_end"), map(() => "z"))).toBe("12ms (z|)");
    });
    const all = spans();
    expect(open()).toEqual([]);
    expect(tree(all)).toEqual(["invoke_agent", "  chat faux-1", "  execute_tool fast", "  execute_tool slow", "  chat faux-1"]);
    for (const tool of ["execute_tool fast", "execute_tool slow"]) {
      const span = only(all, tool);
      expect(when(span)).toEqual({ start: 7, end: 12 });
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
      expect(["aborted", "tool_error"]).toContain(span.attributes["error.type"]);
    }
    const last = all.filter((s) => s.name === "chat faux-1")[1]!;
    expect(last.attributes["error.type"]).toBe("aborted");
    expect(last.attributes["gen_ai.response.finish_reasons"]).toEqual(["aborted"]);
    const run = only(all, "invoke_agent");
    expect(run.attributes["error.type"]).toBe("aborted");
    expect(run.status.code).toBe(SpanStatusCode.ERROR);
    expect(when(run)).toEqual({ start: 0, end: 12 });
  });

  it("(SPEC O4) unsubscribing mid-batch ends every open span as cancelled, at the frame it happened", () => {
    const { provider, spans, open } = recorder();
    const scheduler = newScheduler();
    let unsubscribedTools = 0;
    scheduler.run(({ expectObservable }) => {
      const cancelled = () => void unsubscribedTools++;
      const tools = [delayedTool("slow", 30, "s", "slow tool", cancelled), delayedTool("fast", 10, "f", "fast tool", cancelled)];
      const faux = fauxProvider([{ content: [fauxToolCall("slow", {}, "s"), fauxToolCall("fast", {}, "f")] }, { content: "never" }], { scheduler, delay: 1 });
      const run$ = agentLoop([user("go")], { messages: [], tools }, { model: faux.model, scheduler }, undefined, faux).pipe(traceAgent({ tracerProvider: provider, now: () => scheduler.now() }));
      expectObservable(run$.pipe(map((e) => e.type), filter((t) => t === "agent_end")), "20ms !").toBe("");
    });
    expect(unsubscribedTools).toBe(1); // slow was still running at 20; fast had ended at 17
    expect(open()).toEqual([]);
    const all = spans();
    expect(tree(all)).toEqual(["invoke_agent", "  chat faux-1", "  execute_tool fast", "  execute_tool slow"]);
    const slow = only(all, "execute_tool slow");
    expect(when(slow)).toEqual({ start: 7, end: 20 });
    expect(slow.attributes["error.type"]).toBe("cancelled");
    expect(only(all, "execute_tool fast").status.code).toBe(SpanStatusCode.UNSET);
    const run = only(all, "invoke_agent");
    expect(run.attributes["error.type"]).toBe("cancelled");
    expect(when(run)).toEqual({ start: 0, end: 20 });
  });

  it("(SPEC O4) a consumer leaving inside a synchronous run stops the run there: no tool runs, the spans end (SPEC L10)", () => {
    const { provider, spans, open } = recorder();
    let executed = 0;
    const counted: AgentTool = { ...instantTool("count"), execute: () => (executed++, Promise.resolve(textResult("1"))) };
    const faux = fauxProvider([{ content: [fauxToolCall("count", {})] }, { content: "done" }]);
    agentLoop([user("go")], { messages: [], tools: [counted] }, { model: faux.model }, undefined, faux)
      .pipe(
        traceAgent({ tracerProvider: provider }),
        takeWhile((event) => !(event.type === "message_end" && (event.message as { role: string }).role === "assistant")),
      )
      .subscribe();
    expect(executed).toBe(0);
    expect(faux.requests).toHaveLength(1);
    expect(open()).toEqual([]);
    expect(tree(spans())).toEqual(["invoke_agent", "  chat faux-1"]);
    expect(only(spans(), "invoke_agent").attributes["error.type"]).toBe("cancelled");
  });

  it("(SPEC O4) a source that errors ends the open spans with the error; take(n) downstream ends them as cancelled", () => {
    const { provider, spans, open } = recorder();
    const faux = fauxProvider([{ content: "hi" }]);
    const broken = new Observable<AgentEvent>((subscriber) => {
      subscriber.next({ type: "agent_start" });
      subscriber.next({ type: "turn_start" });
      subscriber.error(new TypeError("the event source broke"));
    });
    broken.pipe(traceAgent({ tracerProvider: provider })).subscribe({ error: () => undefined });
    const run = only(spans(), "invoke_agent");
    expect(run.attributes["error.type"]).toBe("TypeError");
    // The error's text is content (SPEC O2): without captureContent, its name only.
    expect(run.status).toEqual({ code: SpanStatusCode.ERROR, message: "TypeError" });
    expect(run.events.map((e) => e.name)).toEqual(["exception"]);
    expect(JSON.stringify(run.events)).not.toContain("the event source broke");

    agentLoop([user("go")], { messages: [] }, { model: faux.model }, undefined, faux).pipe(traceAgent({ tracerProvider: provider }), take(3)).subscribe();
    expect(open()).toEqual([]);
    expect(spans().filter((s) => s.name === "invoke_agent").map((s) => s.attributes["error.type"])).toEqual(["TypeError", "cancelled"]);
  });

  it("(SPEC O4, O3) an option reader that throws mid-run (tools) ends the run's open spans as tracing_error; the events pass untouched", () => {
    const { provider, spans, open } = recorder();
    const faux = fauxProvider([{ content: [fauxToolCall("a", {}), fauxToolCall("b", {})] }, { content: "done" }]);
    const before: AgentEvent[] = [];
    const after: AgentEvent[] = [];
    agentLoop([user("go")], { messages: [], tools: [instantTool("a"), instantTool("b")] }, { model: faux.model }, undefined, faux)
      .pipe(
        tap((event) => before.push(event)),
        traceAgent({
          tracerProvider: provider,
          tools: () => {
            throw new Error("the tool registry is gone");
          },
        }),
        tap((event) => after.push(event)),
      )
      .subscribe();
    expect(after.at(-1)?.type).toBe("agent_end");
    expect(after.length).toBe(before.length);
    after.forEach((event, i) => expect(event).toBe(before[i]));
    expect(open()).toEqual([]);
    // The first answer's chat span had ended; tracing failed at the first tool call and stopped there.
    expect(tree(spans())).toEqual(["invoke_agent", "  chat faux-1"]);
    const run = only(spans(), "invoke_agent");
    expect(run.attributes).toMatchObject({ "error.type": "tracing_error", "rxagent.tracing_stopped": true });
    expect(run.status).toEqual({ code: SpanStatusCode.ERROR, message: "Tracing this run failed: Error" });
    expect(only(spans(), "chat faux-1").status.code).toBe(SpanStatusCode.UNSET);
  });

  it("(SPEC O4) a history reader that throws at agent_start ends the run span it had opened; the run is not traced further", () => {
    const { provider, spans, open } = recorder();
    const faux = fauxProvider([{ content: "hi" }]);
    const seen: string[] = [];
    agentLoop([user("go")], { messages: [] }, { model: faux.model }, undefined, faux)
      .pipe(
        traceAgent({
          tracerProvider: provider,
          captureContent: true,
          history: () => {
            throw new Error("no transcript");
          },
        }),
      )
      .subscribe((event) => seen.push(event.type));
    expect(seen.at(-1)).toBe("agent_end");
    expect(open()).toEqual([]);
    expect(tree(spans())).toEqual(["invoke_agent"]);
    expect(only(spans(), "invoke_agent").attributes["error.type"]).toBe("tracing_error");
  });

  it("(SPEC O4) a clock that starts throwing mid-run: every open span still ends (dated by the SDK), none is left open", () => {
    const { provider, spans, open } = recorder();
    const scheduler = newScheduler();
    let reads = 0;
    scheduler.run(({ expectObservable }) => {
      const { run$ } = parallelRun(scheduler);
      const now = () => {
        // Five good readings (the run span, the first request), then broken: spans are open at that moment.
        if (++reads > 5) throw new Error("clock gone");
        return scheduler.now();
      };
      expectObservable(run$.pipe(traceAgent({ tracerProvider: provider, now }), filter((e) => e.type === "agent_end"), map(() => "z"))).toBe("41ms (z|)");
    });
    expect(reads).toBeGreaterThan(5);
    expect(open()).toEqual([]);
    expect(only(spans(), "invoke_agent").attributes["error.type"]).toBe("tracing_error");
  });
});
