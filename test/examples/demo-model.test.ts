/**
 * The embedded demo model: what it understands, how it answers, and that it speaks the
 * provider protocol like a real model (and stops on abort like one).
 */
import { from, lastValueFrom, type ObservableInput, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { DEMO_MODEL, demoModel, planReply } from "../../demo/demo-model.js";
import { browserTools, calculatorTool, clockTool, evaluate, weatherTool } from "../../demo/tools.js";
import { createInitialSystemMessage, type AssistantMessage, type AssistantMessageEvent, type Message, type ToolCall } from "../../src/index.js";

const system = (tools = browserTools()) => createInitialSystemMessage("demo", tools)!;
const user = (text: string): Message => ({ role: "user", content: text, timestamp: 0 });
let ids = 0;
const nextId = () => `t${++ids}`;
const calls = (messages: Message[]) => {
  const content = planReply(messages, nextId).content;
  return typeof content === "string" ? [] : content.filter((b): b is ToolCall => b.type === "toolCall").map((c) => [c.name, c.arguments]);
};
const text = (messages: Message[]) => {
  const content = planReply(messages, nextId).content;
  return typeof content === "string" ? content : content.map((b) => (b.type === "text" ? b.text : "")).join("");
};

async function stream(messages: Message[], signal?: AbortSignal): Promise<AssistantMessageEvent[]> {
  const streamFn = demoModel({ delayMs: 0 });
  // The demo model returns an Observable (not a promise of one).
  const events = streamFn(DEMO_MODEL, { messages }, signal ? { signal } : {}) as ObservableInput<AssistantMessageEvent>;
  return lastValueFrom(from(events).pipe(toArray()));
}

describe("demo model", () => {
  it("asks for the weather in every known city mentioned, in the order mentioned", () => {
    expect(calls([system(), user("What's the weather in Tokyo, Paris and Oslo?")])).toEqual([
      ["get_weather", { city: "Tokyo" }],
      ["get_weather", { city: "Paris" }],
      ["get_weather", { city: "Oslo" }],
    ]);
  });

  it("understands arithmetic in symbols and words, the time, and files", () => {
    expect(calls([system(), user("what is (2 + 3) * 4 and 10 divided by 4?")])).toEqual([
      ["calculate", { expression: "(2 + 3) * 4" }],
      ["calculate", { expression: "10 / 4" }],
    ]);
    expect(calls([system(), user("What time is it in Tokyo?")])).toEqual([["get_time", { city: "Tokyo" }]]);
    const withFiles = system([...browserTools(), { name: "read_file", label: "", description: "", parameters: {}, execute: () => ({ content: [] }) }]);
    expect(calls([withFiles, user("show me package.json")])).toEqual([["read_file", { path: "package.json" }]]);
  });

  it("only calls declared tools, and says what it cannot do", () => {
    expect(calls([system([calculatorTool()]), user("weather in Paris")])).toEqual([]);
    expect(text([system([calculatorTool()]), user("weather in Paris")])).toContain("there is no get_weather tool");
    expect(text([system([weatherTool(), clockTool()]), user("read README.md")])).toContain("there is no read_file tool");
  });

  it("summarises tool results, then answers a steering message that arrived after them", () => {
    const messages: Message[] = [
      system(),
      user("weather in Paris"),
      { role: "assistant", content: [{ type: "toolCall", id: "a", name: "get_weather", arguments: { city: "Paris" } }], api: "demo", provider: "rxagent", model: "rxagent-demo", usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "toolUse", timestamp: 0 },
      { role: "toolResult", toolCallId: "a", toolName: "get_weather", content: [{ type: "text", text: "Paris: 18°C, light rain, wind 12 km/h" }], isError: false, timestamp: 0 },
      user("also 6 * 7?"),
    ];
    expect(text(messages)).toMatch(/^Paris: 18°C, light rain, wind 12 km\/h\n\nI'll work out 6 \* 7\.$/);
    expect(calls(messages)).toEqual([["calculate", { expression: "6 * 7" }]]);
  });

  it("helps when it does not understand", () => {
    expect(text([system(), user("hello there")])).toMatch(/^Hello! I'm the rxagent demo model/);
  });

  it("streams the pi-ai protocol: start, thinking, text, tool calls, done", async () => {
    const events = await stream([system(), user("weather in Paris and Oslo")]);
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("start");
    expect(types.at(-1)).toBe("done");
    expect(types).toContain("thinking_delta");
    expect(types.filter((t) => t === "text_delta").length).toBeGreaterThan(3);
    expect(types.filter((t) => t === "toolcall_end")).toHaveLength(2);
    const done = events.at(-1) as Extract<AssistantMessageEvent, { type: "done" }>;
    expect(done.reason).toBe("toolUse");
    expect(done.message.usage.totalTokens).toBeGreaterThan(0);
  });

  it("answers an aborted signal with an aborted message", async () => {
    const controller = new AbortController();
    controller.abort();
    const events = await stream([system(), user("weather in Paris")], controller.signal);
    expect(events).toHaveLength(1);
    expect(events[0]!.type).toBe("error");
    expect((events[0] as { error: AssistantMessage }).error.stopReason).toBe("aborted");
  });

  it("the calculator evaluates precedence, powers, unary minus, and refuses the rest", () => {
    expect(evaluate("(17 + 4) * 23")).toBe(483);
    expect(evaluate("2 ^ 3 ^ 2")).toBe(512);
    expect(evaluate("-3 + 10 % 4")).toBe(-1);
    expect(evaluate("6 × 7")).toBe(42);
    expect(() => evaluate("1 / 0")).toThrow(/division by zero/);
    expect(() => evaluate("process.exit()")).toThrow(/Cannot evaluate/);
  });
});
