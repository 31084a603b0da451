/**
 * `rxagent/core` (SPEC T2, R1–R3): the same API as `rxagent` without a default validator and
 * without built-in run control. Its Agent, loop and `runToolCall` need a `validator` (or every
 * tool its own) and say so at once; limits, concurrency and approvals need `runControl`. With
 * them they behave as `rxagent`'s do. `rxagent`'s are the core's with ajv and run control.
 */
import { describe, expect, it } from "vitest";
import * as core from "../src/core.js";
import * as full from "../src/index.js";
import { fauxProvider, fauxToolCall } from "../src/testing/index.js";
import { collectSync, contextWith, model, textResult, tool, user } from "./helpers/fixtures.js";

const add = tool("add", (_id, params: { a: number; b: number }) => textResult(String(params.a + params.b)), {
  type: "object",
  properties: { a: { type: "number" }, b: { type: "number" } },
  required: ["a", "b"],
});

function script() {
  return fauxProvider([{ content: [fauxToolCall("add", { a: "2", b: 3 }, "t1")] }, { content: "5" }]);
}

describe("T2: rxagent/core has no default validator", () => {
  it("T2: its Agent without a validator: prompt() rejects saying what to pass, and no request is made", async () => {
    const provider = script();
    const agent = new core.Agent({ initialState: { model, tools: [add] }, streamFn: provider });
    await expect(agent.prompt("2 + 3?")).rejects.toThrow(/No validator for tool arguments: rxagent\/core has no default\. Pass `validator`/);
    expect(provider.requests).toHaveLength(0);
    expect(agent.state.isStreaming).toBe(false);
  });

  it("T2: with interpretingValidator it runs the tool with coerced arguments, as rxagent's Agent does with ajv", async () => {
    const results: unknown[] = [];
    for (const agent of [
      new core.Agent({ initialState: { model, tools: [add] }, streamFn: script(), validator: core.interpretingValidator }),
      new full.Agent({ initialState: { model, tools: [add] }, streamFn: script() }),
    ]) {
      await agent.prompt("2 + 3?");
      results.push(agent.state.messages.find((m) => m.role === "toolResult"));
    }
    expect(results[0]).toMatchObject({ isError: false, content: [{ type: "text", text: "5" }] });
    expect(results[1]).toMatchObject({ isError: false, content: [{ type: "text", text: "5" }] });
  });

  it("T2: a run whose every tool has its own validator needs none from the Agent", async () => {
    const own = { ...add, validator: core.interpretingValidator };
    const agent = new core.Agent({ initialState: { model, tools: [own] }, streamFn: script() });
    await agent.prompt("2 + 3?");
    expect(agent.state.messages.find((m) => m.role === "toolResult")).toMatchObject({ isError: false });
  });

  it("T2: its agentLoop and runToolCall throw at call time without a validator; rxagent's default to ajv", () => {
    expect(() => core.agentLoop([user("go")], contextWith([add]), { model }, undefined, script())).toThrow(/No validator for tool arguments/);
    expect(() => core.agentLoopContinue(contextWith([add], [user("go")]), { model }, undefined, script())).toThrow(/No validator for tool arguments/);
    const call = { type: "toolCall" as const, id: "c1", name: "add", arguments: { a: 1, b: 2 } };
    const options = { tools: [add], context: { messages: [], tools: [add] }, assistantMessage: { role: "assistant" as const, content: [call], api: "faux", provider: "faux", model: "faux-1", usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "toolUse" as const, timestamp: 0 } };
    expect(() => core.runToolCall(call, options)).toThrow(/No validator for tool arguments/);
    const outcomes = collectSync(full.runToolCall(call, options) as never) as unknown as { isError: boolean }[];
    expect(outcomes[0]).toMatchObject({ isError: false });
    const events = collectSync(core.agentLoop([user("go")], contextWith([add]), { model, validator: core.interpretingValidator }, undefined, script()));
    expect(events.at(-1)).toMatchObject({ type: "agent_end" });
    expect(collectSync(full.agentLoop([user("go")], contextWith([add]), { model }, undefined, script())).at(-1)).toMatchObject({ type: "agent_end" });
  });

  it("rxagent's Agent is the core's with a default; everything else is the same export", () => {
    expect(new full.Agent()).toBeInstanceOf(core.Agent);
    expect(full.Agent).not.toBe(core.Agent);
    const differ = Object.keys(full).filter((name) => (full as Record<string, unknown>)[name] !== (core as Record<string, unknown>)[name]);
    expect(differ.sort()).toEqual(["Agent", "agentLoop", "agentLoopContinue", "runToolCall", "validateToolArguments"]);
    expect(Object.keys(full).sort()).toEqual(Object.keys(core).sort());
  });
});

describe("R1–R3: rxagent/core has run control only when it is passed", () => {
  const validator = core.interpretingValidator;
  const guarded = tool("rm", () => textResult("removed"), { type: "object" }, { needsApproval: true });
  const needsRunControl = /needs run control: pass `runControl` \(import \{ runControl \} from "rxagent\/core"\)/;

  it("R2 R3: its Agent refuses limits or maxConcurrency without runControl, at once, naming what to pass", () => {
    expect(() => new core.Agent({ initialState: { model }, validator, limits: { maxTurns: 2 } })).toThrow(/^`limits` needs run control/);
    expect(() => new core.Agent({ initialState: { model }, validator, maxConcurrency: 2 })).toThrow(needsRunControl);
    // Bad values are still bad values when run control is there.
    expect(() => new core.Agent({ initialState: { model }, validator, runControl: core.runControl, maxConcurrency: 0 })).toThrow("maxConcurrency must be a positive integer, got 0.");
  });

  it("R1: a tool that needs approval is refused when the run starts without runControl: it never runs unasked", async () => {
    const provider = fauxProvider([{ content: [fauxToolCall("rm", {}, "r1")] }, { content: "done" }]);
    const agent = new core.Agent({ initialState: { model }, streamFn: provider, validator });
    agent.state.tools = [guarded];
    await expect(agent.prompt("rm")).rejects.toThrow(/^Tool "rm" \(needsApproval or concurrencyKey\) needs run control/);
    expect(provider.requests).toHaveLength(0);
    expect(() => core.agentLoop([user("go")], contextWith([guarded]), { model, validator }, undefined, provider)).toThrow(needsRunControl);
    // needsApproval: false asks for nothing.
    expect(() => core.agentLoop([user("go")], contextWith([{ ...guarded, needsApproval: false }]), { model, validator }, undefined, provider)).not.toThrow();
  });

  it("R1 R6: its Agent without runControl, too: beforeToolCall asking for approval gives the call an error result; nothing waits", async () => {
    const agent = new core.Agent({ initialState: { model, tools: [add] }, streamFn: script(), validator, beforeToolCall: () => ({ needsApproval: true }) });
    const seen: string[] = [];
    agent.subscribe((event) => void seen.push(event.type));
    await agent.prompt("go");
    expect(seen).not.toContain("tool_approval_request");
    expect(agent.state.pendingApprovals).toEqual([]);
    const result = agent.state.messages.find((m) => (m as { role: string }).role === "toolResult");
    expect(result).toMatchObject({ isError: true, content: [{ text: 'Tool call "add" needs approval, and nothing in this run can give it (no requestApproval).' }] });
  });

  it("R1: beforeToolCall asking for approval without run control gives the call an error result, and no request event", () => {
    const events = collectSync(
      core.agentLoop([user("go")], contextWith([add]), { model, validator, beforeToolCall: () => ({ needsApproval: true }) }, undefined, script()),
    );
    expect(events.some((event) => event.type === "tool_approval_request")).toBe(false);
    expect(events.find((event) => event.type === "tool_execution_end")).toMatchObject({ isError: true, result: { content: [{ text: 'Tool call "add" needs approval, and nothing in this run can give it (no requestApproval).' }] } });
  });

  it("R1 R2: with runControl its Agent and loop do what rxagent's do: limits end the run, approvals are asked", async () => {
    const provider = fauxProvider([{ content: [fauxToolCall("add", { a: 1, b: 2 }, "t1")] }, { content: [fauxToolCall("add", { a: 1, b: 2 }, "t2")] }, { content: "3" }]);
    const agent = new core.Agent({ initialState: { model, tools: [add] }, streamFn: provider, validator, runControl: core.runControl, limits: { maxTurns: 2 } });
    await agent.prompt("go");
    expect(agent.state.limit).toMatchObject({ limit: "maxTurns", value: 2, used: 2 });
    const asked: string[] = [];
    const events = collectSync(
      core.agentLoop([user("go")], contextWith([guarded]), { model, validator, runControl: core.runControl, requestApproval: (request) => (asked.push(request.toolCallId), { approved: false, reason: "no" }) }, undefined, fauxProvider([{ content: [fauxToolCall("rm", {}, "r1")] }, { content: "ok" }])),
    );
    expect(asked).toEqual(["r1"]);
    expect(events.filter((event) => event.type.startsWith("tool_approval")).map((event) => event.type)).toEqual(["tool_approval_request", "tool_approval_end"]);
  });

  it("R1 R3 R6: tools a hook brings in mid-run are checked too: without runControl the run fails before the call runs", async () => {
    const ran: string[] = [];
    const rm = tool("rm", () => (ran.push("rm"), textResult("removed")), { type: "object" }, { needsApproval: true });
    const lane = tool("lane", () => (ran.push("lane"), textResult("ok")), { type: "object" }, { concurrencyKey: () => "same" });
    for (const added of [rm, lane]) {
      const provider = fauxProvider([{ content: [fauxToolCall(added.name, {}, "c1")] }, { content: "done" }]);
      const events = collectSync(core.agentLoop([user("go")], contextWith([]), { model, validator, prepareRequest: ({ context }) => ({ context: { ...context, tools: [added] } }) }, undefined, provider));
      expect(events.at(-1)).toMatchObject({ type: "agent_end" });
      expect(JSON.stringify(events.at(-1))).toMatch(/needs run control/);
    }
    const agent = new core.Agent({ initialState: { model, tools: [add] }, streamFn: script(), validator, prepareNextTurn: () => ({ context: { messages: [], tools: [add, rm] } }) });
    await agent.prompt("go");
    expect(agent.state.errorMessage).toMatch(/Tool "rm" \(needsApproval or concurrencyKey\) needs run control/);
    expect(ran).toEqual([]);
  });

  it("R1–R3: rxagent's Agent and agentLoop have run control without being told", async () => {
    const agent = new full.Agent({ initialState: { model, tools: [add] }, streamFn: fauxProvider([{ content: [fauxToolCall("add", { a: 1, b: 2 }, "t1")] }, { content: [fauxToolCall("add", { a: 1, b: 2 }, "t2")] }, { content: "3" }]), limits: { maxTurns: 2 } });
    await agent.prompt("go");
    expect(agent.state.limit).toMatchObject({ limit: "maxTurns", value: 2 });
    const events = collectSync(full.agentLoop([user("go")], contextWith([add]), { model, limits: { maxToolCalls: 1, onLimit: "tell" } }, undefined, fauxProvider([{ content: [fauxToolCall("add", { a: 1, b: 2 }, "t1"), fauxToolCall("add", { a: 2, b: 2 }, "t2")] }, { content: "ok" }])));
    const ends = events.filter((event) => event.type === "tool_execution_end");
    // The refused call ends at preflight, before the one that ran (completion order).
    expect(ends.map((event) => [event.toolCallId, event.isError])).toEqual([["t2", true], ["t1", false]]);
  });
});
