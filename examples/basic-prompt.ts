/**
 * The smallest useful agent: a model, one tool, a prompt, the answer streamed as it arrives.
 *
 *   npx tsx examples/basic-prompt.ts
 *
 * Runs on the embedded demo model (no API key). To use a real model, swap the two lines
 * marked "model" for `openaiCompatible(...)` from `rxagent/openai` and your model's id.
 */
import { filter } from "rxjs";
import { Agent } from "../src/index.js"; // in your app: from "rxagent"
import { committedMessages, ofType, textDeltas } from "../src/operators/index.js"; // in your app: from "rxagent/operators"
import { DEMO_MODEL, demoModel } from "../demo/demo-model.js";
import { calculatorTool } from "../demo/tools.js";

const agent = new Agent({
  streamFn: demoModel(), // model: the provider
  initialState: {
    systemPrompt: "You are a careful assistant. Use the calculator for arithmetic.",
    model: DEMO_MODEL, // model: what to call
    tools: [calculatorTool()],
  },
});

// `events$` is every event of every run. Here: print the text as it streams in, end the line
// once an assistant message is committed, and print each tool call's result.
agent.events$.pipe(textDeltas()).subscribe((piece) => process.stdout.write(piece));
agent.events$.pipe(committedMessages(), filter((message) => message.role === "assistant")).subscribe(() => process.stdout.write("\n"));
agent.events$.pipe(ofType("tool_execution_end")).subscribe((end) => console.log(`  (tool ${end.toolName} → ${JSON.stringify(end.result.content[0])})`));

// prompt() resolves when the run is over: the model answered, called the tool, and answered again.
await agent.prompt("What is (17 + 4) * 23?");

const roles = agent.state.messages.map((message) => message.role);
console.log(`transcript: ${roles.join(" → ")}`);
