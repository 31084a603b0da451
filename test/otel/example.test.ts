/**
 * examples/otel-tracing.ts runs as a user would run it (`npx tsx`), exits 0 with nothing on
 * stderr, and prints the span tree it promises.
 */
import { describe, expect, it } from "vitest";
import { run } from "../examples/support.js";

describe("examples/otel-tracing.ts", () => {
  it("(SPEC O1, O3) prints the run's span tree: two parallel tool spans under invoke_agent, and no spans without a provider", async () => {
    const { code, stdout, stderr } = await run("examples/otel-tracing.ts");
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const lines = stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^invoke_agent weather-bot {2}\[0 → \d+ ms\] {2}tokens in 300, out 42$/);
    expect(lines[1]).toMatch(/^├─ chat faux-1 {2}\[\d+ → \d+ ms\] {2}finish \["tool_call"\], turn 1$/);
    expect(lines[2]).toMatch(/^├─ execute_tool get_weather {2}\[\d+ → \d+ ms\] {2}\{"city":"Paris"\} → Paris: 12°C$/);
    expect(lines[3]).toMatch(/^├─ execute_tool get_weather {2}\[\d+ → \d+ ms\] {2}\{"city":"Oslo"\} → Oslo: 12°C$/);
    expect(lines[4]).toMatch(/^└─ chat faux-1 {2}\[\d+ → \d+ ms\] {2}finish \["stop"\], turn 2$/);
    // Oslo (50 ms) ends before Paris (150 ms), and the closing request waits for both.
    const span = (line: string) => line.match(/\[(\d+) → (\d+) ms\]/)!.slice(1).map(Number) as [number, number];
    const [paris, oslo, closing] = [span(lines[2]!), span(lines[3]!), span(lines[4]!)];
    expect(oslo[1]).toBeLessThan(paris[1]);
    expect(paris[1] - paris[0]).toBeGreaterThanOrEqual(145);
    expect(closing[0]).toBeGreaterThanOrEqual(paris[1]);
    expect(lines[5]).toBe("parallel: true (both tool spans are children of invoke_agent weather-bot)");
    expect(lines[6]).toBe("without a tracer provider: 0 new spans");
    expect(lines).toHaveLength(7);
  });
});
