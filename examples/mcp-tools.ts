/**
 * The tools of an MCP server as the agent's tools.
 *
 *   npx tsx examples/mcp-tools.ts
 *
 * Starts `@modelcontextprotocol/server-everything` (a reference server) as a child process,
 * connects to it over stdio and keeps the Agent's tools in step with the server's list
 * (`tools$` lists again when the server says its tools changed). The scripted model asks for
 * three of them at once: the long-running one reports progress, which arrives as
 * `tool_execution_update` events while the other two finish.
 */
import { createRequire } from "node:module";
import { filter, firstValueFrom } from "rxjs";
import { Agent, type ToolResultMessage } from "../src/index.js"; // in your app: from "rxagent"
import { connectMcpStdio } from "../src/mcp/stdio.js"; // in your app: from "rxagent/mcp/stdio"
import { ofType } from "../src/operators/index.js"; // in your app: from "rxagent/operators"
import { fauxProvider, fauxToolCall } from "../src/testing/index.js"; // in your app: from "rxagent/testing"

// In your app: { command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] }
const serverBin = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js");
const server = await connectMcpStdio({ command: process.execPath, args: [serverBin, "stdio"], stderr: "ignore", prefix: "everything_" });
console.log(`connected to ${server.name}`);

// A scripted model (deterministic): three tool calls at once, then an answer.
const model = fauxProvider([
  {
    content: [
      fauxToolCall("everything_trigger-long-running-operation", { duration: 1.5, steps: 3 }),
      fauxToolCall("everything_echo", { message: "hello from rxagent" }),
      fauxToolCall("everything_get-sum", { a: 17, b: 25 }),
    ],
  },
  { content: "The server echoed, added and finished its long operation." },
]);
const agent = new Agent({ streamFn: model, initialState: { model: model.model, systemPrompt: "Use the tools." } });

// The server's tools, now and after every change it announces.
const following = server.tools$.subscribe((tools) => {
  agent.state.tools = tools;
  console.log(`tools: ${tools.length} (${tools.slice(0, 4).map((tool) => tool.name).join(", ")}, …)`);
});
await firstValueFrom(agent.state$.pipe(filter((state) => state.tools.length > 0))); // the first listing is in

// Each call's start, its progress (the server's notifications), and its end.
agent.events$.pipe(ofType("tool_execution_start")).subscribe((start) => console.log(`start    ${start.toolName}`));
agent.events$.pipe(ofType("tool_execution_update")).subscribe((update) => console.log(`progress ${update.toolName} ${Math.round(update.partialResult.details.progress * 100)}%`));
agent.events$.pipe(ofType("tool_execution_end")).subscribe((end) => console.log(`end      ${end.toolName}${end.isError ? " (error)" : ""}`));

await agent.prompt("Echo, add 17 and 25, and run the long operation.");

for (const message of agent.state.messages) {
  if (message.role !== "toolResult") continue;
  const result = message as ToolResultMessage;
  console.log(`result   ${result.toolName}: ${result.content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join(" ")}`);
}
const last = agent.state.messages.at(-1);
console.log(`answer: ${last?.role === "assistant" ? last.content.map((block) => (block.type === "text" ? block.text : "")).join("") : "none"}`);

following.unsubscribe();
await server.close();
console.log(`closed by the ${(await server.closed).by}`);
