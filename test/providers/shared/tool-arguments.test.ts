/** Parsing a finished tool call's arguments: bounded like every answer (docs/reliability.md H25, H26). */
import { describe, expect, it } from "vitest";
import { MAX_TOOL_ARGUMENT_DEPTH } from "../../../src/model/tool-call-bounds.js";
import type { ToolCall } from "../../../src/model/messages.js";
import { AssistantMessageBuilder } from "../../../src/providers/shared/message-builder.js";
import { parseFinalArguments } from "../../../src/providers/shared/tool-arguments.js";

describe("(X4) parseFinalArguments", () => {
  it("arguments nested 100 000 deep are {} with the bound's error, so toolcall_end and every encoder after it get a small value", () => {
    const text = `${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}`;
    const parsed = parseFinalArguments(text);
    expect(parsed).toEqual({ arguments: {}, error: `Tool call arguments nest deeper than ${MAX_TOOL_ARGUMENT_DEPTH} levels.` });
    expect(() => JSON.stringify(parsed)).not.toThrow();
  });

  it("arguments within the bounds are parsed as they are", () => {
    expect(parseFinalArguments('{"path":"a.txt","n":[1,2]}')).toEqual({ arguments: { path: "a.txt", n: [1, 2] } });
    expect(parseFinalArguments("")).toEqual({ arguments: {} });
  });
});

describe("(X4) a tool call the proxy's server sends whole", () => {
  it("is bounded as a parsed one is: 100 000 levels become {} with the bound's error on toolcall_end", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    const builder = new AssistantMessageBuilder({ id: "m", api: "faux", provider: "faux" }, 0);
    builder.start();
    const { index } = builder.startToolCall("c1", "t");
    const event = builder.endBlock(index, { type: "toolCall", id: "c1", name: "t", arguments: deep as Record<string, unknown> });
    const toolCall = (event as { toolCall: ToolCall }).toolCall;
    expect(toolCall).toEqual({ type: "toolCall", id: "c1", name: "t", arguments: {}, argumentsError: `Tool call arguments nest deeper than ${MAX_TOOL_ARGUMENT_DEPTH} levels.` });
  });
});
