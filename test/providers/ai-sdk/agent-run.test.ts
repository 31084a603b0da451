/**
 * Whole Agent runs through the bridge against real AI SDK providers and a server on 127.0.0.1
 * (rules V2, V5 proposed; SPEC M3, L10): the model asks for a tool, the tool runs, and the
 * second request carries the tool result in the provider's own wire format.
 */
import { describe, expect, it } from "vitest";
import { createAnthropic } from "@ai-sdk/anthropic";
import { Agent } from "../../../src/agent/agent.js";
import type { AssistantMessage, ToolResultMessage } from "../../../src/model/messages.js";
import { aiSdkModel, fromAiSdk } from "../../../src/providers/ai-sdk/index.js";
import { scriptedServers } from "../support/http-server.js";
import { weatherTool } from "../support/collect.js";
import { anthropicAt, firstEvents, openaiChatAt, openaiResponsesAt, sse } from "./support.js";

const serve = scriptedServers();

/** A scripted weather tool that records its calls. */

function roles(agent: Agent): string[] {
  return agent.state.messages.map((m) => (m as { role: string }).role);
}

describe("an Agent over fromAiSdk (V2, SPEC M3)", () => {
  it("V2 · @ai-sdk/anthropic: tool call → tool runs → the second request carries a tool_result block with the output", async () => {
    const s = await serve(sse("anthropic-tool-call.sse"), sse("anthropic-final-answer.sse"));
    const claude = anthropicAt(s.url);
    const calls: unknown[] = [];
    const agent = new Agent({ streamFn: fromAiSdk(claude), initialState: { systemPrompt: "You are a weather assistant.", model: aiSdkModel(claude), tools: [weatherTool(calls)] } });
    await agent.prompt("Weather in Paris?");

    expect(agent.state.errorMessage).toBeUndefined();
    expect(calls).toEqual([{ location: "Paris, France", unit: "celsius", days: [1, 2, 3] }]);
    expect(roles(agent)).toEqual(["system", "user", "assistant", "toolResult", "assistant"]);
    const answer = agent.state.messages[4] as AssistantMessage;
    expect(answer).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "It is 18°C in Paris." }] });

    expect(s.requests).toHaveLength(2);
    const second = s.requests[1]!.json();
    expect(second.system).toEqual([{ type: "text", text: "You are a weather assistant." }]);
    expect(second.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Weather in Paris?" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Let me check the weather." },
          { type: "tool_use", id: "toolu_01A09q90qw90lq917835lq9", name: "get_weather", input: { location: "Paris, France", unit: "celsius", days: [1, 2, 3] } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_01A09q90qw90lq917835lq9", content: "18°C, cloudy" }] },
    ]);
  });

  it("V2 · @ai-sdk/openai Chat Completions: the second request carries a role \"tool\" message with tool_call_id", async () => {
    const s = await serve(sse("openai-chat-tool-call.sse"), sse("openai-chat-final-answer.sse"));
    const gpt = openaiChatAt(s.url);
    const calls: unknown[] = [];
    const agent = new Agent({ streamFn: fromAiSdk(gpt), initialState: { systemPrompt: "You are a weather assistant.", model: aiSdkModel(gpt), tools: [weatherTool(calls)] } });
    await agent.prompt("Weather in Paris?");

    expect(calls).toEqual([{ location: "Paris, France", unit: "celsius", days: [1, 2, 3] }]);
    expect((agent.state.messages[4] as AssistantMessage).content).toEqual([{ type: "text", text: "It is 18°C in Paris." }]);
    const messages = s.requests[1]!.json().messages;
    expect(messages.slice(2)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_Kq2vV0dA7xJm", type: "function", function: { name: "get_weather", arguments: JSON.stringify({ location: "Paris, France", unit: "celsius", days: [1, 2, 3] }) } }],
      },
      { role: "tool", tool_call_id: "call_Kq2vV0dA7xJm", content: "18°C, cloudy" },
    ]);
  });

  it("V2 · @ai-sdk/openai Responses: the second request carries a function_call_output, and the stored items by reference", async () => {
    const s = await serve(sse("openai-responses-tool-call.sse"), sse("openai-responses-final-answer.sse"));
    const gpt = openaiResponsesAt(s.url);
    const calls: unknown[] = [];
    const agent = new Agent({ streamFn: fromAiSdk(gpt), initialState: { systemPrompt: "You are a weather assistant.", model: aiSdkModel(gpt), tools: [weatherTool(calls)] } });
    await agent.prompt("Weather in Paris?");

    expect(calls).toEqual([{ location: "Paris, France", unit: "celsius" }]);
    expect((agent.state.messages[4] as AssistantMessage).content[0]).toMatchObject({ type: "text", text: "It is 18°C in Paris." });
    const input = s.requests[1]!.json().input;
    expect(input).toContainEqual({ type: "function_call_output", call_id: "call_W3athr0Paris", output: "18°C, cloudy" });
    // The metadata kept in the signatures went back: the provider refers to its stored items.
    expect(input).toContainEqual({ type: "item_reference", id: "rs_0a1b2c3dTool01" });
    const outputAt = input.findIndex((item: { type?: string }) => item.type === "function_call_output");
    const referenceAt = input.findIndex((item: { id?: string }) => item.id === "rs_0a1b2c3dTool01");
    expect(referenceAt).toBeLessThan(outputAt);
  });

  it("V2 · a resolver builds the model per request with the key getApiKey gave", async () => {
    const s = await serve(sse("anthropic-tool-call.sse"), sse("anthropic-final-answer.sse"));
    let issued = 0;
    const streamFn = fromAiSdk((model, options) => createAnthropic({ baseURL: `${s.url}/v1`, apiKey: options.apiKey })(model.id));
    const agent = new Agent({
      streamFn,
      getApiKey: (provider) => `sk-${provider}-${++issued}`,
      initialState: { model: aiSdkModel({ modelId: "claude-haiku-4-5", provider: "anthropic.messages" }), tools: [weatherTool([])] },
    });
    await agent.prompt("Weather in Paris?");

    expect(roles(agent)).toEqual(["system", "user", "assistant", "toolResult", "assistant"]);
    expect(s.requests.map((r) => r.headers["x-api-key"])).toEqual(["sk-anthropic.messages-1", "sk-anthropic.messages-2"]);
    expect(s.requests.map((r) => r.json().model)).toEqual(["claude-haiku-4-5", "claude-haiku-4-5"]);
  });
});

describe("agent.abort() over fromAiSdk (V5, SPEC L10)", () => {
  it("V5 · abort while the answer streams: the run ends with an aborted message keeping the text, and the connection closes", async () => {
    const s = await serve({ ...sse("anthropic-text.sse"), chunks: [firstEvents("anthropic-text.sse", 4)], drip: 'event: ping\ndata: {"type": "ping"}\n\n', delayMs: 5 });
    const claude = anthropicAt(s.url);
    const agent = new Agent({ streamFn: fromAiSdk(claude), initialState: { model: aiSdkModel(claude) } });
    agent.subscribe((event) => {
      if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") agent.abort();
    });
    await agent.prompt("Say hello");
    await s.waitForClientClose(0);

    const last = agent.state.messages.at(-1) as AssistantMessage;
    expect(last.stopReason).toBe("aborted");
    expect(last.content).toEqual([{ type: "text", text: "Hello" }]);
    expect(agent.state.isStreaming).toBe(false);
    expect(s.clientClosed).toEqual([0]);
    const results = agent.state.messages.filter((m): m is ToolResultMessage => (m as { role: string }).role === "toolResult");
    expect(results).toEqual([]);
  });
});
