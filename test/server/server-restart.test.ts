/**
 * A session server killed and started again (SPEC SRV3, SRV5, S5, S6): a follower in this
 * process prompts a server in a child process on the file store; the child is killed with
 * SIGKILL while the tool batch runs and started again on the same port and store. The follower
 * reconnects by itself and ends with the restarted server's journal transcript: the
 * `replay: "safe"` call ran again, the `replay: "never"` call answered as interrupted, each
 * message once. Then the same at every event of a richer run, in one process (a store that
 * "crashes" and servers whose sockets are destroyed), for speed.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSync } from "esbuild";
import { filter, firstValueFrom } from "rxjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentEvent, AgentMessage, ToolResultMessage } from "../../src/index.js";
import type { AgentViewState } from "../../src/agent/agent-like.js";
import { INTERRUPTED_TOOL_TEXT } from "../../src/session/resume-plan.js";
import { replayJournal } from "../../src/session/session-image.js";
import { FileSessionStore } from "../../src/session/stores/file-store.js";
import { textOf } from "../helpers/fixtures.js";
import { checkTranscript } from "../session/transcript-invariants.js";
import { comparable, crashCase, type Hosting } from "./fixtures/crash-sweep.js";
import { approvingFollower, freePort } from "./fixtures/followers.js";
import { FINAL_ANSWER } from "./fixtures/restart-script.js";
import { normalized } from "./live-session-server.js";

const root = mkdtempSync(join(tmpdir(), "rxagent-server-restart-"));
const child = join(process.cwd(), "node_modules/.cache/rxagent-tests/session-server-process.mjs");
const children: ChildProcessWithoutNullStreams[] = [];

beforeAll(() => {
  // Bundled once, as the session crash tests bundle theirs: a child then starts in a fraction of the time tsx takes.
  mkdirSync(join(process.cwd(), "node_modules/.cache/rxagent-tests"), { recursive: true });
  buildSync({ entryPoints: [join(process.cwd(), "test/server/fixtures/session-server-process.ts")], bundle: true, platform: "node", format: "esm", outfile: child, packages: "external", logLevel: "error" });
});
afterAll(() => {
  for (const proc of children) if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

/** Starts the server process; resolves once it listens, with how to SIGKILL it (resolving when it is gone). */
function startServer(port: number, dir: string, effects: string, toolMs: number): Promise<{ kill(): Promise<NodeJS.Signals | null>; stderr(): string }> {
  const proc = spawn(process.execPath, [child, "--port", String(port), "--dir", dir, "--effects", effects, "--tool-ms", String(toolMs)], { stdio: ["pipe", "pipe", "pipe"] });
  children.push(proc);
  let stdout = "";
  let stderr = "";
  proc.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const gone = new Promise<NodeJS.Signals | null>((resolve) => proc.on("close", (_code, signal) => resolve(signal)));
  return new Promise((resolve, reject) => {
    proc.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.startsWith("ready ")) resolve({ kill: () => (proc.kill("SIGKILL"), gone), stderr: () => stderr });
    });
    void gone.then(() => reject(new Error(`the server process ended before it was ready: ${stderr}`)));
  });
}

const results = (messages: readonly AgentMessage[]): ToolResultMessage[] => messages.filter((m): m is ToolResultMessage => (m as { role?: string }).role === "toolResult");

describe("SRV3 SRV5 S5: a session server killed with SIGKILL mid-batch and started again", () => {
  const dir = join(root, "store");
  const effects = join(root, "effects");
  const seen: { final?: AgentViewState; told: AgentEvent[]; statuses: string[]; journal: readonly AgentMessage[]; url: string; stderr: string } = { told: [], statuses: [], journal: [], url: "", stderr: "" };

  beforeAll(async () => {
    const port = await freePort();
    seen.url = `http://127.0.0.1:${port}/sessions/restart-1`;
    // The first process's tools take a minute: the kill comes while both run.
    const first = await startServer(port, dir, effects, 60_000);
    const { agent, told, statuses } = approvingFollower(seen.url);
    try {
      await firstValueFrom(agent.connection$.pipe(filter((c) => c.status === "connected")));
      const ran = agent.prompt("go");
      // Each tool reports progress once it executes: its `tool_executing` is on record by then.
      const executing = new Set<string>();
      await firstValueFrom(agent.events$.pipe(filter((e) => e.type === "tool_execution_update" && executing.add(e.toolCallId).size === 2)));
      expect(told.filter((e) => e.type === "tool_execution_start").map((e) => (e as { toolCallId: string }).toolCallId)).toEqual(["look-1", "charge-1"]);
      expect(await first.kill()).toBe("SIGKILL");
      await firstValueFrom(agent.connection$.pipe(filter((c) => c.status === "reconnecting")));
      const second = await startServer(port, dir, effects, 20);
      // The follower reconnects by itself; the restarted server resumes the session when hosted, and the prompt settles.
      await ran;
      seen.final = agent.state;
      seen.stderr = second.stderr();
      const loaded = await new FileSessionStore({ directory: dir }).load("restart-1");
      seen.journal = loaded ? replayJournal(loaded.entries).messages : [];
    } finally {
      agent.close();
    }
    seen.told = told;
    seen.statuses = statuses;
  }, 60_000);

  it("SRV5: the follower goes to reconnecting, reconnects by itself, and prompt() settles on the restarted server's state", () => {
    expect(seen.statuses[0]).toBe("reconnecting");
    const afterFirst = seen.statuses.slice(seen.statuses.indexOf("connected") + 1);
    expect(afterFirst[0]).toBe("reconnecting");
    expect(afterFirst).toContain("connected");
    expect(seen.final?.isStreaming).toBe(false);
    expect(seen.stderr).toBe("");
  });

  it("SRV3 S5: its final transcript is the journal's: each message once, the never-replay call interrupted, the safe one run again, the answer", () => {
    const messages = seen.final!.messages;
    expect(messages.map(normalized)).toEqual(seen.journal.map(normalized));
    expect(checkTranscript(messages)).toEqual([]);
    const [lookup, charge] = results(messages);
    expect(lookup).toMatchObject({ toolCallId: "look-1", isError: false });
    expect(textOf(lookup)).toBe("value of a");
    expect(charge).toMatchObject({ toolCallId: "charge-1", isError: true });
    expect(textOf(charge)).toContain(INTERRUPTED_TOOL_TEXT);
    expect(textOf(messages.at(-1))).toBe(FINAL_ANSWER);
    expect(seen.final!.outcome).toBe("completed");
    // The safe call ran in both processes, the other in the first only.
    const runs = readFileSync(effects, "utf8").trim().split("\n").map((line) => line.split(" "));
    expect(runs.filter(([tool]) => tool === "lookup").map(([, , pid]) => pid)).toHaveLength(2);
    expect(new Set(runs.filter(([tool]) => tool === "lookup").map(([, , pid]) => pid)).size).toBe(2);
    expect(runs.filter(([tool]) => tool === "charge")).toHaveLength(1);
    // Nothing the follower was told before the kill is told again after it.
    const ended = seen.told.filter((e) => e.type === "message_end").map((e) => normalized((e as { message: AgentMessage }).message));
    expect(new Set(ended).size).toBe(ended.length);
  });

  it("SRV3: a follower that connects only after the restart sees the same final state", async () => {
    const { agent } = approvingFollower(seen.url);
    try {
      const state = await firstValueFrom(agent.state$.pipe(filter((s) => s.messages.length > 1)));
      expect(comparable(state)).toEqual(comparable(seen.final!));
    } finally {
      agent.close();
    }
  });
});

/** The violations of one case of the sweep. */
async function sweepCase(at: number, hosting: Hosting, approval: boolean): Promise<string[]> {
  const where = `crash after event ${at} (${hosting})`;
  const v: string[] = [];
  const outcome = await crashCase(at, hosting, approval);
  const final = outcome.follower.messages;
  const messages = final.map(normalized);
  v.push(...checkTranscript(final).map((s) => `${where}: ${s}`));
  if (JSON.stringify(comparable(outcome.follower)) !== JSON.stringify(comparable(outcome.resumed))) v.push(`${where}: the follower's state is not the new server's`);
  if (JSON.stringify(comparable(outcome.late)) !== JSON.stringify(comparable(outcome.resumed))) v.push(`${where}: a follower that came later reads another state`);
  if (JSON.stringify(messages.slice(0, outcome.beforeCut.length)) !== JSON.stringify(outcome.beforeCut)) v.push(`${where}: a message committed before the cut was lost or changed`);
  const ended = outcome.told.filter((e) => e.type === "message_end").map((e) => normalized((e as { message: AgentMessage }).message));
  if (new Set(ended).size !== ended.length) v.push(`${where}: a message_end was told twice`);
  // SRV5: prompt() settles when the run has: nothing streams and no call waits for an answer.
  const { atPrompt } = outcome;
  if (outcome.prompt === "resolved" && (atPrompt.isStreaming || atPrompt.pendingApprovals.length > 0)) v.push(`${where}: prompt() resolved while the run went on (streaming: ${atPrompt.isStreaming}, waiting: ${atPrompt.pendingApprovals.length})`);
  if (outcome.ran.filter((r) => r.startsWith("charge ")).length > 1) v.push(`${where}: the never-replay call ran twice`);
  // The prompt was committed before the crash: the run was finished, by one server or the other.
  // (A run the resume closes after its final answer has no outcome: the journal cannot tell how it ended.)
  if (final.some((m) => (m as { role?: string }).role === "user")) {
    if (textOf(final.at(-1)) !== FINAL_ANSWER || (outcome.follower.outcome ?? "completed") !== "completed") v.push(`${where}: the run did not finish (${outcome.follower.outcome})`);
  }
  return v;
}

describe("SRV3 SRV5 S5 S6: the server crashes after any event of a run and a new one resumes it", () => {
  it("SRV3 SRV6 S5: onHosted returns resume$() (the documented hosting), a resumed run served as it goes (parallel calls, an approval): at every event, the follower (and one that comes later) ends with the new server's state, nothing committed lost, nothing twice", async () => {
    const reference = await crashCase(Infinity, "serve-when-begun");
    expect(reference.follower.outcome).toBe("completed");
    expect(reference.events).toBeGreaterThan(40);
    const violations: string[] = [];
    for (let at = 1; at <= reference.events; at++) violations.push(...(await sweepCase(at, "serve-when-begun", true)));
    expect(violations).toEqual([]);
  });

  it("SRV3 SRV6 S5: onHosted's promise resume() awaited whole before serving (no approval after the batch: it would never be served): at every event, the same", async () => {
    const reference = await crashCase(Infinity, "await-resume", false);
    expect(textOf(reference.follower.messages.at(-1))).toBe(FINAL_ANSWER);
    const violations: string[] = [];
    for (let at = 1; at <= reference.events; at++) violations.push(...(await sweepCase(at, "await-resume", false)));
    expect(violations).toEqual([]);
  });
});
