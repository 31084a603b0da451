/**
 * The worker's log: one JSON object per line on stdout, written synchronously so that a line
 * is in the pipe before the step it announces begins (a SIGKILL a moment later loses nothing
 * that was logged). `main.ts` and the test read it back with {@link parseWorkerLog}.
 *
 * @module
 */
import { writeSync } from "node:fs";
import type { AuditEvent } from "./audited-store.js";

/** What a worker reports besides the store's audit. */
export type JobEvent =
  | { ev: "ready"; concurrency: number }
  | { ev: "job-start"; s: string; job: string; retry: number }
  /** `had`: prompts the journal had already; `sent`: prompts this run sent. */
  | { ev: "job-done"; s: string; job: string; had: number; sent: number }
  | { ev: "job-failed"; s: string; job: string; error: string }
  /** Another worker holds the session: wait `ms` for its lease to end. */
  | { ev: "lease-wait"; s: string; holder: string; ms: number };

/** A line of the log: who (`w`, `pid`), when (`t`, epoch ms), and what. */
export type WorkerLogLine = { w: string; pid: number; t: number } & (AuditEvent | JobEvent);

/**
 * A logger for worker `name`.
 *
 * @example
 * ```ts
 * const log = workerLog("worker-1");
 * log({ ev: "ready", concurrency: 2 });
 * ```
 */
export function workerLog(name: string): (event: AuditEvent | JobEvent) => void {
  return (event) => writeLine(`${JSON.stringify({ w: name, pid: process.pid, t: Date.now(), ...event })}\n`);
}

const pause = new Int32Array(new SharedArrayBuffer(4));

function writeLine(line: string): void {
  const bytes = Buffer.from(line);
  for (let offset = 0; offset < bytes.length; ) {
    try {
      offset += writeSync(1, bytes, offset);
    } catch (error) {
      // stdout is a non-blocking pipe: when the reader is behind, try again rather than drop the line.
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
}

/** The lines of a worker's stdout that are log lines (others, and a last line cut short, are skipped). */
export function parseWorkerLog(text: string): WorkerLogLine[] {
  return text.split("\n").flatMap((line) => {
    if (!line.startsWith("{")) return [];
    try {
      return [JSON.parse(line) as WorkerLogLine];
    } catch {
      return [];
    }
  });
}
