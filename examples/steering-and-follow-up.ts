/**
 * Steering and follow-up: talking to an agent while it works.
 *
 *   npx tsx examples/steering-and-follow-up.ts
 *
 * - `agent.steer(message)`: "also consider this". Delivered after the current turn — after the
 *   whole tool batch, never inside it, so every tool call keeps its result — and before the
 *   next request to the model.
 * - `agent.followUp(message)`: "when you're done, do this". Delivered only when the agent
 *   would otherwise stop, as the start of another turn in the same run.
 */
import { take } from "rxjs";
import { Agent, type AgentMessage } from "../src/index.js"; // in your app: from "rxagent"
import { committedMessages, ofType } from "../src/operators/index.js"; // in your app: from "rxagent/operators"
import { DEMO_MODEL, demoModel } from "../demo/demo-model.js";
import { browserTools } from "../demo/tools.js";

const agent = new Agent({
  streamFn: demoModel({ delayMs: 2 }),
  initialState: { model: DEMO_MODEL, tools: browserTools({ speed: 0.3 }) },
});

const text = (message: AgentMessage): string => {
  if (!("content" in message)) return "";
  return typeof message.content === "string" ? message.content : message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
};

let turn = 0;
agent.events$.pipe(ofType("turn_start")).subscribe(() => console.log(`── turn ${++turn}`));
agent.events$.pipe(committedMessages()).subscribe((message) => {
  if (message.role === "user") console.log(`   user:      ${text(message)}`);
  if (message.role === "assistant") console.log(`   assistant: ${text(message).replace(/\n/g, " ")}`);
});
const toolStarts$ = agent.events$.pipe(ofType("tool_execution_start"));
toolStarts$.subscribe((start) => console.log(`   tool:      ${start.toolName}(${JSON.stringify(start.args)})`));

// While the weather tools run, the user adds something: a steering message (once: `take(1)`).
toolStarts$.pipe(take(1)).subscribe(() => {
  agent.steer("Also: what is 12 * 12?");
  console.log(`   (steer queued while tools run; queued now: ${agent.peekQueuedMessages().length} message)`);
});

// Queued before the run: it waits until the agent has nothing left to do.
agent.followUp("Finally, what time is it in Tokyo?");

await agent.prompt("What's the weather in Paris and Oslo?");
console.log(`done after ${turn} turns; queues empty: ${!agent.hasQueuedMessages()}`);
