/**
 * AssistantMessageBuilder: fresh snapshots per event (SPEC L5) and streamed tool arguments
 * (the parsed-so-far arguments on the partial message).
 */
import { describe, expect, it } from "vitest";
import type { ToolCall } from "../../../src/model/messages.js";
import { AssistantMessageBuilder, EAGER_PARSE_CHARS } from "../../../src/providers/shared/message-builder.js";
import { model } from "../support/collect.js";

describe("AssistantMessageBuilder (SPEC L5)", () => {
  it("L5 · each change gives a new message and a new changed block; earlier snapshots stay as they were", () => {
    const b = new AssistantMessageBuilder(model, 0);
    const text = b.startText();
    const first = b.appendText(text.index, "a");
    const tool = b.startToolCall("c1", "t");
    const second = b.appendText(text.index, "b");
    const p1 = (first as { partial: { content: unknown[] } }).partial;
    const p2 = (second as { partial: { content: unknown[] } }).partial;
    expect(p1).not.toBe(p2);
    expect(p1.content).toEqual([{ type: "text", text: "a" }]);
    expect(p2.content).toEqual([{ type: "text", text: "ab" }, { type: "toolCall", id: "c1", name: "t", arguments: {} }]);
    // The unchanged tool block is shared between snapshots.
    expect(p2.content[1]).toBe((tool.event as { partial: { content: unknown[] } }).partial.content[1]);
  });

  it("a tool call streaming a large argument stays linear; the shown arguments lag by at most an eighth", () => {
    const b = new AssistantMessageBuilder(model, 0);
    const { index } = b.startToolCall("c1", "write");
    const content = "x".repeat(400_000);
    const json = JSON.stringify({ path: "big.txt", content });
    let shownLength = 0;
    // The work of re-parsing: a parse makes a new arguments object, and it reads every character
    // received so far. Re-parsing on every fragment would read ~json.length² / 16 characters.
    let shown: unknown;
    let parsedChars = 0;
    for (let i = 0; i < json.length; i += 8) {
      const event = b.appendToolArguments(index, json.slice(i, i + 8));
      const args = ((event as { partial: { content: ToolCall[] } }).partial.content[index] as ToolCall).arguments;
      shownLength = typeof args.content === "string" ? args.content.length : 0;
      const received = Math.min(json.length, i + 8);
      if (args !== shown) parsedChars += received;
      shown = args;
      if (received > EAGER_PARSE_CHARS) expect(shownLength).toBeGreaterThanOrEqual(Math.floor(received / (9 / 8)) - 40);
    }
    const end = b.endBlock(index) as { toolCall: ToolCall };
    expect(end.toolCall.arguments).toEqual({ path: "big.txt", content });
    // Linear: every fragment up to EAGER_PARSE_CHARS (a constant), then a parse per growth by an
    // eighth, whose lengths add up to at most 9 × the whole.
    expect(parsedChars).toBeLessThanOrEqual((EAGER_PARSE_CHARS * EAGER_PARSE_CHARS) / 16 + EAGER_PARSE_CHARS + 9 * json.length);
  });
});
