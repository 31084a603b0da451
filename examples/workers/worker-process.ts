/**
 * A worker as a child process, as `main.ts` (and the test) run them: started, killed, started
 * again under the same name, its log collected across every incarnation.
 *
 * @module
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseWorkerLog, type WorkerLogLine } from "./worker-log.js";

/** How to start a worker: a program and its arguments. */
export interface WorkerCommand {
  command: string;
  args: string[];
}

/** `worker.ts` run by tsx, as `npx tsx examples/workers/worker.ts` would. */
export function tsxWorker(): WorkerCommand {
  return { command: process.execPath, args: ["--import", import.meta.resolve("tsx"), fileURLToPath(new URL("./worker.ts", import.meta.url))] };
}

/**
 * One worker slot. `start()` runs a new incarnation; `log` holds the lines of all of them.
 *
 * @example
 * ```ts
 * const worker = new WorkerProcess("worker-1", tsxWorker(), { DATABASE_URL: url });
 * worker.start();
 * await worker.ready();
 * worker.signal("SIGKILL");
 * ```
 */
export class WorkerProcess {
  /** Every log line of every incarnation, in the order each wrote them. */
  readonly log: WorkerLogLine[] = [];
  /** Incarnations started so far. */
  starts = 0;
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private stderrTail = "";

  constructor(
    readonly name: string,
    private readonly command: WorkerCommand,
    private readonly env: Record<string, string>,
  ) {}

  /** Whether the current incarnation is alive. */
  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The process id of the current (or last) incarnation. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The last few kilobytes the worker wrote to stderr, for a report when something fails. */
  get stderr(): string {
    return this.stderrTail;
  }

  /** Starts a new incarnation (the previous one must have exited). */
  start(): void {
    if (this.running) throw new Error(`${this.name} is running already.`);
    this.starts++;
    const child = spawn(this.command.command, this.command.args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...this.env, WORKER_NAME: this.name } });
    this.child = child;
    let partial = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      const text = partial + chunk.toString();
      const end = text.lastIndexOf("\n") + 1;
      partial = text.slice(end);
      this.log.push(...parseWorkerLog(text.slice(0, end)));
    });
    child.stderr!.on("data", (chunk: Buffer) => (this.stderrTail = (this.stderrTail + chunk.toString()).slice(-8_000)));
    this.exited = new Promise((resolve) => child.once("close", () => resolve()));
  }

  /** Resolves when the current incarnation logged `ready` (it is taking jobs). */
  async ready(timeoutMs = 60_000): Promise<void> {
    const child = this.child;
    const deadline = Date.now() + timeoutMs;
    while (!this.log.some((line) => line.ev === "ready" && line.pid === child?.pid)) {
      if (!this.running) throw new Error(`${this.name} exited before it was ready:\n${this.stderrTail}`);
      if (Date.now() > deadline) throw new Error(`${this.name} was not ready after ${timeoutMs} ms:\n${this.stderrTail}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Sends `signal` to the current incarnation; false when it is not running. */
  signal(signal: NodeJS.Signals): boolean {
    return this.running ? this.child!.kill(signal) : false;
  }

  /** Resolves when the current incarnation has exited and its output is read. */
  whenExited(): Promise<void> {
    return this.exited;
  }

  /** SIGTERM (a graceful stop), then SIGKILL if it lingers. */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.running) return this.exited;
    this.child!.kill("SIGCONT"); // a stopped process cannot handle SIGTERM
    this.child!.kill("SIGTERM");
    const timer = setTimeout(() => this.signal("SIGKILL"), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}
