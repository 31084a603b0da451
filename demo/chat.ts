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
import { Agent, type AssistantMessage, type UserMessage } from "../src/index.js";
import { chooseModel, configurationHint, demoTools, SYSTEM_PROMPT, terminalSettings } from "./setup.js";
import { TerminalView } from "./terminal.js";

const HELP = [
  "Type a message and press Enter.",
  "While the agent works: a line steers it (after the running tools), /followup TEXT queues a follow-up, Ctrl-C aborts the run.",
  "/exit (or Ctrl-C when idle) quits. /help shows this.",
].join("\n");

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

  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: settings.tty, prompt: "you> " });
  let running: Promise<void> | undefined;
  let aborting = false;
  let closing = false;

  view.line(`rxagent chat · ${choice.label}`);
  view.line(HELP);
  const ready = (): void => {
    if (settings.tty && !closing) rl.prompt();
    else if (!closing) view.note("ready", "waiting for a prompt");
  };

  const start = (text: string): void => {
    aborting = false;
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
      const line = raw.trim();
      if (closing || line === "") return;
      if (line === "/exit" || line === "/quit") return void quit();
      if (line === "/help") return view.line(HELP);
      const followUp = /^\/follow-?up\s+(.+)$/i.exec(line);
      if (followUp) {
        if (!running) return start(followUp[1]!);
        const message = user(followUp[1]!);
        view.mark(message, "follow-up");
        agent.followUp(message);
        return view.note("follow-up", `queued: “${followUp[1]}”`, "yellow");
      }
      if (line.startsWith("/")) return view.note("error", `Unknown command ${line.split(/\s/)[0]}. ${HELP}`, "red");
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
