/**
 * The smallest useful agent: a model, one tool, a prompt, the answer streamed as it arrives.
 *
 *   npx tsx examples/basic-prompt.ts
 *
 * Runs on the embedded demo model (no API key). To use a real model, swap the two lines
 * marked "model" for `openaiCompatible(...)` from `rxagent/openai` and your model's id.
 */
import { Agent } from "../src/index.js"; // in your app: from "rxagent"
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

// Listeners see every event of the run. Here: print text deltas as they stream in, and each tool call.
agent.subscribe((event) => {
  if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") {
    process.stdout.write(event.assistantMessageEvent.delta);
  }
  if (event.type === "message_end" && event.message.role === "assistant") process.stdout.write("\n");
  if (event.type === "tool_execution_end") console.log(`  (tool ${event.toolName} → ${JSON.stringify(event.result.content[0])})`);
});

// prompt() resolves when the run is over: the model answered, called the tool, and answered again.
await agent.prompt("What is (17 + 4) * 23?");

const roles = agent.state.messages.map((message) => message.role);
console.log(`transcript: ${roles.join(" → ")}`);
