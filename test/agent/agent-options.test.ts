/**
 * What a newcomer sets on an Agent reaches the run, and what they get wrong is an error at
 * `prompt()` (SPEC A1, T1, T2, M5): provider options, the validator seam, a missing model,
 * duplicate tool names, an invalid schema, and the way to change the system prompt.
 */
import type { SchedulerLike } from "rxjs";
import { describe, expect, it } from "vitest";
import { Agent, type ArgumentValidator } from "../../src/index.js";
import { fauxProvider, fauxToolCall } from "../../src/testing/index.js";
import { model, textResult, tool, toolResults, textOf } from "./support.js";

const echo = tool("echo", (_id, params) => textResult(JSON.stringify(params)), { parameters: { type: "object", properties: { n: { type: "number" } }, required: ["n"] } });

describe("A1: provider options from the Agent", () => {
  it("A1 M3: temperature, maxTokens and providerOptions reach every request; the Agent's own settings win", async () => {
    const provider = fauxProvider([{ content: [fauxToolCall("echo", { n: 1 }, "t1")] }, { content: "done" }]);
    const agent = new Agent({
      initialState: { model, tools: [echo] },
      streamFn: provider,
      temperature: 0.2,
      maxTokens: 256,
      sessionId: "s-1",
      providerOptions: { headers: { "x-team": "blue" }, top_p: 0.9, temperature: 1.5, sessionId: "ignored", toolExecution: "sequential", reasoning: "high", scheduler: { now: () => 0, schedule: () => undefined } },
    });
    await agent.prompt("go");
    expect(provider.requests).toHaveLength(2);
    for (const request of provider.requests) {
      expect(request.options).toMatchObject({ temperature: 0.2, maxTokens: 256, headers: { "x-team": "blue" }, top_p: 0.9, sessionId: "s-1" });
      // a loop key in providerOptions does not reconfigure the loop, nor reach the provider; nor
      // do reasoning (thinkingLevel is off) and scheduler, which the Agent decides
      expect(request.options).not.toHaveProperty("toolExecution");
      expect(request.options).not.toHaveProperty("reasoning");
      expect(request.options).not.toHaveProperty("scheduler");
    }
  });

  it("A1 M3: providerOptions fill the provider options the Agent leaves unset", async () => {
    const provider = fauxProvider([{ content: "a" }]);
    const budgets = { high: 1024 };
    const agent = new Agent({ initialState: { model }, streamFn: provider, providerOptions: { temperature: 0.7, maxTokens: 64, sessionId: "from-options", thinkingBudgets: budgets } });
    await agent.prompt("go");
    expect(provider.requests[0]!.options).toMatchObject({ temperature: 0.7, maxTokens: 64, sessionId: "from-options", thinkingBudgets: budgets });
  });

  it("A1: temperature and maxTokens are assignable and apply to the next run", async () => {
    const provider = fauxProvider([{ content: "a" }, { content: "b" }]);
    const agent = new Agent({ initialState: { model }, streamFn: provider });
    await agent.prompt("one");
    expect(provider.requests[0]!.options).not.toHaveProperty("temperature");
    agent.temperature = 0;
    agent.maxTokens = 10;
    await agent.prompt("two");
    expect(provider.requests[1]!.options).toMatchObject({ temperature: 0, maxTokens: 10 });
  });
});

describe("A1: the scheduler, set before or after construction", () => {
  it("A1: a scheduler assigned to agent.scheduler dates the next prompt's messages and the timestamps of setSystemPrompt()", async () => {
    const clock = (at: number) => ({ now: () => at, schedule: () => ({ unsubscribe() {}, closed: false }) }) as unknown as SchedulerLike;
    const agent = new Agent({ initialState: { model }, streamFn: fauxProvider([{ content: "one" }, { content: "two" }]), scheduler: clock(1_000) });
    await agent.prompt("first");
    agent.scheduler = clock(5_000);
    expect(agent.scheduler.now()).toBe(5_000);
    await agent.prompt("second");
    agent.setSystemPrompt("Be brief.");
    const stamps = agent.state.messages.map((m) => [m.role, m.timestamp]);
    expect(stamps).toEqual([
      ["system", 5_000],
      ["user", 1_000],
      ["assistant", expect.any(Number)],
      ["user", 5_000],
      ["assistant", expect.any(Number)],
    ]);
    agent.scheduler = undefined;
    const before = Date.now();
    agent.steer("third");
    expect(agent.peekQueuedMessages()[0]!.timestamp).toBeGreaterThanOrEqual(before);
  });
});

describe("A1 T1: mistakes are errors at prompt(), not surprises later", () => {
  it("A1 A8: no model is no mistake: prompt() runs with pi's placeholder model, and a model assigned later is the one sent", async () => {
    const provider = fauxProvider([{ content: "first" }, { content: "second" }]);
    const agent = new Agent({ streamFn: provider });
    await agent.prompt("hi");
    expect(provider.requests).toHaveLength(1);
    expect(provider.requests[0]!.model.id).toBe("unknown");
    expect(agent.state.isStreaming).toBe(false);
    agent.state.model = model;
    await agent.prompt("hi");
    expect(provider.requests).toHaveLength(2);
    expect(provider.requests[1]!.model).toBe(model);
  });

  it("T1: two tools with one name: prompt() rejects naming it; nothing is declared to the model", async () => {
    const provider = fauxProvider([{ content: "never" }]);
    const agent = new Agent({ initialState: { model, tools: [echo, { ...echo, description: "another" }] }, streamFn: provider });
    await expect(agent.prompt("hi")).rejects.toThrow('Two tools are named "echo": tool names must be unique');
    expect(provider.requests).toHaveLength(0);
    expect(agent.state.messages.filter((m) => m.role === "user")).toHaveLength(0);
  });

  it("T1 T2: an invalid parameters schema is an error at prompt(), before the model can call the tool", async () => {
    const broken = tool("broken", () => textResult("x"), { parameters: { type: "object", properties: { n: { type: "nubmer" } } } });
    const provider = fauxProvider([{ content: [fauxToolCall("broken", { n: 1 }, "t1")] }, { content: "never" }]);
    const agent = new Agent({ initialState: { model, tools: [broken] }, streamFn: provider });
    await expect(agent.prompt("hi")).rejects.toThrow(/Tool "broken" has an invalid parameters schema \(interpreting\): interpreting validator, tool "broken": invalid schema: "type" at #\/properties\/n must be one of/);
    expect(provider.requests).toHaveLength(0);
  });

  it("T2: two Agents whose tools reuse one $id for different schemas both run (ajv registers ids process-wide)", async () => {
    const search = tool("search", (_id, p) => textResult(JSON.stringify(p)), { parameters: { $id: "Args", type: "object", properties: { q: { type: "string" } }, required: ["q"] } });
    const fetchUrl = tool("fetch", (_id, p) => textResult(JSON.stringify(p)), { parameters: { $id: "Args", type: "object", properties: { url: { type: "string" } }, required: ["url"] } });
    const a = new Agent({ initialState: { model, tools: [search] }, streamFn: fauxProvider([{ content: [fauxToolCall("search", { q: "x" }, "t1")] }, { content: "ok" }]) });
    const b = new Agent({ initialState: { model, tools: [fetchUrl] }, streamFn: fauxProvider([{ content: [fauxToolCall("fetch", { q: "x" }, "t1")] }, { content: "ok" }]) });
    await a.prompt("go");
    await b.prompt("go");
    expect(toolResults(a.state.messages)[0]!.isError).toBe(false);
    // b's own schema is the one checked: url is required
    expect(textOf(toolResults(b.state.messages)[0])).toContain("  - url: is required");
  });

  it("T1: a tool without a name, without execute or without a schema is named in the error", async () => {
    const cases: [object, RegExp][] = [
      [{ ...echo, name: "" }, /The tool at index 0 has no name/],
      [{ ...echo, execute: undefined }, /Tool "echo" has no execute function/],
      [{ ...echo, parameters: undefined }, /Tool "echo" has no parameters schema/],
    ];
    for (const [bad, message] of cases) {
      const agent = new Agent({ initialState: { model, tools: [bad as typeof echo] }, streamFn: fauxProvider([{ content: "x" }]) });
      await expect(agent.prompt("hi")).rejects.toThrow(message);
    }
  });
});

describe("T2: the validator seam", () => {
  /** A validator that records what it was asked and accepts only even `n`. */
  function evenValidator(log: string[]): ArgumentValidator {
    return {
      name: "even",
      compile: (_schema, toolName) => {
        log.push(`compile ${toolName}`);
        return (args) => (typeof args.n === "number" && args.n % 2 === 0 ? undefined : [{ path: "n", message: "must be even" }]);
      },
    };
  }

  it("T2: the Agent's validator checks every tool's arguments; its issues are what the model reads", async () => {
    const log: string[] = [];
    const provider = fauxProvider([{ content: [fauxToolCall("echo", { n: 3 }, "t1"), fauxToolCall("echo", { n: 4 }, "t2")] }, { content: "done" }]);
    const agent = new Agent({ initialState: { model, tools: [echo] }, streamFn: provider, validator: evenValidator(log) });
    await agent.prompt("go");
    const [odd, even] = toolResults(agent.state.messages);
    expect(odd!.isError).toBe(true);
    expect(textOf(odd)).toContain('Invalid arguments for tool "echo":\n  - n: must be even');
    expect(even!.isError).toBe(false);
    // compiled at prompt() (the schema check) and for each call
    expect(log[0]).toBe("compile echo");
  });

  it("T2: a tool's own validator wins over the Agent's", async () => {
    const log: string[] = [];
    const strict: ArgumentValidator = { name: "none-shall-pass", compile: () => () => [{ path: "", message: "is refused" }] };
    const guarded = { ...echo, name: "guarded", validator: strict };
    const provider = fauxProvider([{ content: [fauxToolCall("echo", { n: 2 }, "t1"), fauxToolCall("guarded", { n: 2 }, "t2")] }, { content: "done" }]);
    const agent = new Agent({ initialState: { model, tools: [echo, guarded] }, streamFn: provider, validator: evenValidator(log) });
    await agent.prompt("go");
    const [plain, own] = toolResults(agent.state.messages);
    expect(plain!.isError).toBe(false);
    expect(own!.isError).toBe(true);
    expect(textOf(own)).toContain("  - (root): is refused");
    expect(log.every((line) => line === "compile echo")).toBe(true);
  });

  it("T2: a validator that rejects a schema at compile makes prompt() reject, naming the validator", async () => {
    const picky: ArgumentValidator = { name: "picky", compile: () => { throw new Error("keyword \"$dynamicRef\" is not supported"); } };
    const agent = new Agent({ initialState: { model, tools: [echo] }, streamFn: fauxProvider([{ content: "x" }]), validator: picky });
    await expect(agent.prompt("go")).rejects.toThrow('Tool "echo" has an invalid parameters schema (picky): keyword "$dynamicRef" is not supported');
  });
});

describe("M5: changing the system prompt", () => {
  it("M5: setSystemPrompt() replaces the prompt for the next request; tools stay declared", async () => {
    const provider = fauxProvider([{ content: "a" }, { content: "b" }]);
    const agent = new Agent({ initialState: { systemPrompt: "Be brief.", model, tools: [echo] }, streamFn: provider });
    await agent.prompt("one");
    agent.setSystemPrompt("Answer in French.");
    expect(agent.state.systemPrompt).toBe("Answer in French.");
    await agent.prompt("two");
    const leading = (index: number) => provider.requests[index]!.messages[0] as { role: string; content: unknown; toolsAdded?: { name: string }[] };
    expect(leading(0)).toMatchObject({ role: "system", content: "Be brief." });
    expect(leading(1)).toMatchObject({ role: "system", content: "Answer in French." });
    expect(leading(1).toolsAdded?.map((t) => t.name)).toEqual(["echo"]);
  });

  it("M5: an Agent made without a prompt gets one; assigning state.systemPrompt says what to call instead", () => {
    const agent = new Agent({ initialState: { model }, streamFn: fauxProvider([]) });
    agent.setSystemPrompt("Hello.");
    expect(agent.state.systemPrompt).toBe("Hello.");
    expect(agent.state.messages[0]).toMatchObject({ role: "system", content: "Hello." });
    expect(() => ((agent.state as { systemPrompt: string }).systemPrompt = "x")).toThrow(/agent\.setSystemPrompt\(text\)/);
  });

  it("M5: setSystemPrompt() of anything but a string throws a TypeError and changes nothing", () => {
    const agent = new Agent({ initialState: { model, systemPrompt: "Be brief." } });
    expect(() => agent.setSystemPrompt(42 as unknown as string)).toThrow(new TypeError("setSystemPrompt() takes the prompt text as a string."));
    expect(agent.state.systemPrompt).toBe("Be brief.");
  });

  it("M5: setSystemPrompt() during a run throws and changes nothing", async () => {
    const agent = new Agent({ initialState: { systemPrompt: "Be brief.", model }, streamFn: fauxProvider([{ content: "a" }]) });
    const errors: unknown[] = [];
    agent.subscribe((event) => {
      if (event.type === "turn_start") {
        try {
          agent.setSystemPrompt("no");
        } catch (error) {
          errors.push(error);
        }
      }
    });
    await agent.prompt("one");
    expect(String(errors[0])).toMatch(/while a run is active/);
    expect(agent.state.systemPrompt).toBe("Be brief.");
  });
});

describe("A6: failures read as in pi-agent-core", () => {
  it("A6: a provider that throws ends the run with the error's own message and pi's content shape", async () => {
    const agent = new Agent({ initialState: { model }, streamFn: () => { throw new Error("provider exploded"); } });
    await agent.prompt("hi");
    expect(agent.state.errorMessage).toBe("provider exploded");
    expect(agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "error", errorMessage: "provider exploded", content: [{ type: "text", text: "" }] });
  });

  it("A6: a provider whose promise rejects, likewise", async () => {
    const agent = new Agent({ initialState: { model }, streamFn: () => Promise.reject<never>(new Error("no route to host")) });
    await agent.prompt("hi");
    expect(agent.state.errorMessage).toBe("no route to host");
  });

  it("A6: a listener that throws before any content: the normalized failure has content [{ type: 'text', text: '' }]", async () => {
    const agent = new Agent({ initialState: { model }, streamFn: fauxProvider([{ content: "never seen" }]) });
    agent.subscribe((event) => {
      if (event.type === "turn_start") throw new Error("listener broke");
    });
    await agent.prompt("hi");
    expect(agent.state.errorMessage).toBe("listener broke");
    expect(agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "error", content: [{ type: "text", text: "" }] });
  });
});
