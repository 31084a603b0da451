/**
 * Context pruning with `transformContext`: keep requests small as the transcript grows.
 *
 *   npx tsx examples/transform-context.ts
 *
 * `transformContext` runs before every request and returns the messages to send (before
 * `convertToLlm`). It never changes the transcript: the Agent keeps everything, the model
 * sees a window. Cut only at a user message, so a tool call is never separated from its result.
 */
import { Agent, type AgentMessage, type StreamFn } from "../src/index.js"; // in your app: from "rxagent"
import { DEMO_MODEL, demoModel } from "../demo/demo-model.js";
import { calculatorTool } from "../demo/tools.js";

const KEEP_TURNS = 2;

/** The system messages (prompt and tool declarations), then the last `KEEP_TURNS` user turns. */
function pruneContext(messages: AgentMessage[]): AgentMessage[] {
  const system = messages.filter((message) => message.role === "system");
  const starts = messages.flatMap((message, index) => (message.role === "user" ? [index] : []));
  const cut = starts.length > KEEP_TURNS ? starts[starts.length - KEEP_TURNS]! : 0;
  return [...system, ...messages.slice(cut).filter((message) => message.role !== "system")];
}

// Wrap the provider to watch what each request carries: a StreamFn is just a function.
const sizes: number[] = [];
const model = demoModel({ delayMs: 0 });
const watched: StreamFn = (m, context, options) => {
  sizes.push(context.messages.length);
  return model(m, context, options);
};

const agent = new Agent({
  streamFn: watched,
  initialState: { systemPrompt: "You are a calculator.", model: DEMO_MODEL, tools: [calculatorTool()] },
  transformContext: (messages) => pruneContext(messages),
});

for (const question of ["1 + 1", "2 * 3", "10 / 4", "2 ^ 10", "(5 + 5) * 5"]) {
  await agent.prompt(`What is ${question}?`);
  const answer = agent.state.messages.at(-1);
  console.log(`${question.padEnd(12)} → ${answer && "content" in answer ? JSON.stringify(answer.content).slice(0, 60) : ""}`);
}

console.log(`transcript: ${agent.state.messages.length} messages`);
console.log(`messages per request: ${sizes.join(", ")} (never more than ${Math.max(...sizes)})`);
