/**
 * The Chat Completions request for a transcript (SPEC M5): system prompt and
 * sections replayed from system messages, tools added and removed, user images, assistant
 * tool calls, tool results (errors marked), incomplete turns left out.
 */
import { describe, expect, it } from "vitest";
import type { AssistantMessage, Message, Model, ToolCall } from "../../../src/model/messages.js";
import { emptyUsage } from "../../../src/model/assistant-message.js";
import { buildChatCompletionRequest, toChatMessages } from "../../../src/providers/openai/openai-request.js";

const model: Model = { id: "gpt-4o-mini", api: "openai-completions", provider: "openai" };
const tool = (name: string) => ({ name, description: `${name} tool`, parameters: { type: "object", properties: {} } });
const call = (id: string, name: string, args: Record<string, unknown> = {}): ToolCall => ({ type: "toolCall", id, name, arguments: args });
const assistant = (content: AssistantMessage["content"], stopReason: AssistantMessage["stopReason"] = "toolUse", extra: Partial<AssistantMessage> = {}): AssistantMessage => ({
  role: "assistant",
  content,
  api: "openai-completions",
  provider: "openai",
  model: "gpt-4o-mini",
  usage: emptyUsage(),
  stopReason,
  timestamp: 0,
  ...extra,
});

describe("buildChatCompletionRequest (SPEC M5)", () => {
  it("M5 · system messages are replayed: content appended, sections replaced and deleted, tools added and removed", () => {
    const messages: Message[] = [
      { role: "system", content: "You are terse.", sections: { style: "Use lists.", env: "OS: linux" }, toolsAdded: [tool("a"), tool("b")], timestamp: 0 },
      { role: "user", content: "hi", timestamp: 1 },
      { role: "system", content: "Also be kind.", sections: { env: "OS: macOS", style: null }, toolsRemoved: [{ name: "a" }], toolsAdded: [tool("c")], timestamp: 2 },
      { role: "user", content: "again", timestamp: 3 },
    ];
    const body = buildChatCompletionRequest(model, messages, {});
    expect(body.messages).toEqual([
      { role: "system", content: "You are terse.\n\nAlso be kind.\n\nOS: macOS" },
      { role: "user", content: "hi" },
      { role: "user", content: "again" },
    ]);
    expect(body.tools!.map((t) => t.function.name)).toEqual(["b", "c"]);
  });

  it("user text and images, assistant text and tool_calls, tool results with errors marked and images after them", () => {
    const messages: Message[] = [
      { role: "user", content: [{ type: "text", text: "What is this?" }, { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }], timestamp: 0 },
      assistant([{ type: "thinking", thinking: "hmm" }, { type: "text", text: "Let me look." }, call("c1", "zoom", { factor: 2 }), call("c2", "ocr")]),
      { role: "toolResult", toolCallId: "c1", toolName: "zoom", content: [{ type: "image", data: "AAAA", mimeType: "image/jpeg" }], isError: false, timestamp: 1 },
      { role: "toolResult", toolCallId: "c2", toolName: "ocr", content: [{ type: "text", text: "timeout after 30s" }], isError: true, timestamp: 2 },
    ];
    expect(toChatMessages(model, messages)).toEqual([
      { role: "user", content: [{ type: "text", text: "What is this?" }, { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } }] },
      {
        role: "assistant",
        content: "Let me look.",
        tool_calls: [
          { id: "c1", type: "function", function: { name: "zoom", arguments: '{"factor":2}' } },
          { id: "c2", type: "function", function: { name: "ocr", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: "(see the attached image)" },
      { role: "tool", tool_call_id: "c2", content: "Error: timeout after 30s" },
      { role: "user", content: [{ type: "text", text: "Images returned by the tools above:" }, { type: "image_url", image_url: { url: "data:image/jpeg;base64,AAAA" } }] },
    ]);
  });

  it("failed and aborted assistant turns are left out with their results; unanswered calls get an error result", () => {
    const messages: Message[] = [
      { role: "user", content: "go", timestamp: 0 },
      assistant([call("x1", "slow")], "aborted", { errorMessage: "Request was aborted" }),
      { role: "toolResult", toolCallId: "x1", toolName: "slow", content: [{ type: "text", text: "Operation aborted" }], isError: true, timestamp: 1 },
      { role: "user", content: "try again", timestamp: 2 },
      assistant([call("y1", "fast"), call("y2", "fast")]),
      { role: "toolResult", toolCallId: "y2", toolName: "fast", content: [{ type: "text", text: "ok" }], isError: false, timestamp: 3 },
      { role: "user", content: "and?", timestamp: 4 },
    ];
    expect(toChatMessages(model, messages)).toEqual([
      { role: "user", content: "go" },
      { role: "user", content: "try again" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "y1", type: "function", function: { name: "fast", arguments: "{}" } },
          { id: "y2", type: "function", function: { name: "fast", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "y2", content: "ok" },
      { role: "tool", tool_call_id: "y1", content: "Error: no result was provided for this tool call." },
      { role: "user", content: "and?" },
    ]);
  });

  it("reasoning from the same model is replayed in the field it came from", () => {
    const messages: Message[] = [
      { role: "user", content: "2+2?", timestamp: 0 },
      assistant([{ type: "thinking", thinking: "simple", thinkingSignature: "reasoning_content" }, { type: "text", text: "4" }], "stop", { model: "deepseek-reasoner", provider: "deepseek" }),
    ];
    const deepseek: Model = { id: "deepseek-reasoner", api: "openai-completions", provider: "deepseek" };
    expect(toChatMessages(deepseek, messages)[1]).toEqual({ role: "assistant", content: "4", reasoning_content: "simple" });
    expect(toChatMessages(model, messages)[1]).toEqual({ role: "assistant", content: "4" });
  });

  it("reasoning level, max tokens field, system role, usage and extra fields", () => {
    const messages: Message[] = [
      { role: "system", content: "Be brief.", timestamp: 0 },
      { role: "user", content: "hi", timestamp: 1 },
    ];
    const openai = buildChatCompletionRequest(model, messages, { reasoning: "xhigh", maxTokens: 64 }, { baseUrl: "https://api.openai.com/v1", systemRole: "developer" });
    expect(openai).toMatchObject({ reasoning_effort: "high", max_completion_tokens: 64, stream: true, stream_options: { include_usage: true } });
    expect(openai.messages[0]).toEqual({ role: "developer", content: "Be brief." });

    const local = buildChatCompletionRequest({ ...model, reasoning: false }, messages, { reasoning: "low", maxTokens: 64 }, {
      baseUrl: "http://localhost:11434/v1",
      includeUsage: false,
      extraBody: { top_k: 20 },
    });
    expect(local).toEqual({ model: "gpt-4o-mini", messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "hi" }], stream: true, max_tokens: 64, top_k: 20 });

    const custom = buildChatCompletionRequest(model, messages, { reasoning: "medium" }, { reasoningParams: (level) => ({ reasoning: { effort: level } }), modelId: "openai/gpt-4o-mini" });
    expect(custom).toMatchObject({ model: "openai/gpt-4o-mini", reasoning: { effort: "medium" } });
    expect(custom.reasoning_effort).toBeUndefined();
  });
});
