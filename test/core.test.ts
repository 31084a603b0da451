/**
 * `rxagent/core` (SPEC T2): the same API as `rxagent` without a default validator. Its Agent,
 * loop and `runToolCall` need a `validator` (or every tool its own) and say so at once; with one
 * they behave as `rxagent`'s do. `rxagent`'s are the core's with ajv as the default.
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
