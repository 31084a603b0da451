/**
 * `examples/ai-sdk-provider.ts` runs as a user runs it (`npx tsx`), exits 0 with nothing on
 * stderr, and shows what it promises: the real `@ai-sdk/anthropic` provider through
 * `fromAiSdk`, a tool call, the tool result sent back in Anthropic's format, the answer and its
 * priced usage (rules V1–V3 proposed).
 */
import { describe, expect, it } from "vitest";
import { indexesInOrder, run } from "../../examples/support.js";

describe("examples/ai-sdk-provider.ts (V1, V2, V3)", () => {
  it("V2 · streams the answer after a tool call and prints the tool_result the second request carried", async () => {
    const { code, stdout, stderr } = await run("examples/ai-sdk-provider.ts");
    expect(stderr).toBe("");
    expect(code).toBe(0);
    indexesInOrder(stdout, [
      "Let me look that up.\n",
      '→ get_weather({"location":"Paris"})\n',
      "It is 18°C and cloudy in Paris — take a light jacket.\n",
      "answer (stop): It is 18°C and cloudy in Paris — take a light jacket.\n",
      // 452 input and 17 output tokens at $3 and $15 per million.
      `usage: 452 in, 17 out, $${((452 * 3 + 17 * 15) / 1e6).toFixed(6)}\n`,
      'second request, last message: {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01Example","content":"Paris: 18°C, cloudy"}]}',
    ]);
  }, 60_000);
});
