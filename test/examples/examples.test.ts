/**
 * Every example runs with one command (`npx tsx examples/NAME.ts`), exits 0, and prints what
 * it promises. If a feature an example shows breaks, its assertions here fail.
 */
import { readdirSync } from "node:fs";
import { describe, expect as globalExpect, it, type ExpectStatic } from "vitest";
import { indexesInOrder, ROOT, run } from "./support.js";

const STACK_LINE = /^\s+at .+:\d+:\d+\)?$/m;

async function example(expect: ExpectStatic, name: string, env: Record<string, string> = {}): Promise<string> {
  const { code, stdout, stderr } = await run(`examples/${name}.ts`, [], env);
  expect(stderr, `stderr of ${name}`).toBe("");
  expect(code, `exit code of ${name}\n${stdout}`).toBe(0);
  expect(stdout).not.toMatch(STACK_LINE);
  return stdout;
}

// Each example runs in its own process: they run side by side.
describe.concurrent("examples/", () => {
  it("every example file is covered by this suite", () => {
    const expect = globalExpect;
    const files = readdirSync(`${ROOT}/examples`).filter((file) => file.endsWith(".ts")).sort();
    expect(files).toEqual([
      "after-tool-call.ts",
      "agent-loop-pipeline.ts",
      "ai-sdk-provider.ts",
      "approvals.ts",
      "basic-prompt.ts",
      "custom-messages.ts",
      "mcp-tools.ts",
      "otel-tracing.ts",
      "parallel-tools.ts",
      "permissions.ts",
      "session-file.ts",
      "session-memory.ts",
      "session-postgres.ts",
      "steering-and-follow-up.ts",
      "testing-your-agent.ts",
      "transform-context.ts",
    ]);
  });

  // mcp-tools, otel-tracing and ai-sdk-provider are run by test/mcp, test/otel and test/providers/ai-sdk.

  it("approvals: R1 R2 R3 R5: calls wait for a reviewer while another runs; a denial is what the model reads", async ({ expect }) => {
    const out = await example(expect, "approvals");
    indexesInOrder(out, [
      'waiting  delete_file({"path":"old.log"})   pending: d1',
      'waiting  delete_file({"path":"notes.md"})   pending: d1, d2',
      "ended    list_files l1",
      "answered d1: approved",
      "ended    delete_file d1",
      "answered d2: denied (Keep my notes.)",
      "ended    delete_file d2 (error result)",
      "used     385 tokens in 2 requests",
    ]);
    expect(out).toContain('d2: Tool call "delete_file" was denied: Keep my notes.');
    expect(out).toContain("files left: notes.md, todo.txt");
  });

  it("basic-prompt: streams the answer after a tool call", async ({ expect }) => {
    const out = await example(expect, "basic-prompt");
    indexesInOrder(out, ["I'll work out (17 + 4) * 23.", "(tool calculate → ", "(17 + 4) * 23 = 483", "transcript: system → user → assistant → toolResult → assistant"]);
  });

  it("parallel-tools: progress interleaves, ends in completion order, results in source order", async ({ expect }) => {
    const out = await example(expect, "parallel-tools");
    const lines = out.split("\n");
    expect(lines.slice(0, 3)).toEqual(["start    big.iso", "start    small.txt", "start    medium.zip"]);
    const ends = lines.filter((line) => line.startsWith("end")).map((line) => line.split(/\s+/)[1]);
    expect(ends).toEqual(["small.txt", "medium.zip", "big.iso"]);
    expect(lines.filter((line) => line.startsWith("progress big.iso"))).toHaveLength(5);
    // big.iso's progress continues after the other two started reporting: they ran at the same time.
    expect(out.indexOf("progress big.iso    [####")).toBeGreaterThan(out.indexOf("progress medium.zip"));
    expect(out).toContain("results in the order the model asked: big.iso, small.txt, medium.zip");
    expect(out).toMatch(/^parallel: true \(the run took \d+ ms; the downloads took \d+ ms in total\)$/m);
    expect(out).toContain('answer: [{"type":"text","text":"All three files are downloaded."}]');
  });

  it("session-memory: another Agent gets the session back, queue included; a fork answers again", async ({ expect }) => {
    const out = await example(expect, "session-memory");
    indexesInOrder(out, [
      "first agent:",
      "assistant  A rill is a small stream.",
      "second agent: 5 messages back, queued: And a brook?",
      "after continue():",
      "user       And a brook?",
      "assistant  A brook is a small stream too.",
      "fork:",
      "user       What is a rill?",
      "assistant  Rill: a very small brook.",
      "sessions: glossary (",
    ]);
    expect(out).toMatch(/sessions: glossary \(\d+ entries\), glossary-retry \(\d+ entries\)/);
  });

  it("session-file: a worker killed with SIGKILL mid-batch; the resume reruns the safe tool, answers the other as interrupted, finishes", async ({ expect }) => {
    const out = await example(expect, "session-file");
    expect(out).toMatch(/^killed the worker with SIGKILL; the journal has \d+ entries, the last: tool_executing$/m);
    indexesInOrder(out, [
      "assistant  [lookup][charge]",
      "toolResult price: 1200 cents",
      "toolResult interrupted: the process stopped while this tool ran; it may or may not have taken effect",
      "assistant  Done:",
    ]);
  });

  it("session-postgres: two pools share a session; the second takes it over and delivers the queue; the first is fenced", async ({ expect }) => {
    const out = await example(expect, "session-postgres");
    expect(out).toMatch(/^journal rows: 1:created 2:transcript 3:run_started .* \d+:run_ended \d+:queued$/m);
    indexesInOrder(out, [
      "machine B resumed 5 messages; queued: And tomorrow?",
      "assistant  Oslo: 14 °C and light rain.",
      "user       And tomorrow?",
      "assistant  Tomorrow: 11 °C, sunny spells.",
      'machine A: The session journal could not be written: Session "weather-1": this writer\'s lease (fencing token 1) was taken over by token 2.',
      "sessions: weather-1 (",
    ]);
    // The loaded transcript declares the same tools: no extra system message before the follow-up.
    expect(out).not.toMatch(/^ {2}system {5}$/m);
  });

  it("workers/main: worker processes under pg-boss finish every session though one is killed mid-run", async ({ expect }) => {
    const { code, stdout, stderr } = await run("examples/workers/main.ts", ["--workers", "2", "--sessions", "6", "--prompts", "2", "--kills", "1"]);
    expect(code, `${stdout}\n${stderr}`).toBe(0);
    expect(stdout).toMatch(/^journals: 6 checked, 0 problems$/m);
    expect(stdout).toMatch(/^charges: \d+, none twice$/m);
    expect(stdout).toMatch(/^jobs: \{"completed":6\} after /m);
  });

  it("steering-and-follow-up: steering opens turn 2 after the batch; follow-up opens the last turn", async ({ expect }) => {
    const out = await example(expect, "steering-and-follow-up");
    indexesInOrder(out, [
      "── turn 1",
      "user:      What's the weather in Paris and Oslo?",
      "tool:      get_weather",
      "(steer queued while tools run; queued now: 1 message)",
      "tool:      get_weather",
      "── turn 2",
      "user:      Also: what is 12 * 12?",
      "tool:      calculate",
      "── turn 3",
      "assistant: 12 * 12 = 144",
      "── turn 4",
      "user:      Finally, what time is it in Tokyo?",
      'tool:      get_time({"city":"Tokyo"})',
      "── turn 5",
      "done after 5 turns; queues empty: true",
    ]);
  });

  it("permissions: allow runs, ask asks (approved), deny blocks without running", async ({ expect }) => {
    const out = await example(expect, "permissions");
    expect(out).toContain('? Allow read_file {"path":"package.json","maxLines":3}? yes');
    expect(out).toMatch(/^ran {5}get_time/m);
    expect(out).toMatch(/^ran {5}read_file {4}package\.json \(\d+ lines\):/m);
    expect(out).toMatch(/^blocked delete_file  delete_file is not allowed in this session\.$/m);
    expect(out).not.toContain("the policy should have denied it");
    expect(out).toContain("the model received 3 results, 1 of them errors");
  });

  it("permissions: a declined ask blocks the call and tells the model", async ({ expect }) => {
    const out = await example(expect, "permissions", { APPROVE: "no" });
    expect(out).toMatch(/^blocked read_file {4}The user declined read_file\.$/m);
    expect(out).toContain("the model received 3 results, 2 of them errors");
  });

  it("after-tool-call: secrets redacted, long output cut, failure flagged — in what the model received", async ({ expect }) => {
    const out = await example(expect, "after-tool-call");
    expect(out).toContain("OPENAI_API_KEY=[redacted]");
    expect(out).toContain("db_password=[redacted]");
    expect(out).not.toContain("sk-live-8f2c1a9b7d");
    expect(out).not.toContain("hunter2");
    expect(out).toMatch(/afterToolCall rewrote search_logs: \d+ → \d+ chars/);
    expect(out).toMatch(/^search_logs, \d{3} chars:$/m);
    expect(out).toMatch(/^ping \(error\), 27 chars:$/m);
  });

  it("custom-messages: the transcript keeps app messages; the model gets them converted", async ({ expect }) => {
    const out = await example(expect, "custom-messages");
    const [transcript, sent] = out.split("sent to the model on the last request:");
    expect(transcript!.trim().split("\n").slice(1).map((line) => line.trim())).toEqual(["system", "bookmark", "notice", "user", "assistant", "notice", "assistant"]);
    expect(sent!.trim().split("\n").map((line) => line.trim())).toEqual([
      "system: You are an ops assistant.",
      "user: [warning from the app] Production is read-only until 18:00.",
      "user: Switch to the staging database.",
      "assistant: Understood: I'll use the staging database from now on.",
      "user: [info from the app] Staging was refreshed a minute ago.",
    ]);
  });

  it("transform-context: answers stay right while each request is capped", async ({ expect }) => {
    const out = await example(expect, "transform-context");
    for (const line of ["1 + 1 = 2", "2 * 3 = 6", "10 / 4 = 2.5", "2 ^ 10 = 1024", "(5 + 5) * 5 = 50"]) expect(out).toContain(line);
    expect(out).toContain("transcript: 21 messages");
    const sizes = out.match(/messages per request: ([\d, ]+)/)![1]!.split(", ").map(Number);
    expect(sizes).toHaveLength(10);
    expect(Math.max(...sizes)).toBe(8);
    expect(sizes.slice(4)).toEqual([6, 8, 6, 8, 6, 8]);
  });

  it("agent-loop-pipeline: scan counts tools; takeUntil cancels the run and its running tools", async ({ expect }) => {
    const out = await example(expect, "agent-loop-pipeline");
    indexesInOrder(out, ["[1 tool finished]", "[2 tools finished]", "[3 tools finished]", "- Oslo: 6°C"]);
    expect(out).toMatch(/second run: \d+ events, last tool_execution_update; no agent_end: true/);
    expect(out).toContain("cancelled by unsubscribing: Paris, Tokyo");
  });

  it("testing-your-agent: its scripted and marble tests pass", async ({ expect }) => {
    const out = await example(expect, "testing-your-agent");
    expect(out.trim().split("\n")).toEqual([
      "✓ the tool result is sent back to the model, and the answer ends the run",
      "✓ an unknown city becomes an error result the model can read (the run does not crash)",
      "✓ marble: two calls run in parallel, each reports progress as it happens, the run ends after both",
    ]);
  });
});
