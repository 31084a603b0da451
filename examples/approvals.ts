/**
 * Approvals, budgets and a bounded batch: a human answers each risky call while the others run.
 *
 *   npx tsx examples/approvals.ts
 *
 * `delete_file` has `needsApproval: true`: its call waits (listed in `state.pendingApprovals`)
 * while `list_files` runs; here a "reviewer" answers half a second later from a stream of
 * decisions — it approves one path and denies the other with a reason the model reads. The run
 * is bounded (`limits`), at most two calls execute at once, and `agent_end` says what it used.
 */
import { delay, map } from "rxjs";
import { Agent, type AgentTool } from "../src/index.js"; // in your app: from "rxagent"
import { ofType } from "../src/operators/index.js"; // in your app: from "rxagent/operators"
import { fauxProvider, fauxToolCall } from "../src/testing/index.js"; // in your app: from "rxagent/testing"

const files = new Set(["old.log", "notes.md", "todo.txt"]);

const listFiles: AgentTool = {
  name: "list_files",
  label: "List files",
  description: "Lists the files",
  parameters: { type: "object", properties: {} },
  execute: async () => ({ content: [{ type: "text", text: [...files].join(", ") }] }),
};

const deleteFile: AgentTool<{ path: string }> = {
  name: "delete_file",
  label: "Delete file",
  description: "Deletes a file",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  needsApproval: true,
  execute: async (_id, { path }) => {
    files.delete(path);
    return { content: [{ type: "text", text: `deleted ${path}` }] };
  },
};

const model = fauxProvider([
  {
    content: [fauxToolCall("delete_file", { path: "old.log" }, "d1"), fauxToolCall("delete_file", { path: "notes.md" }, "d2"), fauxToolCall("list_files", {}, "l1")],
    usage: { input: 120, output: 40, totalTokens: 160 },
  },
  { content: "I deleted old.log; notes.md stays, as you asked.", usage: { input: 210, output: 15, totalTokens: 225 } },
]);

const agent = new Agent({
  streamFn: model,
  initialState: { model: model.model, tools: [listFiles, deleteFile] },
  limits: { maxTurns: 4, maxToolCalls: 10 },
  maxConcurrency: 2,
});

// The reviewer: one decision per request, half a second later.
const decisions: Record<string, { approved: true } | { approved: false; reason: string }> = {
  "old.log": { approved: true },
  "notes.md": { approved: false, reason: "Keep my notes." },
};
const requests$ = agent.events$.pipe(ofType("tool_approval_request"));
requests$.subscribe((request) => {
  console.log(`waiting  ${request.toolName}(${JSON.stringify(request.args)})   pending: ${agent.state.pendingApprovals.map((p) => p.toolCallId).join(", ")}`);
});
agent.answerApprovals(
  requests$.pipe(
    map((request) => ({ toolCallId: request.toolCallId, ...decisions[(request.args as { path: string }).path]! })),
    delay(500),
  ),
);

agent.events$.pipe(ofType("tool_approval_end")).subscribe((end) => console.log(`answered ${end.toolCallId}: ${end.approved ? "approved" : `denied (${end.reason})`}`));
agent.events$.pipe(ofType("tool_execution_end")).subscribe((end) => console.log(`ended    ${end.toolName} ${end.toolCallId}${end.isError ? " (error result)" : ""}`));
agent.events$.pipe(ofType("agent_end")).subscribe((end) => console.log(`used     ${end.usage.totalTokens} tokens in ${end.messages.filter((m) => (m as { role: string }).role === "assistant").length} requests`));

await agent.prompt("Clean up the folder.");
const results = agent.state.messages.flatMap((m) => (m.role === "toolResult" ? [`${m.toolCallId}: ${(m.content[0] as { text: string }).text}`] : []));
console.log(results.join("\n"));
console.log(`answer: ${(agent.state.messages.at(-1) as { content: { text: string }[] }).content[0]!.text}`);
console.log(`files left: ${[...files].join(", ")}`);
