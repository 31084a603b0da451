/**
 * The request side of the bridge (rule V2 proposed; SPEC M5): the transcript as an AI SDK
 * prompt, the declared tools, and the call options of one request.
 */
import { describe, expect, it } from "vitest";
// Internal modules: the entry exports none of them (V1).
import { buildAiSdkCall } from "../../../src/providers/ai-sdk/ai-sdk-call.js";
import { toAiSdkPrompt, toAiSdkTools, toToolResultOutput } from "../../../src/providers/ai-sdk/ai-sdk-prompt.js";
import type { AssistantMessage, Message, Model, ToolResultMessage } from "../../../src/model/messages.js";
import { emptyUsage } from "../../../src/model/assistant-message.js";

const model: Model = { id: "claude-sonnet-4-5", api: "ai-sdk", provider: "anthropic.messages" };
const PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

function assistant(content: AssistantMessage["content"], fields: Partial<AssistantMessage> = {}): AssistantMessage {
  return { role: "assistant", content, api: model.api, provider: model.provider, model: model.id, usage: emptyUsage(), stopReason: "stop", timestamp: 2, ...fields };
}

function result(toolCallId: string, text: string, fields: Partial<ToolResultMessage> = {}): ToolResultMessage {
  return { role: "toolResult", toolCallId, toolName: "get_weather", content: [{ type: "text", text }], isError: false, timestamp: 3, ...fields };
}

const call = (id: string, args: Record<string, unknown> = { location: "Paris" }) => ({ type: "toolCall" as const, id, name: "get_weather", arguments: args });

describe("toAiSdkPrompt (V2, SPEC M5)", () => {
  it("V2 · the system messages are replayed into one leading system message: content appended, sections replaced and deleted", () => {
    const messages: Message[] = [
      { role: "system", content: "You are terse.", sections: { style: "Use bullet points.", time: "It is Monday." }, timestamp: 0 },
      { role: "user", content: "hi", timestamp: 1 },
      { role: "system", content: "Prefer metric units.", sections: { time: null }, timestamp: 2 },
      { role: "user", content: "weather?", timestamp: 3 },
    ];
    expect(toAiSdkPrompt(model, messages)).toEqual([
      { role: "system", content: "You are terse.\n\nPrefer metric units.\n\nUse bullet points." },
      { role: "user", content: [{ type: "text", text: "hi" }] },
      { role: "user", content: [{ type: "text", text: "weather?" }] },
    ]);
  });

  it("V2 · user text and images become text and file parts (base64 data, the image's media type)", () => {
    const prompt = toAiSdkPrompt(model, [{ role: "user", content: [{ type: "text", text: "What is this?" }, { type: "image", data: PIXEL, mimeType: "image/png" }], timestamp: 1 }]);
    expect(prompt).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "What is this?" },
          { type: "file", mediaType: "image/png", data: { type: "data", data: PIXEL } },
        ],
      },
    ]);
  });

  it("V2 · an assistant turn: text, reasoning and tool calls; results grouped into one tool message in call order", () => {
    const messages: Message[] = [
      { role: "user", content: "Paris and Oslo?", timestamp: 1 },
      assistant([
        { type: "thinking", thinking: "Two cities.", thinkingSignature: JSON.stringify({ anthropic: { signature: "sig-1" } }) },
        { type: "text", text: "Checking both." },
        call("t1"),
        call("t2", { location: "Oslo" }),
      ]),
      result("t2", "5°C"),
      result("t1", "18°C"),
    ];
    expect(toAiSdkPrompt(model, messages).slice(1)).toEqual([
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "Two cities.", providerOptions: { anthropic: { signature: "sig-1" } } },
          { type: "text", text: "Checking both." },
          { type: "tool-call", toolCallId: "t1", toolName: "get_weather", input: { location: "Paris" } },
          { type: "tool-call", toolCallId: "t2", toolName: "get_weather", input: { location: "Oslo" } },
        ],
      },
      {
        role: "tool",
        content: [
          { type: "tool-result", toolCallId: "t1", toolName: "get_weather", output: { type: "text", value: "18°C" } },
          { type: "tool-result", toolCallId: "t2", toolName: "get_weather", output: { type: "text", value: "5°C" } },
        ],
      },
    ]);
  });

  it("V2 · provider metadata goes back only to the model that wrote it; another model's reasoning is left out", () => {
    const other = { api: "ai-sdk", provider: "openai.responses", model: "gpt-5-mini" };
    const messages: Message[] = [
      { role: "user", content: "q", timestamp: 1 },
      assistant(
        [
          { type: "thinking", thinking: "hmm", thinkingSignature: JSON.stringify({ openai: { itemId: "rs_1" } }) },
          { type: "text", text: "a", textSignature: JSON.stringify({ openai: { itemId: "msg_1" } }) },
        ],
        other,
      ),
      { role: "user", content: "again", timestamp: 3 },
    ];
    expect(toAiSdkPrompt(model, messages)[1]).toEqual({ role: "assistant", content: [{ type: "text", text: "a" }] });
    const same = { id: other.model, api: other.api, provider: other.provider };
    expect(toAiSdkPrompt(same, messages)[1]).toEqual({
      role: "assistant",
      content: [
        { type: "reasoning", text: "hmm", providerOptions: { openai: { itemId: "rs_1" } } },
        { type: "text", text: "a", providerOptions: { openai: { itemId: "msg_1" } } },
      ],
    });
  });

  it("V2 · signature-only reasoning (redacted, or an empty summary) still goes back; a signature that is not ours does not become options", () => {
    const messages: Message[] = [
      { role: "user", content: "q", timestamp: 1 },
      assistant([
        { type: "thinking", thinking: "", thinkingSignature: JSON.stringify({ anthropic: { redactedData: "opaque" } }) },
        { type: "thinking", thinking: "", thinkingSignature: "reasoning_content" },
        { type: "thinking", thinking: "plain", thinkingSignature: "EqQBCgIY-bare-signature" },
        { type: "text", text: "done" },
      ]),
    ];
    expect(toAiSdkPrompt(model, messages)[1]).toEqual({
      role: "assistant",
      content: [
        { type: "reasoning", text: "", providerOptions: { anthropic: { redactedData: "opaque" } } },
        { type: "reasoning", text: "plain" },
        { type: "text", text: "done" },
      ],
    });
  });

  it("V2 · failed and aborted turns are left out with their results; an unanswered call gets an error result; a stray result is dropped", () => {
    const messages: Message[] = [
      { role: "user", content: "q", timestamp: 1 },
      assistant([call("bad")], { stopReason: "error", errorMessage: "HTTP 500" }),
      result("bad", "never sent"),
      assistant([call("lost")], { stopReason: "aborted" }),
      assistant([{ type: "text", text: "" }]),
      assistant([call("open"), call("answered", { location: "Oslo" })], { stopReason: "toolUse" }),
      result("answered", "5°C"),
      result("answered", "a duplicate"),
      result("unknown", "no such call"),
      { role: "user", content: "next", timestamp: 9 },
    ];
    expect(toAiSdkPrompt(model, messages)).toEqual([
      { role: "user", content: [{ type: "text", text: "q" }] },
      {
        role: "assistant",
        content: [
          { type: "tool-call", toolCallId: "open", toolName: "get_weather", input: { location: "Paris" } },
          { type: "tool-call", toolCallId: "answered", toolName: "get_weather", input: { location: "Oslo" } },
        ],
      },
      {
        role: "tool",
        content: [
          { type: "tool-result", toolCallId: "open", toolName: "get_weather", output: { type: "error-text", value: "No result was provided for this tool call." } },
          { type: "tool-result", toolCallId: "answered", toolName: "get_weather", output: { type: "text", value: "5°C" } },
        ],
      },
      { role: "user", content: [{ type: "text", text: "next" }] },
    ]);
  });
});

describe("tool results and tools (V2)", () => {
  it("V2 · an error result is error-text; images make a content output, an error result's text saying so first; nothing at all is (no output)", () => {
    expect(toToolResultOutput({ content: [{ type: "text", text: "boom" }], isError: true })).toEqual({ type: "error-text", value: "boom" });
    expect(toToolResultOutput({ content: [], isError: false })).toEqual({ type: "text", value: "(no output)" });
    expect(toToolResultOutput({ content: [{ type: "text", text: "a chart" }, { type: "image", data: PIXEL, mimeType: "image/png" }], isError: false })).toEqual({
      type: "content",
      value: [
        { type: "text", text: "a chart" },
        { type: "file", mediaType: "image/png", data: { type: "data", data: PIXEL } },
      ],
    });
    expect(toToolResultOutput({ content: [{ type: "image", data: PIXEL, mimeType: "image/jpeg" }], isError: true })).toEqual({
      type: "content",
      value: [
        { type: "text", text: "Error: the tool failed" },
        { type: "file", mediaType: "image/jpeg", data: { type: "data", data: PIXEL } },
      ],
    });
  });

  it("V2 · the declared tools after additions and removals, as function tools with their JSON Schemas", () => {
    const schema = { type: "object", properties: { q: { type: "string" } }, required: ["q"] };
    const messages: Message[] = [
      { role: "system", content: "", toolsAdded: [{ name: "search", description: "Search", parameters: schema }, { name: "old", description: "Old", parameters: {} }], timestamp: 0 },
      { role: "system", content: "", toolsRemoved: [{ name: "old" }], timestamp: 1 },
    ];
    expect(toAiSdkTools(messages)).toEqual([{ type: "function", name: "search", description: "Search", inputSchema: schema }]);
  });
});

describe("buildAiSdkCall (V2, SPEC M3)", () => {
  const messages: Message[] = [
    { role: "system", content: "sys", toolsAdded: [{ name: "search", description: "Search", parameters: { type: "object" } }], timestamp: 0 },
    { role: "user", content: "hi", timestamp: 1 },
  ];

  it("V2 · maxTokens, temperature, reasoning and headers come from the request; the rest from callOptions", () => {
    const call = buildAiSdkCall(model, messages, { maxTokens: 256, temperature: 0.1, reasoning: "xhigh", headers: { "x-req": "1" } }, {
      topP: 0.9,
      maxOutputTokens: 999,
      headers: { "x-app": "a", "x-req": "app" },
      providerOptions: { anthropic: { sendReasoning: true } },
    });
    expect(call).toEqual({
      prompt: [
        { role: "system", content: "sys" },
        { role: "user", content: [{ type: "text", text: "hi" }] },
      ],
      tools: [{ type: "function", name: "search", description: "Search", inputSchema: { type: "object" } }],
      topP: 0.9,
      maxOutputTokens: 256,
      temperature: 0.1,
      reasoning: "xhigh",
      headers: { "x-app": "a", "x-req": "1" },
      providerOptions: { anthropic: { sendReasoning: true } },
    });
  });

  it("V2 · thinking off sends no reasoning (the provider's default) unless the map says otherwise; provider tools follow the transcript's", () => {
    const plain = buildAiSdkCall(model, messages, {});
    expect(plain).not.toHaveProperty("reasoning");
    expect(plain).not.toHaveProperty("maxOutputTokens");
    const webSearch = { type: "provider" as const, id: "anthropic.web_search_20250305" as const, name: "web_search", args: {} };
    const off = buildAiSdkCall(model, messages, {}, { tools: [webSearch] }, (level) => level ?? "none");
    expect(off.reasoning).toBe("none");
    expect(off.tools?.map((tool) => tool.name)).toEqual(["search", "web_search"]);
    expect(buildAiSdkCall(model, [{ role: "user", content: "hi", timestamp: 1 }], {})).not.toHaveProperty("tools");
  });
});
