/**
 * `npm start -- --chat`: a REPL around an Agent.
 *
 * - A line typed while the agent is idle starts a run (`agent.prompt`).
 * - A line typed while it works becomes a steering message (`agent.steer`): it is delivered
 *   after the current turn's tool calls finish.
 * - `/followup TEXT` queues a follow-up (`agent.followUp`): it runs when the agent would stop.
 * - Ctrl-C aborts the run (`agent.abort()`), not the program; Ctrl-C again, Ctrl-C while idle
 *   or `/exit` quits. At the end of input (a closed pipe, Ctrl-D) the current run finishes first,
 *   so `echo "weather in Oslo" | npm start -- --chat` prints the answer and exits.
 *
 * With `OPENAI_BASE_URL` (+ `OPENAI_API_KEY`, `OPENAI_MODEL`) it talks to that server; without,
 * to the embedded demo model.
 *
 * @module
 */
import { createInterface } from "node:readline";
import { Writable } from "node:stream";
import { Agent, type AssistantMessage, type UserMessage } from "../src/index.js";
import { chooseModel, configurationHint, demoTools, SYSTEM_PROMPT, terminalSettings } from "./setup.js";
import { TerminalView } from "./terminal.js";

const HELP = [
  "Type a message and press Enter.",
  "While the agent works: a line steers it (after the running tools), /followup TEXT queues a follow-up, Ctrl-C aborts the run.",
  "/exit (or Ctrl-C when idle) quits. /help shows this.",
].join("\n");

const PROMPT = "you> ";

/**
 * readline's output on a TTY, shut while a run owns the screen: readline echoes each keystroke
 * and the Enter's line break where the cursor happens to be, which is inside the view's live
 * block or streamed text. Meanwhile the view draws the typed line itself (`view.input`).
 */
class ReadlineOutput extends Writable {
  open = true;

  constructor(private readonly target: NodeJS.WriteStream) {
    super({ decodeStrings: false });
    target.on("resize", () => this.emit("resize"));
  }

  /** readline wraps its line by this. */
  get columns(): number {
    return this.target.columns;
  }

  override _write(chunk: string | Uint8Array, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.open) this.target.write(chunk);
    callback();
  }
}

function user(text: string): UserMessage {
  return { role: "user", content: text, timestamp: Date.now() };
}

/** Runs the chat until `/exit`, a second Ctrl-C, or the end of input. */
export function runChat(): Promise<void> {
  const settings = terminalSettings();
  const view = new TerminalView({ write: (text) => process.stdout.write(text), ...settings });
  const choice = chooseModel();
  const agent = new Agent({
    streamFn: choice.streamFn,
    initialState: { systemPrompt: SYSTEM_PROMPT, model: choice.model, tools: demoTools() },
  });
  agent.subscribe((event) => view.render(event));

  const output = settings.tty ? new ReadlineOutput(process.stdout) : undefined;
  const rl = createInterface({ input: process.stdin, output: output ?? process.stdout, terminal: settings.tty, prompt: PROMPT });
  let running: Promise<void> | undefined;
  let aborting = false;
  let closing = false;
  // Whether readline's prompt row is on screen (not yet ended by Enter).
  let prompted = false;
  if (settings.tty) {
    // readline has handled the key by now (its listener came first): show the line as it is.
    process.stdin.on("keypress", () => {
      if (running) view.refresh();
    });
    process.stdout.on("resize", () => view.resize(process.stdout.columns));
  }

  view.line(`rxagent chat · ${choice.label}`);
  view.line(HELP);
  const ready = (): void => {
    if (closing) return;
    if (!settings.tty) return view.note("ready", "waiting for a prompt");
    // Back to readline, with what was typed during the run. Its redraw first goes up as many
    // rows as its cursor is below the prompt's start; the view drew the line on one row.
    view.input(undefined);
    if (output) output.open = true;
    process.stdout.write("\n".repeat(rl.getCursorPos().rows));
    rl.prompt(true);
    prompted = true;
  };

  const start = (text: string): void => {
    aborting = false;
    if (output) {
      output.open = false;
      view.input(() => ({ prompt: PROMPT, line: rl.line, cursor: rl.cursor }));
    }
    running = agent
      .prompt(text)
      .then(() => {
        const last = agent.state.messages[agent.state.messages.length - 1] as AssistantMessage | undefined;
        if (last?.role === "assistant" && last.stopReason === "error" && choice.remote) {
          const hint = configurationHint(last.errorMessage ?? "");
          if (hint) view.note("hint", hint, "yellow");
        }
      })
      .catch((error: unknown) => view.note("error", error instanceof Error ? error.message : String(error), "red"))
      .finally(() => {
        running = undefined;
        ready();
      });
  };

  return new Promise<void>((resolve) => {
    const quit = async (): Promise<void> => {
      if (closing) return;
      closing = true;
      if (running) {
        agent.abort();
        await running;
      }
      view.close();
      // Quitting from the prompt (Ctrl-C, Ctrl-D): not on its row.
      if (prompted) process.stdout.write("\n");
      view.line("bye");
      rl.close();
      // readline leaves a piped stdin open; let go of it so the process can end.
      process.stdin.destroy();
      resolve();
    };

    const interrupt = (): void => {
      if (running && !aborting) {
        aborting = true;
        view.note("abort", "stopping the run (Ctrl-C again quits)", "yellow");
        agent.abort();
      } else {
        void quit();
      }
    };

    rl.on("line", (raw) => {
      prompted = false;
      const line = raw.trim();
      if (closing) return;
      // Idle, readline owns the screen: after an empty line or a command, show the prompt again.
      const reprompt = (): void => {
        if (running || !settings.tty) return;
        rl.prompt();
        prompted = true;
      };
      if (line === "") return reprompt();
      if (line === "/exit" || line === "/quit") return void quit();
      if (line === "/help") {
        view.line(HELP);
        return reprompt();
      }
      const followUp = /^\/follow-?up\s+(.+)$/i.exec(line);
      if (followUp) {
        if (!running) return start(followUp[1]!);
        const message = user(followUp[1]!);
        view.mark(message, "follow-up");
        agent.followUp(message);
        return view.note("follow-up", `queued: “${followUp[1]}”`, "yellow");
      }
      if (line.startsWith("/")) {
        view.note("error", `Unknown command ${line.split(/\s/)[0]}. ${HELP}`, "red");
        return reprompt();
      }
      if (!running) return start(line);
      const message = user(line);
      view.mark(message, "steer");
      agent.steer(message);
      view.note("steer", `queued: “${line}” (delivered after the running tools)`, "yellow");
    });
    // Ctrl-C on a terminal arrives through readline; a signal sent to a piped process through `process`.
    rl.on("SIGINT", interrupt);
    process.on("SIGINT", interrupt);
    // End of input (a pipe closed, Ctrl-D): let the current run finish, then quit.
    rl.on("close", () => {
      void (async () => {
        while (running && !closing) await running;
        process.off("SIGINT", interrupt);
        await quit();
      })();
    });
    ready();
  });
}
