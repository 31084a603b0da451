/**
 * The terminal demo (`npm start`) as a newcomer meets it: run piped, the session plays to the
 * end and exits 0; its plain output shows the story in order; on a pseudo-TTY it draws colours
 * and live progress bars instead.
 */
import { spawn } from "node:child_process";
import { describe, it } from "vitest";
import { indexesInOrder, ROOT, run } from "./support.js";

const ANSI = /\x1b\[/;

// Each test runs the demo in its own process: they can run side by side.
describe.concurrent("npm start (the scripted demo)", () => {
  it("runs through `npm start` with plain output when piped and exits 0", async ({ expect }) => {
    const child = spawn("npm", ["start"], { cwd: ROOT, env: { ...process.env, NO_COLOR: undefined, FORCE_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(stderr).toBe("");
    expect(code).toBe(0);
    // Piped: no colours even with FORCE_COLOR, and no cursor movement.
    expect(stdout).not.toMatch(ANSI);
    expect(stdout).toMatch(/^\[summary\] 5 turns · 7 tool calls · \d+ events · \d+\.\d s · \d+ tokens$/m);
  });

  it("tells the story in order: parallel tools with progress, steering after the batch, follow-up last, summary", async ({ expect }) => {
    const { code, stdout, stderr } = await run("demo/main.ts");
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const line = (text: string) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`, "m");

    indexesInOrder(stdout, [
      line("[follow-up] queued"),
      line("[turn 1]"),
      line("[user] What's the weather in Paris, Tokyo and Oslo?"),
      line("[thinking]"),
      line("[assistant] I'll check the weather in Paris, Tokyo and Oslo"),
      line("[tool ▶] get_weather(Paris)"),
      line("[tool ▶] get_weather(Tokyo)"),
      line("[tool ▶] get_weather(Oslo)"),
      line("[steer] queued while tools run"),
      line("[turn 2]"),
      line("[user · steering] Also, what is 17 * 23"),
      /^\[assistant\] Here's what I found:\n- Paris: 18°C/m,
      line("[tool ✔] calculate(17 * 23) → 17 * 23 = 391"),
      line("[turn 3]"),
      /^- 17 \* 23 = 391$/m,
      line("[turn 4]"),
      line("[user · follow-up] What time is it in Tokyo?"),
      line("[tool ✔] read_file(package.json)"),
      line("[turn 5]"),
      /"name": "rxagent"/,
      line("[summary] 5 turns · 7 tool calls"),
    ]);

    // Every weather call started before any ended (parallel), reported progress, and the
    // steering message waited for the whole batch (SPEC L7).
    const at = (text: string) => stdout.indexOf(text);
    const starts = ["Paris", "Tokyo", "Oslo"].map((city) => at(`[tool ▶] get_weather(${city})`));
    const ends = ["Paris", "Tokyo", "Oslo"].map((city) => at(`[tool ✔] get_weather(${city})`));
    expect(Math.max(...starts)).toBeLessThan(Math.min(...ends));
    for (const city of ["Paris", "Tokyo", "Oslo"]) {
      expect(stdout).toMatch(new RegExp(`^\\[tool …\\] get_weather\\(${city}\\) 25% locating station$`, "m"));
      expect(stdout).toMatch(new RegExp(`^\\[tool …\\] get_weather\\(${city}\\) 75% reading forecast$`, "m"));
    }
    expect(at("[user · steering]")).toBeGreaterThan(Math.max(...ends));
    // Completion order, not source order: Oslo's station is the fastest.
    expect(ends[2]).toBeLessThan(ends[0]!);
    expect(ends[0]).toBeLessThan(ends[1]!);
    // The follow-up only ran once the agent would otherwise have stopped: after the arithmetic answer.
    expect(at("[user · follow-up]")).toBeGreaterThan(stdout.search(/^- \(2 \+ 3\) \^ 2 = 25$/m));
    expect(stdout).not.toMatch(ANSI);
  });

  it("--events prints every event type in protocol order", async ({ expect }) => {
    const { code, stdout } = await run("demo/main.ts", ["--events"]);
    expect(code).toBe(0);
    const events = stdout.split("\n").flatMap((l) => l.match(/^ {2}· (\w+)/)?.[1] ?? []);
    expect(events[0]).toBe("agent_start");
    expect(events[1]).toBe("turn_start");
    expect(events.at(-1)).toBe("agent_end");
    expect(events.filter((e) => e === "turn_start")).toHaveLength(5);
    expect(events.filter((e) => e === "turn_end")).toHaveLength(5);
    expect(events.filter((e) => e === "tool_execution_start")).toHaveLength(7);
    expect(events.filter((e) => e === "tool_execution_end")).toHaveLength(7);
    // Streaming happened: message_update lines, each between a message_start and its message_end.
    const updates = stdout.split("\n").flatMap((l) => l.match(/^ {2}· message_update ×(\d+)$/)?.[1] ?? []).map(Number);
    expect(updates.length).toBe(5);
    expect(Math.min(...updates)).toBeGreaterThan(3);
    // Each turn_start is followed by a turn_end before the next turn_start.
    let open = 0;
    for (const event of events) {
      if (event === "turn_start") expect(open++).toBe(0);
      if (event === "turn_end") expect(--open).toBe(0);
    }
    expect(stdout.indexOf("  · agent_end")).toBeLessThan(stdout.indexOf("[summary]"));
  });

  it("on a terminal draws colours, streamed text and live progress bars (through a pseudo-TTY)", async ({ expect }) => {
    const child = spawn("script", ["-qec", `${process.execPath} --import tsx demo/main.ts`, "/dev/null"], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: undefined, TERM: "xterm-256color" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code).toBe(0);
    expect(stdout).toMatch(/\x1b\[3\dm/); // colours
    expect(stdout).toMatch(/\x1b\[\d+A\x1b\[0J/); // live rows redrawn in place
    expect(stdout).toMatch(/get_weather\(Tokyo\) +\S*█+/); // a progress bar with progress
    expect(stdout).toContain("[summary]");
  });

  it("on a terminal, --no-color keeps the live rows but drops the colours", async ({ expect }) => {
    const nocolor = await new Promise<string>((resolve) => {
      const plain = spawn("script", ["-qec", `${process.execPath} --import tsx demo/main.ts --no-color`, "/dev/null"], { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
      let out = "";
      plain.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
      plain.on("exit", () => resolve(out));
    });
    expect(nocolor).not.toMatch(/\x1b\[3\dm/);
    expect(nocolor).toMatch(/\x1b\[\d+A\x1b\[0J/); // still live rows
    expect(nocolor).toMatch(/get_weather\(Tokyo\) +█+/); // still a progress bar
    expect(nocolor).toContain("[summary]");
  });
});
