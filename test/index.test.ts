/**
 * The public surface (SPEC T2, R6): one `Agent`, one `agentLoop`, and no internals. `rxagent/core`
 * re-exports `rxagent`. Tool arguments are checked by the interpreting validator unless the app
 * names another (so a bundle without `ajvValidator` carries no ajv; test/package/tarball.test.ts
 * bundles both); run control is built in.
 */
import { describe, expect, it } from "vitest";
import * as core from "../src/core.js";
import * as rxagent from "../src/index.js";
import { fauxProvider, fauxToolCall } from "../src/testing/index.js";
import { collectSync, contextWith, model, textResult, tool, user } from "./helpers/fixtures.js";
import { PUBLIC_VALUES } from "./helpers/public-values.js";

const add = tool("add", (_id, params: { a: number; b: number }) => textResult(String(params.a + params.b)), {
  type: "object",
  properties: { a: { type: "number" }, b: { type: "number" } },
  required: ["a", "b"],
});

function script() {
  return fauxProvider([{ content: [fauxToolCall("add", { a: "2", b: 3 }, "t1")] }, { content: "5" }]);
}


describe("T2: one public surface", () => {
  it("rxagent exports these values and no others (no loop keys, reducers, stream helpers or ajv internals)", () => {
    expect(Object.keys(rxagent).sort()).toEqual(PUBLIC_VALUES);
  });

  it("rxagent/core re-exports rxagent: the same names, each the same value (one Agent class, one agentLoop)", () => {
    expect(Object.keys(core).sort()).toEqual(PUBLIC_VALUES);
    for (const name of PUBLIC_VALUES) expect((core as Record<string, unknown>)[name], name).toBe((rxagent as Record<string, unknown>)[name]);
  });

  it("T2: without a validator the Agent checks with the interpreting one, coercing as ajv's configuration does; ajvValidator gives the same result", async () => {
    const results: unknown[] = [];
    for (const validator of [undefined, rxagent.interpretingValidator, rxagent.ajvValidator]) {
      const agent = new rxagent.Agent({ initialState: { model, tools: [add] }, streamFn: script(), validator });
      await agent.prompt("2 + 3?");
      results.push(agent.state.messages.find((m) => m.role === "toolResult"));
    }
    for (const result of results) expect(result).toMatchObject({ isError: false, content: [{ type: "text", text: "5" }] });
  });

  it("T2: agentLoop, agentLoopContinue, runToolCall and validateToolArguments default to it too", () => {
    for (const events of [
      collectSync(rxagent.agentLoop([user("go")], contextWith([add]), { model }, undefined, script())),
      collectSync(rxagent.agentLoopContinue(contextWith([add], [user("go")]), { model }, undefined, script())),
    ]) {
      expect(events.find((event) => event.type === "tool_execution_end")).toMatchObject({ isError: false, result: { content: [{ text: "5" }] } });
    }
    const call = { type: "toolCall" as const, id: "c1", name: "add", arguments: { a: "1", b: 2 } };
    const options = { tools: [add], context: { messages: [], tools: [add] }, assistantMessage: { role: "assistant" as const, content: [call], api: "faux", provider: "faux", model: "faux-1", usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "toolUse" as const, timestamp: 0 } };
    expect(collectSync(rxagent.runToolCall(call, options) as never)).toMatchObject([{ isError: false, result: { content: [{ text: "3" }] } }]);
    expect(rxagent.validateToolArguments("add", add.parameters, call)).toEqual({ a: 1, b: 2 });
    expect(() => rxagent.validateToolArguments("add", add.parameters, { arguments: { a: "x" } })).toThrow(/^Invalid arguments for tool "add":\n(.*\n)* {2}- a: must be number\n/);
  });
});

describe("R1–R3 R6: run control is built in", () => {
  it("R1–R3: the Agent and agentLoop have limits, approvals and lanes without being told", async () => {
    const agent = new rxagent.Agent({ initialState: { model, tools: [add] }, streamFn: fauxProvider([{ content: [fauxToolCall("add", { a: 1, b: 2 }, "t1")] }, { content: [fauxToolCall("add", { a: 1, b: 2 }, "t2")] }, { content: "3" }]), limits: { maxTurns: 2 } });
    await agent.prompt("go");
    expect(agent.state.limit).toMatchObject({ limit: "maxTurns", value: 2 });
    const events = collectSync(rxagent.agentLoop([user("go")], contextWith([add]), { model, limits: { maxToolCalls: 1, onLimit: "tell" } }, undefined, fauxProvider([{ content: [fauxToolCall("add", { a: 1, b: 2 }, "t1"), fauxToolCall("add", { a: 2, b: 2 }, "t2")] }, { content: "ok" }])));
    const ends = events.filter((event) => event.type === "tool_execution_end");
    // The refused call ends at preflight, before the one that ran (completion order).
    expect(ends.map((event) => [event.toolCallId, event.isError])).toEqual([["t2", true], ["t1", false]]);
    const guarded = tool("rm", () => textResult("removed"), { type: "object" }, { needsApproval: true });
    const asked: string[] = [];
    const approvals = collectSync(rxagent.agentLoop([user("go")], contextWith([guarded]), { model, requestApproval: (request) => (asked.push(request.toolCallId), { approved: false, reason: "no" }) }, undefined, fauxProvider([{ content: [fauxToolCall("rm", {}, "r1")] }, { content: "ok" }])));
    expect(asked).toEqual(["r1"]);
    expect(approvals.filter((event) => event.type.startsWith("tool_approval")).map((event) => event.type)).toEqual(["tool_approval_request", "tool_approval_end"]);
  });

  it("R6: a runControl in the options is the one the run uses, and bad values are refused at once", () => {
    const checked: unknown[] = [];
    const own = { ...rxagent.runControl, checkConfig: (config: unknown) => void checked.push(config) };
    new rxagent.Agent({ initialState: { model }, runControl: own, maxConcurrency: 2 });
    expect(checked).toHaveLength(1);
    expect(() => new rxagent.Agent({ initialState: { model }, maxConcurrency: 0 })).toThrow("maxConcurrency must be a positive integer, got 0.");
  });
});
