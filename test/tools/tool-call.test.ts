/**
 * One tool call through the pipeline (SPEC T1, T2, T3, T5): find → prepareArguments → validate
 * → beforeToolCall → execute (updates) → afterToolCall. Every failure is an isError result.
 */
import { defer, lastValueFrom, NEVER, Observable, of, throwError, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../../src/loop/agent-loop.js";
import type { AgentEvent, AgentTool, AgentToolResult, ToolCall, ToolCallOutcome, ToolResultMessage } from "../../src/index.js";
import { runToolCall, type RunToolCallOptions } from "../../src/tools/run-tool-call.js";
import { fauxProvider, fauxToolCall } from "../../src/testing/index.js";
import { assistantMessage, collectSync, committed, contextWith, model, textOf, textResult, tool, types, user } from "../helpers/fixtures.js";

const numberSchema = { type: "object", properties: { n: { type: "number" } }, required: ["n"], additionalProperties: false };

function call(name: string, args: Record<string, unknown> = {}, id = "c1"): ToolCall {
  return { type: "toolCall", id, name, arguments: args };
}

function options(tools: AgentTool[], extra: Partial<RunToolCallOptions> = {}): RunToolCallOptions {
  return { tools, context: { messages: [], tools }, assistantMessage: assistantMessage([call("x")], "toolUse"), now: () => 0, ...extra };
}

/** Runs one call synchronously (the tool and hooks must be synchronous). */
function runSync(toolCall: ToolCall, opts: RunToolCallOptions): ToolCallOutcome {
  const outcomes = collectAll(runToolCall(toolCall, opts));
  expect(outcomes).toHaveLength(1);
  return outcomes[0]!;
}

function collectAll<T>(source: Observable<T>): T[] {
  const values: T[] = [];
  let done = false;
  source.subscribe({ next: (v) => values.push(v), complete: () => (done = true) });
  expect(done).toBe(true);
  return values;
}

/** A whole run with one call of `t`, synchronously; returns its events and the tool-result message. */
function loopWith(t: AgentTool, args: Record<string, unknown> = {}, config: Record<string, unknown> = {}): { events: AgentEvent[]; result: ToolResultMessage } {
  const provider = fauxProvider([{ content: [fauxToolCall(t.name, args, "c1")] }, { content: "ok" }]);
  const events = collectSync(agentLoop([user("go")], contextWith([t]), { model, ...config }, undefined, provider));
  const result = committed(events).find((m) => (m as { role: string }).role === "toolResult") as ToolResultMessage;
  return { events, result };
}

const echo = tool("echo", (_id, params) => textResult(JSON.stringify(params)));

describe("T1: tool shapes", () => {
  it("T1: a synchronous value tool", () => {
    const outcome = runSync(call("echo", { a: 1 }), options([echo]));
    expect(outcome).toMatchObject({ isError: false, result: { content: [{ type: "text", text: '{"a":1}' }] } });
  });

  it("T1: a promise tool", async () => {
    const t = tool("later", async (id) => textResult(`done ${id}`, { details: { ok: true } }));
    const outcome = await lastValueFrom(runToolCall(call("later"), options([t])));
    expect(outcome).toMatchObject({ isError: false, result: { content: [{ type: "text", text: "done c1" }], details: { ok: true } } });
  });

  it("T1: an Observable tool: each emission before the last is a progress update (tool_execution_update), the last is the result", () => {
    const t = tool("progress", () => of(textResult("10%"), textResult("50%"), textResult("done", { details: { n: 3 } })));
    const { events, result } = loopWith(t);
    const updates = events.filter((e): e is Extract<AgentEvent, { type: "tool_execution_update" }> => e.type === "tool_execution_update");
    expect(updates.map((u) => textOf(u.partialResult))).toEqual(["10%", "50%"]);
    expect(updates[0]).toMatchObject({ toolCallId: "c1", toolName: "progress", args: {} });
    expect(textOf(result)).toBe("done");
    expect(result.details).toEqual({ n: 3 });
    const toolTypes = types(events).filter((t) => t.startsWith("tool_"));
    expect(toolTypes).toEqual(["tool_execution_start", "tool_execution_update", "tool_execution_update", "tool_execution_end"]);
  });

  it("T1: onUpdate from a promise tool becomes tool_execution_update; updates after the result are dropped", async () => {
    let late: ((r: AgentToolResult) => void) | undefined;
    const t = tool("reporting", async (_id, _p, _s, onUpdate) => {
      onUpdate(textResult("step 1"));
      await Promise.resolve();
      onUpdate(textResult("step 2"));
      late = onUpdate;
      return textResult("finished");
    });
    const provider = fauxProvider([{ content: [fauxToolCall("reporting", {}, "c1")] }, { content: "ok" }]);
    const events = await lastValueFrom(agentLoop([user("go")], contextWith([t]), { model }, undefined, provider).pipe(toArray()));
    const updates = events.filter((e): e is Extract<AgentEvent, { type: "tool_execution_update" }> => e.type === "tool_execution_update");
    expect(updates.map((u) => textOf(u.partialResult))).toEqual(["step 1", "step 2"]);
    late!(textResult("too late"));
    expect(events.filter((e) => e.type === "tool_execution_update")).toHaveLength(2);
  });

  it("T1: unsubscribing the outcome unsubscribes an Observable tool", () => {
    let unsubscribed = false;
    const t = tool("forever", () => new Observable<AgentToolResult>(() => () => (unsubscribed = true)));
    const subscription = runToolCall(call("forever"), options([t])).subscribe();
    expect(unsubscribed).toBe(false);
    subscription.unsubscribe();
    expect(unsubscribed).toBe(true);
  });
});

describe("T2: the pipeline, in order", () => {
  it("T2: tool_execution_start carries the raw arguments; beforeToolCall sees validated, coerced, cloned arguments", () => {
    const seen: unknown[] = [];
    const t = tool("num", (_id, params) => textResult(String((params as { n: number }).n + 1)), numberSchema);
    const { events, result } = loopWith(t, { n: "41" }, { beforeToolCall: ({ args }: { args: unknown }) => void seen.push(args) });
    const start = events.find((e) => e.type === "tool_execution_start") as Extract<AgentEvent, { type: "tool_execution_start" }>;
    expect(start.args).toEqual({ n: "41" });
    expect(seen).toEqual([{ n: 41 }]);
    expect(textOf(result)).toBe("42");
    // the assistant's tool call is left as the model sent it
    const assistant = committed(events).find((m) => (m as { role: string }).role === "assistant") as { content: ToolCall[] };
    expect(assistant.content[0]!.arguments).toEqual({ n: "41" });
  });

  it("T2: the hooks run in order: prepareArguments → validate → beforeToolCall → execute → afterToolCall", () => {
    const order: string[] = [];
    const t = tool(
      "ordered",
      (_id, params) => {
        order.push(`execute ${JSON.stringify(params)}`);
        return textResult("ran");
      },
      numberSchema,
      {
        prepareArguments: (args) => {
          order.push(`prepare ${JSON.stringify(args)}`);
          return { n: (args as { value: string }).value };
        },
      },
    );
    const outcome = runSync(
      call("ordered", { value: "7" }),
      options([t], {
        beforeToolCall: ({ args }) => void order.push(`before ${JSON.stringify(args)}`),
        afterToolCall: ({ result, isError }) => void order.push(`after ${textOf(result)} ${isError}`),
      }),
    );
    expect(order).toEqual(['prepare {"value":"7"}', 'before {"n":7}', 'execute {"n":7}', "after ran false"]);
    expect(outcome.isError).toBe(false);
  });

  it("T2: prepareArguments that throws is an error result; the tool does not run", () => {
    let ran = false;
    const t = tool("p", () => ((ran = true), textResult("x")), { type: "object" }, {
      prepareArguments: () => {
        throw new Error("cannot read legacy arguments");
      },
    });
    const outcome = runSync(call("p"), options([t]));
    expect(outcome).toMatchObject({ isError: true, result: { content: [{ type: "text", text: "cannot read legacy arguments" }] } });
    expect(ran).toBe(false);
  });

  it("T2: beforeToolCall may block with a reason the model reads", () => {
    let ran = false;
    const t = tool("rm", () => ((ran = true), textResult("deleted")));
    const outcome = runSync(call("rm"), options([t], { beforeToolCall: () => ({ block: true, reason: "Not in this directory" }) }));
    expect(outcome).toMatchObject({ isError: true, result: { content: [{ type: "text", text: "Not in this directory" }] } });
    expect(outcome.result.terminate).toBeUndefined();
    expect(outcome.durationMs).toBeUndefined();
    expect(ran).toBe(false);
  });

  it("T2: a block without a reason, and a block with terminate", () => {
    const t = tool("rm", () => textResult("deleted"));
    expect(runSync(call("rm"), options([t], { beforeToolCall: () => ({ block: true }) })).result.content).toEqual([{ type: "text", text: "Tool execution was blocked" }]);
    const terminated = runSync(call("rm"), options([t], { beforeToolCall: () => ({ block: true, reason: "stop here", terminate: true }) }));
    expect(terminated).toMatchObject({ isError: true, result: { terminate: true, content: [{ type: "text", text: "stop here" }] } });
  });

  it("T2: beforeToolCall returning an Observable or a promise", async () => {
    const t = tool("rm", () => textResult("deleted"));
    expect(runSync(call("rm"), options([t], { beforeToolCall: () => of({ block: true, reason: "observable says no" }) })).result.content[0]).toEqual({ type: "text", text: "observable says no" });
    const viaPromise = await lastValueFrom(runToolCall(call("rm"), options([t], { beforeToolCall: async () => ({ block: false }) })));
    expect(viaPromise).toMatchObject({ isError: false, result: { content: [{ type: "text", text: "deleted" }] } });
  });

  it("T2: afterToolCall overrides field by field; omitted fields keep their values", () => {
    const t = tool("t", () => textResult("original", { details: { keep: true }, usage: undefined }));
    const contentOnly = runSync(call("t"), options([t], { afterToolCall: () => ({ content: [{ type: "text", text: "rewritten" }] }) }));
    expect(contentOnly).toMatchObject({ isError: false, result: { content: [{ type: "text", text: "rewritten" }], details: { keep: true } } });
    const flags = runSync(call("t"), options([t], { afterToolCall: () => ({ isError: true, terminate: true, details: { audited: 1 } }) }));
    expect(flags).toMatchObject({ isError: true, result: { content: [{ type: "text", text: "original" }], details: { audited: 1 }, terminate: true } });
    const nothing = runSync(call("t"), options([t], { afterToolCall: () => undefined }));
    expect(nothing.result).toEqual(textResult("original", { details: { keep: true }, usage: undefined }));
  });

  it("T2: afterToolCall sees the executed result and whether it failed", () => {
    const seen: unknown[] = [];
    const t = tool("fails", () => textResult("bad input", { isError: true }));
    runSync(call("fails", { q: 1 }), options([t], { afterToolCall: ({ result, isError, args, toolCall }) => void seen.push({ text: textOf(result), isError, args, id: toolCall.id }) }));
    expect(seen).toEqual([{ text: "bad input", isError: true, args: { q: 1 }, id: "c1" }]);
  });
});

describe("T3: every failure is an isError result", () => {
  it("T3: an unknown tool names the available ones", () => {
    const outcome = runSync(call("nope"), options([echo]));
    expect(outcome).toMatchObject({ isError: true, result: { content: [{ type: "text", text: 'Tool "nope" not found. Available tools: echo.' }] } });
    expect(runSync(call("nope"), options([])).result.content[0]).toEqual({ type: "text", text: 'Tool "nope" not found. Available tools: none.' });
    const two = [echo, tool("grep", () => textResult(""))];
    expect(runSync(call("nope"), options(two)).result.content[0]).toEqual({ type: "text", text: 'Tool "nope" not found. Available tools: echo, grep.' });
  });

  it("T3: invalid arguments list each failing path and the received arguments", () => {
    const schema = {
      type: "object",
      properties: { path: { type: "string" }, lines: { type: "object", properties: { from: { type: "integer" } } } },
      required: ["path", "mode"],
      additionalProperties: false,
    };
    const t = tool("read", () => textResult("never"), schema);
    const outcome = runSync(call("read", { lines: { from: "x" }, extra: true }), options([t]));
    expect(outcome.isError).toBe(true);
    const text = textOf(outcome.result);
    expect(text).toContain('Invalid arguments for tool "read"');
    expect(text).toContain("  - path: is required");
    expect(text).toContain("  - mode: is required");
    expect(text).toContain("  - extra: is not allowed");
    expect(text).toContain("  - lines.from: must be integer");
    expect(text).toContain("Received arguments:");
    expect(text).toContain('"from": "x"');
  });

  it("T3: a provider's argumentsError (unparseable JSON) is reported, the tool does not run", () => {
    const outcome = runSync({ ...call("echo"), argumentsError: "Unexpected end of JSON input" }, options([echo]));
    expect(outcome).toMatchObject({ isError: true, result: { content: [{ type: "text", text: 'Invalid arguments for tool "echo": Unexpected end of JSON input' }] } });
  });

  it("T3: a blocked call (see T2), a throwing beforeToolCall", () => {
    const outcome = runSync(call("echo"), options([echo], { beforeToolCall: () => { throw new Error("policy unavailable"); } }));
    expect(outcome).toMatchObject({ isError: true, result: { content: [{ type: "text", text: "beforeToolCall failed: policy unavailable" }] } });
  });

  it("T3: a tool that throws an Error, a string, undefined", () => {
    const thrower = (value: unknown) => tool("t", () => { throw value; });
    expect(runSync(call("t"), options([thrower(new Error("disk full"))])).result.content).toEqual([{ type: "text", text: "disk full" }]);
    expect(runSync(call("t"), options([thrower("plain string")])).result.content).toEqual([{ type: "text", text: "plain string" }]);
    const undef = runSync(call("t"), options([thrower(undefined)]));
    expect(undef).toMatchObject({ isError: true, result: { content: [{ type: "text", text: "undefined was thrown" }] } });
  });

  it("T3: a rejected promise, with an Error and with a non-Error", async () => {
    const rejects = (value: unknown) => tool("t", () => Promise.reject(value));
    expect(await lastValueFrom(runToolCall(call("t"), options([rejects(new Error("timeout"))])))).toMatchObject({ isError: true, result: { content: [{ type: "text", text: "timeout" }] } });
    expect(await lastValueFrom(runToolCall(call("t"), options([rejects({ code: "E42" })])))).toMatchObject({ isError: true, result: { content: [{ type: "text", text: '{"code":"E42"}' }] } });
  });

  it("T3: an Observable tool that errors, and one that completes without a result", () => {
    const errors = tool("t", () => throwError(() => new Error("stream broke")));
    expect(runSync(call("t"), options([errors]))).toMatchObject({ isError: true, result: { content: [{ type: "text", text: "stream broke" }] } });
    const empty = tool("t", () => of<AgentToolResult>());
    expect(runSync(call("t"), options([empty])).result.content).toEqual([{ type: "text", text: 'Tool "t" completed without a result.' }]);
  });

  it("T3: malformed results: undefined, a non-object, an array, content not an array", () => {
    const returning = (value: unknown) => tool("t", () => value as AgentToolResult);
    const text = (value: unknown) => runSync(call("t"), options([returning(value)]));
    expect(text(undefined)).toMatchObject({ isError: true, result: { content: [{ type: "text", text: 'Tool "t" returned undefined instead of a result object ({ content: [...] }).' }] } });
    expect(text(42).result.content[0]).toEqual({ type: "text", text: 'Tool "t" returned a number instead of a result object ({ content: [...] }).' });
    expect(text("ok").result.content[0]).toEqual({ type: "text", text: 'Tool "t" returned a string instead of a result object ({ content: [...] }).' });
    expect(text([1]).result.content[0]).toEqual({ type: "text", text: 'Tool "t" returned an array instead of a result object ({ content: [...] }).' });
    expect(text(null).isError).toBe(true);
    expect(text({ content: 5 })).toMatchObject({ isError: true, result: { content: [{ type: "text", text: 'Tool "t" returned a result whose content is not an array of text or image blocks.' }] } });
  });

  it("T3: lenient results: missing content becomes [], string content becomes one text block", () => {
    const returning = (value: unknown) => tool("t", () => value as AgentToolResult);
    expect(runSync(call("t"), options([returning({ details: 1 })]))).toMatchObject({ isError: false, result: { content: [], details: 1 } });
    expect(runSync(call("t"), options([returning({ content: "plain" })])).result.content).toEqual([{ type: "text", text: "plain" }]);
  });

  it("T3: a result with isError: true is an error result", () => {
    const t = tool("t", () => textResult("file not found", { isError: true }));
    expect(runSync(call("t"), options([t])).isError).toBe(true);
  });

  it("T3: afterToolCall throwing turns the result into an error", () => {
    const outcome = runSync(call("echo"), options([echo], { afterToolCall: () => { throw "audit log down"; } }));
    expect(outcome).toMatchObject({ isError: true, result: { content: [{ type: "text", text: "afterToolCall failed: audit log down" }] } });
  });

  it("T3: in the loop every failure is a tool-result message and the run goes on to the next request", () => {
    const t = tool("t", () => { throw undefined; });
    const { events, result } = loopWith(t);
    expect(result).toMatchObject({ role: "toolResult", toolCallId: "c1", toolName: "t", isError: true });
    expect(types(events).at(-1)).toBe("agent_end");
    expect(textOf(committed(events).at(-1))).toBe("ok");
  });

  it("T3: aborted before the call: the result is 'Operation aborted' and no hook runs", () => {
    const controller = new AbortController();
    controller.abort();
    let hooked = false;
    const outcome = runSync(call("echo"), options([echo], { signal: controller.signal, beforeToolCall: () => void (hooked = true) }));
    expect(outcome).toMatchObject({ isError: true, result: { content: [{ type: "text", text: "Operation aborted" }] } });
    expect(hooked).toBe(false);
  });

  it("T3: aborted while beforeToolCall ran: 'Operation aborted'", () => {
    const controller = new AbortController();
    const outcome = runSync(call("echo"), options([echo], { signal: controller.signal, beforeToolCall: () => void controller.abort() }));
    expect(outcome.result.content).toEqual([{ type: "text", text: "Operation aborted" }]);
  });

  it("T3: an Observable tool aborted mid-way is unsubscribed and reports 'Operation aborted'", () => {
    const controller = new AbortController();
    let unsubscribed = false;
    const t = tool("t", () => new Observable<AgentToolResult>(() => () => (unsubscribed = true)));
    const outcomes: ToolCallOutcome[] = [];
    runToolCall(call("t"), options([t], { signal: controller.signal })).subscribe((o) => outcomes.push(o));
    controller.abort();
    expect(unsubscribed).toBe(true);
    expect(outcomes).toMatchObject([{ isError: true, result: { content: [{ type: "text", text: "Operation aborted" }] } }]);
  });
});

describe("T5: runToolCall", () => {
  it("T5: a tool that calls a tool keeps the hooks (blocked, rewritten) and emits no events", async () => {
    const audit: string[] = [];
    const beforeToolCall: RunToolCallOptions["beforeToolCall"] = ({ toolCall }) => {
      audit.push(`before ${toolCall.name}`);
      return toolCall.name === "rm" ? { block: true, reason: "rm is not allowed" } : undefined;
    };
    const afterToolCall: RunToolCallOptions["afterToolCall"] = ({ toolCall }) => {
      audit.push(`after ${toolCall.name}`);
      return toolCall.name === "ls" ? { details: { audited: true } } : undefined;
    };
    const ls = tool("ls", () => textResult("a.txt"));
    const rm = tool("rm", () => textResult("deleted"));
    const inner: ToolCallOutcome[] = [];
    const script: AgentTool = tool("script", (_id, _params, signal) =>
      defer(async () => {
        const context = { messages: [], tools: [ls, rm] };
        const assistant = assistantMessage([], "toolUse");
        for (const c of [call("ls", {}, "n1"), call("rm", {}, "n2")]) {
          inner.push(await lastValueFrom(runToolCall(c, { tools: [ls, rm], context, assistantMessage: assistant, signal, beforeToolCall, afterToolCall })));
        }
        return textResult(inner.map((o) => textOf(o.result)).join(" | "));
      }),
    );
    const provider = fauxProvider([{ content: [fauxToolCall("script", {}, "s1")] }, { content: "ok" }]);
    const events = await lastValueFrom(agentLoop([user("go")], contextWith([script, ls, rm]), { model, beforeToolCall, afterToolCall }, undefined, provider).pipe(toArray()));
    expect(inner).toMatchObject([
      { isError: false, result: { details: { audited: true } } },
      { isError: true, result: { content: [{ type: "text", text: "rm is not allowed" }] } },
    ]);
    expect(audit).toEqual(["before script", "before ls", "after ls", "before rm", "after script"]);
    // the nested calls produce no events of their own
    expect(events.filter((e) => e.type === "tool_execution_start").map((e) => (e as { toolCallId: string }).toolCallId)).toEqual(["s1"]);
  });

  it("T5: runToolCall reports updates through onUpdate and measures the duration with `now`", () => {
    let clock = 100;
    const updates: string[] = [];
    const t = tool("t", () => new Observable<AgentToolResult>((s) => {
      s.next(textResult("half"));
      clock = 130;
      s.next(textResult("all"));
      s.complete();
    }));
    const outcome = runSync(call("t"), options([t], { now: () => clock, onUpdate: (r) => updates.push(textOf(r)) }));
    expect(updates).toEqual(["half"]);
    expect(outcome).toMatchObject({ isError: false, durationMs: 30 });
  });

  it("T5: without onUpdate, a tool's progress is dropped and its result still arrives", async () => {
    const observable = tool("t", () => new Observable<AgentToolResult>((s) => {
      s.next(textResult("half"));
      s.next(textResult("all"));
      s.complete();
    }));
    expect(textOf(runSync(call("t"), options([observable])).result)).toBe("all");
    const reporting = tool("p", (_id, _args, _signal, onUpdate) => {
      onUpdate?.(textResult("half"));
      return Promise.resolve(textResult("all"));
    });
    const outcome = await lastValueFrom(runToolCall(call("p"), options([reporting])));
    expect(outcome).toMatchObject({ isError: false, result: textResult("all") });
  });

  it("T5: runToolCall never errors, and a hanging tool is cancelled by unsubscribing", () => {
    const t = tool("t", () => NEVER as Observable<AgentToolResult>);
    const values: ToolCallOutcome[] = [];
    const subscription = runToolCall(call("t"), options([t])).subscribe({ next: (v) => values.push(v), error: () => expect.unreachable() });
    subscription.unsubscribe();
    expect(values).toEqual([]);
  });
});
