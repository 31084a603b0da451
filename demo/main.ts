/**
 * `npm start`: a scripted agent session on the embedded demo model (no API key).
 * `npm start -- --chat`: an interactive chat (see `chat.ts`).
 *
 * The scripted session shows, live: streamed text, three tool calls running in parallel with
 * a progress row each, a steering message arriving mid-batch and taking effect on the next
 * turn, a follow-up that runs when the agent would otherwise stop, and a summary line.
 *
 * @module
 */
import { scan } from "rxjs";
import { Agent, type UserMessage } from "../src/index.js";
import { runChat } from "./chat.js";
import { DEMO_MODEL, demoModel } from "./demo-model.js";
import { demoTools, SYSTEM_PROMPT, terminalSettings } from "./setup.js";
import { countEvent, NO_STATS, summaryLine, TerminalView, type RunStats } from "./terminal.js";

const HELP = `rxagent demo

  npm start                 a scripted session on the embedded demo model
  npm start -- --chat       chat (demo model, or OPENAI_BASE_URL + OPENAI_API_KEY + OPENAI_MODEL)
  npm start -- --events     also print every event's type as it happens
  npm start -- --no-color   no colours (also NO_COLOR=1); output is plain when piped
`;

const PROMPT = "What's the weather in Paris, Tokyo and Oslo?";
const STEERING = "Also, what is 17 * 23, and (2 + 3) ^ 2?";
const FOLLOW_UP = "What time is it in Tokyo? And show me the start of package.json.";

function user(text: string): UserMessage {
  return { role: "user", content: text, timestamp: Date.now() };
}

async function scriptedSession(): Promise<void> {
  const settings = terminalSettings();
  const view = new TerminalView({ write: (text) => process.stdout.write(text), ...settings, events: process.argv.includes("--events") });
  const agent = new Agent({
    streamFn: demoModel(),
    initialState: { systemPrompt: SYSTEM_PROMPT, model: DEMO_MODEL, tools: demoTools() },
  });

  // Every event, counted with a plain RxJS `scan` over the Agent's hot event stream.
  let stats: RunStats = NO_STATS;
  const counting = agent.events$.pipe(scan(countEvent, NO_STATS)).subscribe((next) => (stats = next));

  // The view is a listener: the loop waits for it (here it is synchronous).
  let steered = false;
  agent.subscribe((event) => {
    view.render(event);
    // Mid-batch: the first progress update of the first batch. The message is queued now and
    // delivered after the whole batch, so every tool call keeps its result (SPEC L7).
    if (event.type === "tool_execution_update" && !steered) {
      steered = true;
      const steering = user(STEERING);
      view.mark(steering, "steer");
      agent.steer(steering);
      view.note("steer", `queued while tools run: “${STEERING}” (delivered after this batch)`, "yellow");
    }
  });

  view.line(`rxagent demo · ${DEMO_MODEL.name} · ${settings.tty ? "live" : "plain output"}`);
  const followUp = user(FOLLOW_UP);
  view.mark(followUp, "follow-up");
  agent.followUp(followUp);
  view.note("follow-up", `queued: “${FOLLOW_UP}” (runs when the agent would otherwise stop)`, "yellow");

  const started = Date.now();
  await agent.prompt(PROMPT);
  view.close();
  counting.unsubscribe();
  view.note("summary", summaryLine(stats, Date.now() - started), "green");
  if (agent.state.errorMessage) {
    view.note("error", agent.state.errorMessage, "red");
    process.exitCode = 1;
  }
  view.line(settings.tty ? "Try it yourself: npm start -- --chat" : "Chat: npm start -- --chat");
}

// `npm start | head`: the reader went away; stop quietly instead of printing an EPIPE stack.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(HELP);
    return;
  }
  if (args.includes("--chat")) return runChat();
  return scriptedSession();
}

main().catch((error: unknown) => {
  // A user should read what went wrong, not a stack trace (DEBUG=1 shows it).
  process.stderr.write(`rxagent demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  if (process.env.DEBUG) console.error(error);
  process.exitCode = 1;
});
