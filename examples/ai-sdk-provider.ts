/**
 * Any Vercel AI SDK model as the Agent's provider: `@ai-sdk/anthropic` here, through
 * `fromAiSdk` from `rxagent/ai-sdk`.
 *
 *   npx tsx examples/ai-sdk-provider.ts
 *
 * No API key: a tiny server on 127.0.0.1 replays two recorded Anthropic Messages streams (a
 * tool call, then the answer), and the real `@ai-sdk/anthropic` provider talks to it through
 * `baseURL`. For the real API, drop `baseURL` and set ANTHROPIC_API_KEY.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createAnthropic } from "@ai-sdk/anthropic";
import { filter } from "rxjs";
import { Agent, type AgentTool } from "../src/index.js"; // in your app: from "rxagent"
import { committedMessages, ofType, textDeltas } from "../src/operators/index.js"; // in your app: from "rxagent/operators"
import { aiSdkModel, fromAiSdk } from "../src/providers/ai-sdk/index.js"; // in your app: from "rxagent/ai-sdk"

// Two recorded responses in Anthropic's wire format: each line is one server-sent event.
const message = (id: string, input: number) => ({ type: "message_start", message: { id, type: "message", role: "assistant", model: "claude-sonnet-4-5-20250929", content: [], stop_reason: null, usage: { input_tokens: input, output_tokens: 1 } } });
const text = (index: number, ...deltas: string[]) => [
  { type: "content_block_start", index, content_block: { type: "text", text: "" } },
  ...deltas.map((delta) => ({ type: "content_block_delta", index, delta: { type: "text_delta", text: delta } })),
  { type: "content_block_stop", index },
];
const end = (reason: string, output: number) => [{ type: "message_delta", delta: { stop_reason: reason, stop_sequence: null }, usage: { output_tokens: output } }, { type: "message_stop" }];
const recorded = [
  [
    message("msg_01ExampleTool", 380),
    ...text(0, "Let me look that up."),
    { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_01Example", name: "get_weather", input: {} } },
    ...['{"locat', 'ion": "Pa', 'ris"}'].map((partial_json) => ({ type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json } })),
    { type: "content_block_stop", index: 1 },
    ...end("tool_use", 54),
  ],
  [message("msg_01ExampleAnswer", 452), ...text(0, "It is 18°C and ", "cloudy in Paris", " — take a light jacket."), ...end("end_turn", 17)],
];

// The server answers request n with recording n, one event every few milliseconds.
const requests: { messages: unknown[] }[] = [];
const server = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => (body += chunk));
  req.on("end", async () => {
    const events = recorded[Math.min(requests.push(JSON.parse(body)) - 1, recorded.length - 1)]!;
    res.writeHead(200, { "content-type": "text/event-stream" });
    for (const event of events) {
      res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    res.end();
  });
});
await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;

// The AI SDK model, and the bridge that makes it a StreamFn. aiSdkModel names it for the transcript.
const claude = createAnthropic({ baseURL, apiKey: "sk-ant-example" })("claude-sonnet-4-5");

const getWeather: AgentTool<{ location: string }> = {
  name: "get_weather",
  label: "Weather",
  description: "Current weather for a city.",
  parameters: { type: "object", properties: { location: { type: "string" } }, required: ["location"] },
  execute: async (_id, { location }) => ({ content: [{ type: "text", text: `${location}: 18°C, cloudy` }] }),
};

const agent = new Agent({
  streamFn: fromAiSdk(claude),
  initialState: { systemPrompt: "Be brief.", model: aiSdkModel(claude, { cost: { input: 3, output: 15 } }), tools: [getWeather] },
});

agent.events$.pipe(textDeltas()).subscribe((piece) => process.stdout.write(piece));
agent.events$.pipe(committedMessages(), filter((message) => message.role === "assistant")).subscribe(() => process.stdout.write("\n"));
agent.events$.pipe(ofType("tool_execution_start")).subscribe((call) => console.log(`→ ${call.toolName}(${JSON.stringify(call.args)})`));

await agent.prompt("What's the weather in Paris?");
server.close();

const answer = agent.state.messages.at(-1);
if (answer?.role !== "assistant" || agent.state.errorMessage) throw new Error(`The run failed: ${agent.state.errorMessage}`);
console.log(`answer (${answer.stopReason}): ${answer.content.map((block) => (block.type === "text" ? block.text : "")).join("")}`);
console.log(`usage: ${answer.usage.input} in, ${answer.usage.output} out, $${answer.usage.cost.total.toFixed(6)}`);
// What the provider sent back the second time: the tool result, in Anthropic's format.
console.log(`second request, last message: ${JSON.stringify(requests[1]?.messages.at(-1))}`);
