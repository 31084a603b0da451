/**
 * Runs the demo and the examples as a user would: a child process with piped stdio.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** A running child: its output so far, and a way to wait for a line. */
export interface Child {
  process: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves when stdout (after `from` characters) matches; rejects after `timeoutMs` with the output so far. */
  waitFor(pattern: RegExp, options?: { from?: number; timeoutMs?: number }): Promise<RegExpMatchArray>;
  /** Resolves with the exit code (or the signal's name). */
  exited: Promise<number | string>;
  send(line: string): void;
}

/** Starts `node --import tsx FILE ARGS` in the repository root (what `npx tsx FILE` does, without the wrapper process). */
export function start(file: string, args: string[] = [], env: Record<string, string | undefined> = {}): Child {
  const child = spawn(process.execPath, ["--import", "tsx", file, ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined, OPENAI_BASE_URL: undefined, OPENAI_API_KEY: undefined, OPENAI_MODEL: undefined, ...env } as NodeJS.ProcessEnv,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  const waiters = new Set<() => void>();
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
    for (const waiter of waiters) waiter();
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  const exited = new Promise<number | string>((resolve) => child.on("exit", (code, signal) => resolve(code ?? signal ?? "unknown")));
  return {
    process: child,
    stdout: () => out,
    stderr: () => err,
    exited,
    send: (line) => child.stdin.write(`${line}\n`),
    waitFor: (pattern, options = {}) =>
      new Promise((resolve, reject) => {
        const from = options.from ?? 0;
        const check = (): boolean => {
          const match = out.slice(from).match(pattern);
          if (match) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(match);
            return true;
          }
          return false;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`Timed out waiting for ${pattern}.\n--- stdout ---\n${out}\n--- stderr ---\n${err}`));
        }, options.timeoutMs ?? 20_000);
        if (!check()) waiters.add(check);
        void exited.then(() => {
          if (waiters.has(check) && !check()) {
            waiters.delete(check);
            clearTimeout(timer);
            reject(new Error(`The process exited before ${pattern} appeared.\n--- stdout ---\n${out}\n--- stderr ---\n${err}`));
          }
        });
      }),
  };
}

/** Runs a file to the end. */
export async function run(file: string, args: string[] = [], env: Record<string, string | undefined> = {}): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const child = start(file, args, env);
  child.process.stdin.end();
  const code = await child.exited;
  return { code, stdout: child.stdout(), stderr: child.stderr() };
}

/** The lines of `output` that start with one of `tags`, reduced to their tag. */
export function tags(output: string, pattern = /^\[[^\]]+\]/): string[] {
  return output.split("\n").flatMap((line) => line.match(pattern)?.[0] ?? []);
}

/** Asserts `needles` appear in `haystack` in this order; returns their indexes. */
export function indexesInOrder(haystack: string, needles: (string | RegExp)[]): number[] {
  const found: number[] = [];
  let from = 0;
  for (const needle of needles) {
    const rest = haystack.slice(from);
    const index = typeof needle === "string" ? rest.indexOf(needle) : (rest.match(needle)?.index ?? -1);
    if (index < 0) throw new Error(`Expected ${String(needle)} after position ${from} in:\n${haystack}`);
    found.push(from + index);
    from = from + index + 1;
  }
  return found;
}
