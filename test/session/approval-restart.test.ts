/**
 * An approval left pending across a process restart (SPEC R1, S5): a child process on the file
 * store asks for two approvals and is killed with SIGKILL while they wait; a fresh process lists
 * them, answers one — which resumes the run — and the other when it asks again. The run
 * completes, and the effects file shows each tool ran exactly once: the call that finished
 * before the kill is not run again, nothing approved runs twice, a denied call never runs.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSync } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = mkdtempSync(join(tmpdir(), "rxagent-approvals-"));
const child = join(process.cwd(), "node_modules/.cache/rxagent-tests/approval-child.mjs");
afterAll(() => rmSync(root, { recursive: true, force: true }));
beforeAll(() => {
  mkdirSync(join(process.cwd(), "node_modules/.cache/rxagent-tests"), { recursive: true });
  buildSync({ entryPoints: [join(process.cwd(), "test/session/fixtures/approval-child.ts")], bundle: true, platform: "node", format: "esm", outfile: child, packages: "external", logLevel: "error" });
});

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the child; SIGKILLs it as soon as its stdout holds every line of `killOn`. */
function runChild(args: string[], killOn?: string[]): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [child, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    proc.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (killOn !== undefined && killOn.every((line) => stdout.split("\n").includes(line))) proc.kill("SIGKILL");
    });
    proc.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    proc.on("error", reject);
    proc.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** Killed once both calls wait and ls has ended (its outcome on disk). */
const WAITING = ["waiting r1", "waiting r2", "ended l1"];

function effectsOf(file: string): string[] {
  try {
    return readFileSync(file, "utf8").split("\n").filter(Boolean);
  } catch {
    return [];
  }
}

describe("R1 S5: an approval that waits survives a SIGKILL", () => {
  it("R1 S5: answered in a new process, the run completes and nothing runs twice", async () => {
    const dir = join(root, "approve");
    const effects = join(root, "approve.effects");
    const asked = await runChild(["--dir", dir, "--effects", effects, "--mode", "ask"], WAITING);
    expect(asked.signal).toBe("SIGKILL");
    expect(asked.stdout.split("\n").filter(Boolean).sort()).toEqual(["ended l1", "waiting r1", "waiting r2"]);
    expect(effectsOf(effects)).toEqual(["ls l1"]);

    const answered = await runChild(["--dir", dir, "--effects", effects, "--mode", "answer", "--approve", "r1"]);
    expect(answered.stderr).toBe("");
    expect(answered.code).toBe(0);
    const lines = answered.stdout.split("\n");
    expect(JSON.parse(lines[0]!.replace(/^pending /, ""))).toEqual([
      { toolCallId: "r1", toolName: "rm", args: { path: "b" } },
      { toolCallId: "r2", toolName: "rm", args: { path: "c" } },
    ]);
    expect(lines[1]).toBe("roles system user assistant toolResult toolResult toolResult assistant");
    expect(lines[2]).toBe('results l1="a b c" r1="removed b" r2="removed c"');
    expect(lines[3]).toBe("error ");
    expect(effectsOf(effects)).toEqual(["ls l1", "rm r1 b", "rm r2 c"]);
  });

  it("R1 S5: a denial in the new process: that call never runs, the model reads why", async () => {
    const dir = join(root, "deny");
    const effects = join(root, "deny.effects");
    const asked = await runChild(["--dir", dir, "--effects", effects, "--mode", "ask"], WAITING);
    expect(asked.signal).toBe("SIGKILL");
    const answered = await runChild(["--dir", dir, "--effects", effects, "--mode", "answer", "--deny", "r1"]);
    expect(answered.stderr).toBe("");
    expect(answered.stdout).toContain('results l1="a b c" r1="Tool call \\"rm\\" was denied: Keep it." r2="removed c"');
    expect(effectsOf(effects)).toEqual(["ls l1", "rm r2 c"]);
  });
});
