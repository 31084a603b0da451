/**
 * examples/mcp-tools.ts runs as a user runs it (`npx tsx`, here `node --import tsx`): exit 0,
 * nothing on stderr, and the output shows what the example promises (SPEC MCP2, MCP3).
 */
import { describe, expect, it } from "vitest";
import { indexesInOrder, run } from "../examples/support.js";

describe("examples/mcp-tools.ts", () => {
  it("MCP3 · connects to server-everything over stdio, calls three tools in parallel with progress, prints the results, closes", async () => {
    const { code, stdout, stderr } = await run("examples/mcp-tools.ts");
    expect(stderr).toBe("");
    expect(code, stdout).toBe(0);
    const lines = stdout.trim().split("\n");
    expect(lines[0]).toBe("connected to mcp-servers/everything");
    expect(lines[1]).toMatch(/^tools: 12 \(everything_echo, /);
    // Started in the order asked; the quick ones end first; progress comes while the long one runs.
    expect(lines.slice(2, 5)).toEqual(["start    everything_trigger-long-running-operation", "start    everything_echo", "start    everything_get-sum"]);
    const progress = lines.filter((line) => line.startsWith("progress"));
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.slice(0, 2)).toEqual(["progress everything_trigger-long-running-operation 33%", "progress everything_trigger-long-running-operation 67%"]);
    indexesInOrder(stdout, ["end      everything_echo", "progress everything_trigger-long-running-operation 33%", "end      everything_trigger-long-running-operation"]);
    expect(lines.filter((line) => line.startsWith("result"))).toEqual([
      "result   everything_trigger-long-running-operation: Long running operation completed. Duration: 1.5 seconds, Steps: 3.",
      "result   everything_echo: Echo: hello from rxagent",
      "result   everything_get-sum: The sum of 17 and 25 is 42.",
    ]);
    expect(lines.at(-2)).toBe("answer: The server echoed, added and finished its long operation.");
    expect(lines.at(-1)).toBe("closed by the app");
  });
});
