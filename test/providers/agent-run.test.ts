/**
 * Full agent runs through `agentLoop` against a real HTTP server speaking Chat Completions:
 * tool call → tool executes → the second request carries the
 * tool result in the wire format; and pi-ai's own `openai-completions` API, taken from its
 * provider catalog, plugged in unchanged as the `StreamFn` (SPEC M1, M3).
 */
import { afterEach, describe, expect, it } from "vitest";
import { lastValueFrom, toArray } from "rxjs";
import { agentLoop } from "../../src/loop/agent-loop.js";
import type { AssistantMessage, Model, StreamFn, ToolResultMessage } from "../../src/model/messages.js";
import type { AgentEvent, AgentLoopConfig, AgentMessage, AgentTool } from "../../src/index.js";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Agent } from "../../src/agent/agent.js";
import { openaiCompatible } from "../../src/providers/openai/index.js";
import { toNodeListener } from "../../src/providers/proxy/node.js";
import { createProxyHandler, streamProxy } from "../../src/providers/proxy/index.js";
import { withRetry, type RetryEvent } from "../../src/providers/retry/index.js";
import { errorResponse } from "./support/http-server.js";
import { weatherTool } from "./support/collect.js";
import { fromPiAi, fromPiAiModel } from "../../src/providers/pi-ai.js";
import { sseResponse, startTestServer, type TestServer } from "./support/http-server.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});


const systemPrompt = (): AgentMessage => ({ role: "system", content: "You are a weather assistant.", timestamp: 0 });
const question = (): AgentMessage => ({ role: "user", content: "Weather in Paris?", timestamp: 1 });

function run(streamFn: StreamFn, model: Model, tools: AgentTool[], config: Omit<Partial<AgentLoopConfig>, "model"> = {}): Promise<AgentEvent[]> {
  return lastValueFrom(agentLoop([question()], { messages: [systemPrompt()], tools }, { model, ...config }, undefined, streamFn).pipe(toArray()));
}

function newMessages(events: AgentEvent[]): AgentMessage[] {
  const end = events.find((e): e is Extract<AgentEvent, { type: "agent_end" }> => e.type === "agent_end");
  if (!end) throw new Error("no agent_end");
  return end.messages;
}

describe("openaiCompatible driving agentLoop", () => {
  it("tool call → tool runs → the second request carries the tool result as a `tool` message", async () => {
    server = await startTestServer((_r, index) => sseResponse(index === 0 ? "tool-call.sse" : "final-answer.sse"));
    const model: Model = { id: "gpt-4o-mini", api: "openai-completions", provider: "openai" };
    const calls: unknown[] = [];
    let issued = 0;
    const getApiKey = async (provider: string) => `sk-${provider}-${++issued}`; // an expiring token, fetched per request
    const events = await run(openaiCompatible({ baseUrl: `${server.url}/v1`, apiKey: "sk-fallback" }), model, [weatherTool(calls)], { getApiKey });

    expect(calls).toEqual([{ location: "Paris, France", unit: "celsius", days: [1, 2, 3] }]);
    const added = newMessages(events).filter((m) => (m as { role: string }).role !== "system");
    expect(added.map((m) => (m as { role: string }).role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    const final = added[3] as AssistantMessage;
    expect(final.stopReason).toBe("stop");
    expect(final.content).toEqual([{ type: "text", text: "It is 18°C in Paris." }]);

    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests.map((r) => r.json());
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(["Bearer sk-openai-1", "Bearer sk-openai-2"]);
    // The loop declared the executable tool in the transcript (SPEC M5); the request sends it.
    expect(first.tools).toEqual([
      {
        type: "function",
        function: {
          name: "get_weather",
          description: "Current weather for a location",
          parameters: weatherTool([]).parameters,
        },
      },
    ]);
    expect(first.messages).toEqual([
      { role: "system", content: "You are a weather assistant." },
      { role: "user", content: "Weather in Paris?" },
    ]);
    expect(second.messages).toEqual([
      { role: "system", content: "You are a weather assistant." },
      { role: "user", content: "Weather in Paris?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_Kq2vV0dA7xJm",
            type: "function",
            function: { name: "get_weather", arguments: '{"location":"Paris, France","unit":"celsius","days":[1,2,3]}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_Kq2vV0dA7xJm", content: "18°C, cloudy" },
    ]);
    expect(second.tools).toEqual(first.tools);
  });

  it("parallel calls: failed tools reach the model as error results, in source order", async () => {
    server = await startTestServer((_r, index) => sseResponse(index === 0 ? "parallel-tool-calls.sse" : "final-answer.sse"));
    const model: Model = { id: "gpt-4o-mini", api: "openai-completions", provider: "openai" };
    const readFile: AgentTool = {
      name: "read_file",
      label: "Read",
      description: "Read a file",
      parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      execute: async (_id, params: { path: string }) => {
        if (params.path === "src/b.ts") throw new Error("ENOENT: no such file src/b.ts");
        return { content: [{ type: "text", text: "export const a = 1;" }] };
      },
    };
    const events = await run(openaiCompatible({ baseUrl: `${server.url}/v1` }), model, [readFile]);
    const results = newMessages(events).filter((m): m is ToolResultMessage => (m as { role: string }).role === "toolResult");
    expect(results.map((r) => [r.toolCallId, r.isError])).toEqual([
      ["call_A1", false],
      ["call_B2", true],
      ["call_C3", true],
    ]);
    const tools = server.requests[1]!.json().messages.filter((m: { role: string }) => m.role === "tool");
    expect(tools.map((m: { tool_call_id: string }) => m.tool_call_id)).toEqual(["call_A1", "call_B2", "call_C3"]);
    expect(tools[0].content).toBe("export const a = 1;");
    expect(tools[1].content).toMatch(/^Error: .*ENOENT: no such file src\/b\.ts/);
    expect(tools[2].content).toMatch(/^Error: .*list_dir/);
  });
});

describe("the Agent on real HTTP", () => {
  it("Agent → withRetry(streamProxy) → proxy server → openaiCompatible → upstream: a 429 is retried, the answer lands in state", async () => {
    server = await startTestServer((_r, index) =>
      index === 0 ? errorResponse(429, "error-429.json", { "retry-after-ms": "20" }) : sseResponse(index === 1 ? "tool-call.sse" : "final-answer.sse"),
    );
    const proxy = createServer(toNodeListener(createProxyHandler({ streamFn: openaiCompatible({ baseUrl: `${server.url}/v1`, apiKey: "sk-server" }), token: "t0k", models: [{ id: "gpt-4o-mini", api: "openai-completions", provider: "openai" }] })));
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/api/stream`;
      const streamFn = withRetry(streamProxy({ url, authToken: "t0k" }), { initialDelayMs: 10 });
      const retries: RetryEvent[] = [];
      streamFn.retries$.subscribe((r) => retries.push(r));
      const calls: unknown[] = [];
      const agent = new Agent({
        streamFn,
        initialState: { systemPrompt: "You are a weather assistant.", model: { id: "gpt-4o-mini", api: "openai-completions", provider: "openai" }, tools: [weatherTool(calls)] },
      });
      await agent.prompt("Weather in Paris?");
      expect(retries.map((r) => [r.attempt, r.delayMs, r.failure?.status])).toEqual([[1, 20, 429]]);
      expect(calls).toHaveLength(1);
      const last = agent.state.messages.at(-1) as AssistantMessage;
      expect(last.content).toEqual([{ type: "text", text: "It is 18°C in Paris." }]);
      expect(server.requests).toHaveLength(3);
      expect(server.requests[2]!.json().messages.at(-1)).toEqual({ role: "tool", tool_call_id: "call_Kq2vV0dA7xJm", content: "18°C, cloudy" });
    } finally {
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });
});

describe("pi-ai interop (SPEC M1, M3)", () => {
  it("pi-ai's openai-completions streamSimple, with a model from its provider catalog, drives a full agentLoop run unchanged", async () => {
    server = await startTestServer((_r, index) => sseResponse(index === 0 ? "tool-call.sse" : "final-answer.sse"));
    const { groqProvider } = await import("@earendil-works/pi-ai/providers/groq");
    const groq = groqProvider();
    const catalogModel = groq.getModels().find((m) => m.api === "openai-completions");
    if (!catalogModel) throw new Error("pi-ai's Groq catalog has no openai-completions model");
    // The catalog entry, pointed at the local server instead of api.groq.com.
    const model = fromPiAiModel({ ...catalogModel, baseUrl: `${server.url}/v1` });
    const { streamSimple } = await import("@earendil-works/pi-ai/api/openai-completions");

    const calls: unknown[] = [];
    // pi-ai's function gets every request as it is (fromPiAi answers only the placeholder model itself, SPEC A8).
    const events = await run(fromPiAi(streamSimple), model, [weatherTool(calls)], { apiKey: "gsk-test" });

    expect(calls).toEqual([{ location: "Paris, France", unit: "celsius", days: [1, 2, 3] }]);
    const added = newMessages(events).filter((m) => (m as { role: string }).role !== "system");
    expect(added.map((m) => (m as { role: string }).role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    const final = added[3] as AssistantMessage;
    expect(final.stopReason).toBe("stop");
    expect(final.api).toBe("openai-completions");
    expect(final.provider).toBe("groq");
    expect(final.content).toEqual([{ type: "text", text: "It is 18°C in Paris." }]);
    // Streaming reached the loop as message updates.
    expect(events.filter((e) => e.type === "message_update").length).toBeGreaterThan(5);

    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]!.headers.authorization).toBe("Bearer gsk-test");
    // The requests really came from pi-ai's client, not from rxagent's provider.
    expect(server.requests[0]!.headers["user-agent"]).toMatch(/^pi\/1\.6\.0 /);
    const second = server.requests[1]!.json();
    expect(second.model).toBe(catalogModel.id);
    const wire = second.messages.slice(-2);
    expect(wire[0]).toMatchObject({
      role: "assistant",
      tool_calls: [{ id: "call_Kq2vV0dA7xJm", type: "function", function: { name: "get_weather" } }],
    });
    expect(JSON.parse(wire[0].tool_calls[0].function.arguments)).toEqual({ location: "Paris, France", unit: "celsius", days: [1, 2, 3] });
    expect(wire[1]).toEqual({ role: "tool", tool_call_id: "call_Kq2vV0dA7xJm", content: "18°C, cloudy" });
  });

  it("the documented path: a pi-ai Models collection (catalog + auth) as the StreamFn, via models.streamSimple", async () => {
    server = await startTestServer(() => sseResponse("final-answer.sse"));
    const { createModels } = await import("@earendil-works/pi-ai");
    const { groqProvider } = await import("@earendil-works/pi-ai/providers/groq");
    const models = createModels();
    models.setProvider(groqProvider());
    const catalogModel = models.getModels("groq")[0]!;
    const model = fromPiAiModel({ ...catalogModel, baseUrl: `${server.url}/v1` });
    const events = await run(fromPiAi((m, context, options) => models.streamSimple(m, context, options)), model, [], { apiKey: "gsk-doc" });
    const final = newMessages(events).at(-1) as AssistantMessage;
    expect(final.errorMessage).toBeUndefined();
    expect(final.content).toEqual([{ type: "text", text: "It is 18°C in Paris." }]);
    expect(server.requests[0]!.headers.authorization).toBe("Bearer gsk-doc");
  });
});
