/**
 * Rewriting tool results with `afterToolCall`: redact secrets, cap long outputs, flag failures.
 *
 *   npx tsx examples/after-tool-call.ts
 *
 * `afterToolCall` runs after a tool executed and before its result is emitted and sent to the
 * model. Return only the fields to change (`content`, `details`, `isError`, `terminate`);
 * the others keep their values. The transcript, the events and the model all see the
 * rewritten result: the raw one never leaves the tool.
 */
import { Agent, type AfterToolCallContext, type AfterToolCallResult, type AgentTool } from "../src/index.js"; // in your app: from "rxagent"
import { fauxProvider, fauxToolCall } from "../src/testing/index.js"; // in your app: from "rxagent/testing"

const text = (value: string) => [{ type: "text" as const, text: value }];

/** Tools with outputs a model should not see as they are. */
const tools: AgentTool[] = [
  {
    name: "show_config",
    label: "Config",
    description: "Prints the service configuration.",
    parameters: { type: "object", properties: {} },
    execute: async () => ({ content: text("region=eu-west-1\nOPENAI_API_KEY=sk-live-8f2c1a9b7d\ndb_password=hunter2\nreplicas=3") }),
  },
  {
    name: "search_logs",
    label: "Logs",
    description: "Searches the logs.",
    parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
    execute: async (_id, { query }) => ({ content: text(Array.from({ length: 400 }, (_, i) => `12:00:${String(i % 60).padStart(2, "0")} ${query} ok`).join("\n")) }),
  },
  {
    name: "ping",
    label: "Ping",
    description: "Pings a host.",
    parameters: { type: "object", properties: { host: { type: "string" } }, required: ["host"] },
    // This tool reports failure in its text instead of throwing: the hook turns it into an error result.
    execute: async (_id, { host }) => ({ content: text(`ping ${host}: 100% packet loss`) }),
  },
];

const MAX_CHARS = 300;
const SECRET = /(\w*(?:api_key|password|secret|token))(=|:\s*)\S+/gi;

function afterToolCall({ toolCall, result }: AfterToolCallContext): AfterToolCallResult | undefined {
  const original = result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
  let rewritten = original.replace(SECRET, "$1$2[redacted]");
  if (rewritten.length > MAX_CHARS) {
    rewritten = `${rewritten.slice(0, MAX_CHARS)}\n… [${rewritten.length - MAX_CHARS} more characters cut; narrow the query]`;
  }
  const failed = /100% packet loss|not found/i.test(original);
  if (rewritten === original && !failed) return undefined; // unchanged
  console.log(`afterToolCall rewrote ${toolCall.name}: ${original.length} → ${rewritten.length} chars${failed ? ", marked as an error" : ""}`);
  return { content: text(rewritten), ...(failed ? { isError: true } : {}) };
}

const model = fauxProvider([
  { content: [fauxToolCall("show_config"), fauxToolCall("search_logs", { query: "checkout" }), fauxToolCall("ping", { host: "db-1" })] },
  { content: "The config looks fine, checkout is healthy, and db-1 is unreachable." },
]);
const agent = new Agent({ streamFn: model, initialState: { model: model.model, tools }, afterToolCall });
await agent.prompt("Check the config, the checkout logs and the database host.");

// What the model was sent on its second request:
for (const message of model.requests[1]!.messages) {
  if (message.role !== "toolResult") continue;
  const sent = message.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
  console.log(`\n${message.toolName}${message.isError ? " (error)" : ""}, ${sent.length} chars:\n${sent.split("\n").slice(0, 3).join("\n")}`);
}
