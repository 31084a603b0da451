/**
 * A program on a real pseudo-terminal, with nothing installed by hand: util-linux `script`
 * (essential on Debian, like `sh` and `stty`) gives it the PTY, and `@xterm/headless` (a dev
 * dependency) renders what it writes, cursor moves and erasures applied, as a terminal shows it.
 *
 * Keystrokes are written to script's stdin, which it copies to the PTY master byte for byte: a
 * program in raw mode (readline on a TTY) gets typed characters as they are, `\r` as Enter and
 * `\x03` as Ctrl-C. The terminal's answers to queries (cursor position, device attributes) go
 * back the same way, as a terminal's would.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import xterm from "@xterm/headless";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Single quotes for sh. */
const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

export interface PtyOptions {
  /** The program and its arguments, run with `exec` (so its pid is the one script waits for). */
  command: string[];
  cwd: string;
  env?: NodeJS.ProcessEnv;
  columns: number;
  rows: number;
}

export class PtyTerminal {
  private readonly dir = mkdtempSync(join(tmpdir(), "rxagent-pty-"));
  /** The program's pid, written by the shell before it execs the program. */
  private readonly pidFile = join(this.dir, "pid");
  private readonly term: InstanceType<typeof xterm.Terminal>;
  private readonly script: ChildProcess;
  /** Resolves once everything script wrote so far has been parsed (chained per chunk, in order). */
  private parsed: Promise<void> = Promise.resolve();
  private stderr = "";
  /** The exit code (or signal) of script, which is the program's (`-e`). */
  readonly exited: Promise<number | string>;

  constructor(options: PtyOptions) {
    this.term = new xterm.Terminal({ cols: options.columns, rows: options.rows, allowProposedApi: true, scrollback: 1000 });
    // The PTY script opens has no size (its stdin is no terminal to copy one from): stty sets it before the program starts.
    const shell = `echo $$ > ${quote(this.pidFile)}; stty cols ${options.columns} rows ${options.rows}; exec ${options.command.map(quote).join(" ")}`;
    this.script = spawn("script", ["-qfec", shell, "/dev/null"], {
      cwd: options.cwd,
      // A group of its own, to kill on cleanup; script runs the command with $SHELL -c.
      detached: true,
      env: { ...(options.env ?? process.env), SHELL: "/bin/sh", TERM: "xterm-256color" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.script.stdout!.on("data", (chunk: Buffer) => {
      const data = new Uint8Array(chunk);
      this.parsed = this.parsed.then(() => new Promise<void>((resolve) => this.term.write(data, resolve)));
    });
    this.script.stderr!.setEncoding("utf8").on("data", (chunk: string) => (this.stderr += chunk));
    this.script.stdin!.on("error", () => undefined);
    this.term.onData((answer) => this.send(answer));
    this.exited = new Promise((resolve) => this.script.on("exit", (code, signal) => resolve(code ?? signal ?? "unknown")));
  }

  /** Bytes to the PTY, as keystrokes. */
  send(keys: string): void {
    if (this.script.exitCode === null && this.script.stdin?.writable) this.script.stdin.write(keys);
  }

  /** Typed text, as is (no key names). */
  type(text: string): void {
    this.send(text);
  }

  enter(): void {
    this.send("\r");
  }

  ctrlC(): void {
    this.send("\x03");
  }

  /** The scrollback and the screen, wrapped rows joined, trailing blanks dropped (what `tmux capture-pane -pJ -S -` gives). */
  async screen(): Promise<string> {
    await this.parsed;
    const buffer = this.term.buffer.active;
    const rows: string[] = [];
    for (let i = 0; i < buffer.length; i++) {
      const line = buffer.getLine(i);
      if (!line) continue;
      const text = line.translateToString(false);
      if (line.isWrapped && rows.length > 0) rows[rows.length - 1] += text;
      else rows.push(text);
    }
    return rows
      .map((row) => row.trimEnd())
      .join("\n")
      .trimEnd();
  }

  async lines(): Promise<string[]> {
    return (await this.screen()).split("\n");
  }

  /** Polls the rendered screen until `pattern` matches it; the screen it matched. */
  async waitFor(pattern: RegExp, timeoutMs = 20_000): Promise<string> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const screen = await this.screen();
      if (pattern.test(screen)) return screen;
      if (Date.now() > until) throw new Error(`Timed out waiting for ${pattern} on the screen:\n${screen}${this.stderr ? `\n--- script's stderr ---\n${this.stderr}` : ""}`);
      await sleep(40);
    }
  }

  /** Ends the program (its own session, made by script) and script (its own group); waits for script to exit. */
  async kill(): Promise<void> {
    if (this.script.exitCode === null && this.script.signalCode === null) {
      let pid: number | undefined;
      try {
        pid = Number(readFileSync(this.pidFile, "utf8").trim()) || undefined;
      } catch {
        // Not started yet.
      }
      for (const group of [pid, this.script.pid]) {
        if (group === undefined) continue;
        try {
          process.kill(-group, "SIGKILL");
        } catch {
          // Already gone.
        }
      }
      await this.exited;
    }
    this.term.dispose();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
