/**
 * Permissions with `beforeToolCall`: allow, ask, or deny each tool call.
 *
 *   npx tsx examples/permissions.ts            (asks on a terminal; piped, answers from $APPROVE, default "yes")
 *   APPROVE=no npx tsx examples/permissions.ts
 *
 * `beforeToolCall` runs after the arguments are validated and before the tool executes. It may
 * return a promise (here: waiting for the user). `{ block: true, reason }` stops the call: the
 * tool never runs and the model receives `reason` as an error result, so it can adapt.
 */
import { createInterface } from "node:readline/promises";
import { Agent, type AgentTool, type BeforeToolCallContext, type BeforeToolCallResult } from "../src/index.js"; // in your app: from "rxagent"
import { ofType } from "../src/operators/index.js"; // in your app: from "rxagent/operators"
import { fauxProvider, fauxToolCall } from "../src/testing/index.js"; // in your app: from "rxagent/testing"
import { clockTool } from "../demo/tools.js";
import { readFileTool } from "../demo/node-tools.js";

/** A dangerous tool: it must never run without permission. */
const deleteFile: AgentTool<{ path: string }> = {
  name: "delete_file",
  label: "Delete file",
  description: "Deletes a file.",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  execute: async (_toolCallId, { path }) => {
    throw new Error(`delete_file(${path}) ran: the policy should have denied it`);
  },
};

type Decision = "allow" | "ask" | "deny";
const policy: Record<string, Decision> = { get_time: "allow", read_file: "ask", delete_file: "deny" };

/** Asks on a terminal; when piped, answers from $APPROVE (default yes) so the example runs unattended. */
async function ask(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) {
    const answer = (process.env.APPROVE ?? "yes").toLowerCase().startsWith("y");
    console.log(`? ${question} ${answer ? "yes" : "no"} (from $APPROVE: stdin is not a terminal)`);
    return answer;
  }
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  const reply = await rl.question(`? ${question} [y/N] `);
  rl.close();
  return /^y/i.test(reply.trim());
}

async function beforeToolCall({ toolCall, args }: BeforeToolCallContext): Promise<BeforeToolCallResult | undefined> {
  const decision = policy[toolCall.name] ?? "ask";
  if (decision === "allow") return undefined;
  if (decision === "deny") return { block: true, reason: `${toolCall.name} is not allowed in this session.` };
  const approved = await ask(`Allow ${toolCall.name} ${JSON.stringify(args)}?`);
  return approved ? undefined : { block: true, reason: `The user declined ${toolCall.name}.` };
}

// A scripted model that tries all three tools at once, then reports.
const model = fauxProvider([
  { content: [fauxToolCall("get_time"), fauxToolCall("read_file", { path: "package.json", maxLines: 3 }), fauxToolCall("delete_file", { path: "README.md" })] },
  { content: "Done: see the tool results above." },
]);

const agent = new Agent({
  streamFn: model,
  initialState: { model: model.model, tools: [clockTool(), readFileTool(process.cwd()), deleteFile] },
  beforeToolCall,
});

agent.events$.pipe(ofType("tool_execution_end")).subscribe((end) => {
  const text = end.result.content.map((block) => (block.type === "text" ? block.text : "")).join(" ").split("\n")[0];
  console.log(`${end.isError ? "blocked" : "ran    "} ${end.toolName.padEnd(12)} ${text}`);
});

await agent.prompt("What time is it? Show package.json, then delete README.md.");

// What the model saw on its second request: one result per call, the blocked ones as errors.
const results = model.requests[1]!.messages.filter((message) => message.role === "toolResult");
console.log(`the model received ${results.length} results, ${results.filter((result) => result.isError).length} of them errors`);
