/**
 * An OpenAI-compatible server that puts nested values where strings and numbers belong (a tool
 * call's id and name, usage figures) or streams arguments nested without end: what the reader
 * makes of them serialises, so the next request and the journal cannot be poisoned
 * (docs/reliability.md H25). Real HTTP on 127.0.0.1.
 */
import { describe, expect, it } from "vitest";
import { openaiCompatible } from "../../../src/providers/openai/index.js";
import type { ToolCall } from "../../../src/model/messages.js";
import { collect, finalMessage, weatherContext } from "../support/collect.js";
import { scriptedServers } from "../support/http-server.js";

const serve = scriptedServers();
const sse = { "content-type": "text/event-stream" };
const chunk = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;

function nested(levels: number): string {
  return `${"[".repeat(levels)}1${"]".repeat(levels)}`;
}

describe("(X4) openaiCompatible: fields a hostile server fills with nested values", () => {
  it("a tool call's id and name that are not strings, usage figures that are not numbers: a generated id, no name, zero counts; the message serialises", async () => {
    const deep = nested(50_000);
    const body = [
      `data: {"id":"r1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":${deep},"function":{"name":{"x":${deep}},"arguments":"{}"}}]},"finish_reason":null}]}\n\n`,
      chunk({ id: "r1", choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] }),
      `data: {"id":"r1","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":${deep}}}\n\n`,
      "data: [DONE]\n\n",
    ];
    const s = await serve({ status: 200, headers: sse, chunks: body });
    const events = await collect(openaiCompatible({ baseUrl: `${s.url}/v1` }), weatherContext());
    const message = finalMessage(events);
    const call = message.content[0] as ToolCall;
    expect(typeof call.id).toBe("string");
    expect(call.name).toBe("");
    expect(message.usage.output).toBe(0);
    expect(() => JSON.stringify(events)).not.toThrow();
  });

  it("tool-call arguments streamed 20 000 levels deep: every partial and the final call serialise; the call carries the bound's error", async () => {
    const text = `{"a":${nested(20_000)}}`;
    const pieces = text.match(/.{1,4000}/g)!;
    const body = [
      chunk({ id: "r2", choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "c1", function: { name: "t", arguments: "" } }] }, finish_reason: null }] }),
      ...pieces.map((piece) => chunk({ id: "r2", choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: piece } }] }, finish_reason: null }] })),
      chunk({ id: "r2", choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] }),
      "data: [DONE]\n\n",
    ];
    const s = await serve({ status: 200, headers: sse, chunks: body });
    const events = await collect(openaiCompatible({ baseUrl: `${s.url}/v1` }), weatherContext());
    for (const event of events) expect(() => JSON.stringify(event)).not.toThrow();
    const call = finalMessage(events).content[0] as ToolCall;
    expect(call.arguments).toEqual({});
    expect(call.argumentsError).toBe("Tool call arguments nest deeper than 64 levels.");
  });
});
