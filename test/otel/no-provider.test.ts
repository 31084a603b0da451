/**
 * Tracing that is off costs nothing (SPEC O3): with no tracer provider registered (the API's
 * no-op tracer), or a sampler that drops the run, the operator hands on the very event objects,
 * the run stays synchronous and frame-exact (SPEC L12), and the tracer is asked for one span per
 * run — which does not record — and nothing is asked of that span but whether it records.
 */
import { type Span, type Tracer, trace } from "@opentelemetry/api";
import { AlwaysOffSampler } from "@opentelemetry/sdk-trace-base";
import { type Observable, tap } from "rxjs";
import { TestScheduler } from "rxjs/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Agent, agentLoop, type AgentEvent } from "../../src/index.js";
import { tracingListener, traceAgent } from "../../src/otel/index.js";
import { fauxProvider, fauxToolCall } from "../../src/testing/index.js";
import { delayedTool, instantTool, recorder, tree, user } from "./support.js";

/** A run with two synchronous tool calls: provider, tools and loop all synchronous. */
function syncRun(): Observable<AgentEvent> {
  const faux = fauxProvider([{ content: [fauxToolCall("a", {}), fauxToolCall("b", {})] }, { content: "done" }]);
  return agentLoop([user("go")], { messages: [], tools: [instantTool("a"), instantTool("b")] }, { model: faux.model }, undefined, faux);
}

/**
 * A tracer that counts what it is asked: spans started, and every call on a span it returned
 * (wrapped, so a call is seen whatever the span is).
 */
function spyTracer(inner: Tracer) {
  const calls = { startSpan: 0, recording: [] as boolean[], spanMethods: [] as string[] };
  const tracer: Tracer = {
    startSpan(name, options, context) {
      calls.startSpan++;
      const span = inner.startSpan(name, options, context);
      calls.recording.push(span.isRecording());
      return new Proxy(span, {
        get(target, key, receiver) {
          const value = Reflect.get(target, key, receiver) as unknown;
          if (typeof value !== "function") return value;
          return (...args: unknown[]) => {
            calls.spanMethods.push(String(key));
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      }) as Span;
    },
    startActiveSpan: inner.startActiveSpan.bind(inner) as Tracer["startActiveSpan"],
  };
  return { tracer, calls };
}

describe("tracing off: no tracer provider registered", () => {
  beforeEach(() => trace.disable());
  afterEach(() => trace.disable());

  it("(SPEC O3) the operator hands on the identical event objects, and a synchronous run completes inside subscribe (SPEC L12)", () => {
    const before: AgentEvent[] = [];
    const after: AgentEvent[] = [];
    let completed = false;
    syncRun()
      .pipe(
        tap((event) => before.push(event)),
        traceAgent({ agentName: "off" }),
        tap((event) => after.push(event)),
      )
      .subscribe({ complete: () => (completed = true) });
    expect(completed).toBe(true);
    expect(after.length).toBe(before.length);
    expect(after.length).toBeGreaterThan(20);
    after.forEach((event, i) => expect(event).toBe(before[i]));
  });

  it("(SPEC O3) the tracer is asked for one span per run, which does not record, and the span is asked nothing but that", () => {
    const { tracer, calls } = spyTracer(trace.getTracer("spy"));
    const operator = traceAgent({ tracer, agentName: "off", captureContent: true });
    syncRun().pipe(operator).subscribe();
    syncRun().pipe(operator).subscribe();
    expect(calls.startSpan).toBe(2);
    expect(calls.recording).toEqual([false, false]);
    // The one question asked of each: does it record?
    expect(calls.spanMethods).toEqual(["isRecording", "isRecording"]);
  });

  it("(SPEC O3) the per-run options are read once per run, at agent_start, never per event; history and tools not at all", () => {
    const reads = { now: 0, model: 0, conversationId: 0, history: 0, tools: 0 };
    const operator = traceAgent({
      captureContent: true,
      now: () => (reads.now++, 0),
      model: () => (reads.model++, { id: "faux-1", provider: "faux", baseUrl: "https://api.example.com/v1" }),
      conversationId: () => (reads.conversationId++, "c"),
      history: () => (reads.history++, []),
      tools: () => (reads.tools++, []),
    });
    let events = 0;
    syncRun().pipe(operator).subscribe(() => void events++);
    syncRun().pipe(operator).subscribe(() => void events++);
    expect(events).toBeGreaterThan(40);
    expect(reads).toEqual({ now: 2, model: 2, conversationId: 2, history: 0, tools: 0 });
  });

  it("(SPEC O3) an Agent's tracing listener without a provider returns nothing and the run stays synchronous", () => {
    const { tracer, calls } = spyTracer(trace.getTracer("spy"));
    const faux = fauxProvider([{ content: [fauxToolCall("a", {})] }, { content: "done" }]);
    const agent = new Agent({ streamFn: faux, initialState: { model: faux.model, tools: [instantTool("a")] } });
    const listener = tracingListener({ tracer, captureContent: true, model: () => agent.state.model, history: () => agent.state.messages });
    const returned = new Set<unknown>();
    const remove = agent.subscribe((event) => {
      const value = listener(event);
      returned.add(value);
      return value;
    });
    let completed = false;
    agent.prompt$("go").subscribe({ complete: () => (completed = true) });
    expect(completed).toBe(true);
    expect([...returned]).toEqual([undefined]);
    expect(agent.state.messages.map((m) => (m as { role: string }).role)).toEqual(["system", "user", "assistant", "toolResult", "assistant"]);
    expect(calls.startSpan).toBe(1);
    expect(calls.recording).toEqual([false]);
    expect(calls.spanMethods).toEqual(["isRecording"]);
    remove();
  });

  it("(SPEC O3) a run the sampler drops records nothing and leaves nothing open", () => {
    const sdk = recorder(new AlwaysOffSampler());
    const { tracer, calls } = spyTracer(sdk.provider.getTracer("spy"));
    syncRun().pipe(traceAgent({ tracer })).subscribe();
    expect(sdk.spans()).toEqual([]);
    expect(sdk.open()).toEqual([]);
    expect(calls.startSpan).toBe(1);
    expect(calls.spanMethods).toEqual(["isRecording"]);
  });

  it("(SPEC O3) the global provider is found when registered, even by an operator made before it was; disabled again, nothing is traced", () => {
    const sdk = recorder();
    const early = traceAgent();
    expect(trace.setGlobalTracerProvider(sdk.provider)).toBe(true);
    syncRun().pipe(early).subscribe();
    syncRun().pipe(traceAgent()).subscribe();
    expect(tree(sdk.spans()).filter((line) => !line.startsWith(" "))).toEqual(["invoke_agent", "invoke_agent"]);
    trace.disable();
    const count = sdk.spans().length;
    syncRun().pipe(traceAgent()).subscribe();
    expect(sdk.spans().length).toBe(count);
  });

  it("(SPEC O3, L12) in virtual time the events arrive in the same frames untraced, traced-off and traced-on", () => {
    const sdk = recorder();
    const framesOf = (operator?: ReturnType<typeof traceAgent>): string[] => {
      const seen: string[] = [];
      const scheduler = new TestScheduler((a, b) => expect(a).toStrictEqual(b));
      scheduler.run(() => {
        const faux = fauxProvider([{ content: [fauxToolCall("slow", {}), fauxToolCall("fast", {})] }, { content: "done" }], { scheduler, delay: 1 });
        const run$ = agentLoop([user("go")], { messages: [], tools: [delayedTool("slow", 30, "s"), delayedTool("fast", 10, "f")] }, { model: faux.model, scheduler }, undefined, faux);
        (operator ? run$.pipe(operator) : run$).subscribe((event) => seen.push(`${scheduler.now()} ${event.type}`));
      });
      return seen;
    };
    const untraced = framesOf();
    expect(untraced.at(-1)).toBe("41 agent_end");
    expect(framesOf(traceAgent())).toEqual(untraced);
    expect(framesOf(traceAgent({ tracerProvider: sdk.provider }))).toEqual(untraced);
    expect(sdk.spans().length).toBe(5);
  });
});
