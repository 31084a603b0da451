/** Tool-call arguments past the depth and size bounds become `{}` with an error (docs/reliability.md H25, H26). */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AssistantMessage, ToolCall } from "../../src/model/messages.js";
import { boundToolCalls, MAX_TOOL_ARGUMENT_DEPTH, MAX_TOOL_ARGUMENT_SIZE, toolArgumentsOutOfBounds } from "../../src/model/tool-call-bounds.js";
import { assistantMessage } from "../helpers/fixtures.js";

/** Objects and arrays alternating, `depth` levels in all, the outermost an object. */
function nested(depth: number): Record<string, unknown> {
  let value: unknown = {};
  for (let level = depth - 1; level >= 1; level--) value = level % 2 === 1 ? { a: value } : [value];
  return value as Record<string, unknown>;
}

const call = (args: unknown, id = "a"): ToolCall => ({ type: "toolCall", id, name: "t", arguments: args as Record<string, unknown> });

describe("(X4) tool-call bounds", () => {
  it("accepts exactly the deepest nesting allowed and refuses one level more (arrays count as levels)", () => {
    expect(toolArgumentsOutOfBounds(nested(MAX_TOOL_ARGUMENT_DEPTH))).toBeUndefined();
    expect(toolArgumentsOutOfBounds(nested(MAX_TOOL_ARGUMENT_DEPTH + 1))).toBe(`Tool call arguments nest deeper than ${MAX_TOOL_ARGUMENT_DEPTH} levels.`);
  });

  it("counts strings, keys and values against the size bound", () => {
    expect(toolArgumentsOutOfBounds({ s: "x".repeat(MAX_TOOL_ARGUMENT_SIZE - 4) })).toBeUndefined();
    expect(toolArgumentsOutOfBounds({ s: "x".repeat(MAX_TOOL_ARGUMENT_SIZE) })).toMatch(/larger than/);
    expect(toolArgumentsOutOfBounds({ [`k${"x".repeat(MAX_TOOL_ARGUMENT_SIZE)}`]: 1 })).toMatch(/larger than/);
  });

  it("counts scalars by their JSON length: 3 million `false`s (18 MB of JSON) are too large", () => {
    expect(toolArgumentsOutOfBounds({ list: new Array(3_000_000).fill(false) })).toMatch(/larger than/);
    expect(toolArgumentsOutOfBounds({ list: new Array(100_000).fill(false) })).toBeUndefined();
  });

  it("a call whose id or name is not a string (a nested value an upstream sent) gets a string in its place; usage figures that are not numbers become 0", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const hostile = assistantMessage([{ type: "toolCall", id: deep as string, name: { x: deep } as unknown as string, arguments: {} }], "toolUse");
    (hostile as { usage: unknown }).usage = { input: deep, output: 3, cacheRead: 0, cacheWrite: 0, totalTokens: "9", cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: deep } };
    const bounded = boundToolCalls(hostile);
    expect(bounded.content[0]).toEqual({ type: "toolCall", id: "invalid-id-0", name: "", arguments: {} });
    expect(bounded.usage).toEqual({ input: 0, output: 3, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } });
    expect(() => JSON.stringify(bounded)).not.toThrow();
  });

  it("returns the same message when every call is within bounds, a copy with only the offending call replaced otherwise", () => {
    const ok = assistantMessage([{ type: "text", text: "hi" }, call({ n: 1 })], "toolUse");
    expect(boundToolCalls(ok)).toBe(ok);
    const deep = nested(100_000);
    const bad = assistantMessage([{ type: "text", text: "hi" }, call({ n: 1 }, "a"), call(deep, "b")], "toolUse");
    const bounded = boundToolCalls(bad);
    expect(bounded).not.toBe(bad);
    expect(bounded.content[0]).toBe(bad.content[0]);
    expect(bounded.content[1]).toBe(bad.content[1]);
    expect(bounded.content[2]).toEqual({ type: "toolCall", id: "b", name: "t", arguments: {}, argumentsError: `Tool call arguments nest deeper than ${MAX_TOOL_ARGUMENT_DEPTH} levels.` });
    // The provider's message is not changed.
    expect((bad.content[2] as ToolCall).arguments).toBe(deep);
  });

  it("whatever the nesting, the bounded message serialises (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20_000 }), (depth) => {
        const message: AssistantMessage = boundToolCalls(assistantMessage([call(nested(depth))], "toolUse"));
        expect(() => JSON.stringify(message)).not.toThrow();
      }),
      { numRuns: 30 },
    );
  });
});
