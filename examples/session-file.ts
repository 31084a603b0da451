/**
 * A session in a JSONL file survives a crash: a child process is killed with SIGKILL while its
 * tools run; this process resumes the session from the file and finishes the run.
 *
 *   npx tsx examples/session-file.ts
 *
 * The tool `charge` has a side effect, so it declares `replay: "never"`: a call the crash left
 * running without a result is answered with an "interrupted" error the model can read, never run
 * twice. (A call the crash stopped before it started executing would simply run.)
 * `lookup` only reads (`replay: "safe"`), so it runs again.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Agent, type AgentMessage, type AgentTool } from "../src/index.js"; // in your app: from "rxagent"
import { FileSessionStore } from "../src/session/stores/file-store.js"; // from "rxagent/session/file"
import { agentSession } from "../src/session/index.js"; // from "rxagent/session"
import { fauxProvider, fauxToolCall, type FauxReply } from "../src/testing/index.js"; // from "rxagent/testing"

const [, , role, directory] = process.argv;
const slow = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const tools: AgentTool[] = [
  {
    name: "charge",
    label: "Charge",
    description: "Charges the card.",
    parameters: { type: "object", properties: { cents: { type: "number" } }, required: ["cents"] },
    replay: "never",
    execute: async (_id, { cents }: { cents: number }) => {
      // The worker tells the parent the charge has begun: its `tool_executing` entry is on record.
      if (role === "worker") process.stdout.write("tools running\n");
      await slow(2000);
      return { content: [{ type: "text", text: `charged ${cents} cents` }] };
    },
  },
  {
    name: "lookup",
    label: "Lookup",
    description: "Reads the price.",
    parameters: { type: "object", properties: {} },
    replay: "safe",
    execute: async () => {
      await slow(role === "worker" ? 2000 : 10);
      return { content: [{ type: "text", text: "price: 1200 cents" }] };
    },
  },
];

// Answers from the transcript (how many answers it holds), so the resumed process gets the same script.
const script: FauxReply[] = [{ content: [fauxToolCall("lookup", {}, "price"), fauxToolCall("charge", { cents: 1200 }, "pay")] }, { content: "Done: the price was read again; the charge may not have gone through, so I will check with the bank before retrying." }];
const streamFn = fauxProvider(Array.from({ length: 10 }, () => (request: { messages: { role: string }[] }) => script[request.messages.filter((m) => m.role === "assistant").length] ?? { content: "ok" }));

const agentIn = (dir: string) =>
  new Agent({
    initialState: { systemPrompt: "You take payments.", model: { id: "scripted", api: "faux", provider: "faux" }, tools },
    streamFn,
    session: agentSession({ store: new FileSessionStore({ directory: dir }), id: "order-42", owner: "checkout" }),
  });

const text = (m: AgentMessage): string => ("content" in m ? (typeof m.content === "string" ? m.content : m.content.map((b) => (b.type === "text" ? b.text : b.type === "toolCall" ? `[${b.name}]` : "")).join("")) : "");

if (role === "worker") {
  // The child: starts the run; the parent kills it while both tools run.
  const agent = agentIn(directory!);
  await agent.resume();
  await agent.prompt("Charge order 42.");
} else {
  const dir = mkdtempSync(join(tmpdir(), "rxagent-session-file-"));
  const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "worker", dir], { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise<void>((resolve) => child.stdout.on("data", (chunk: Buffer) => chunk.toString().includes("tools running") && resolve()));
  child.kill("SIGKILL");
  await new Promise((resolve) => child.on("exit", resolve));
  const lines = readFileSync(join(dir, "order-42.jsonl"), "utf8").trim().split("\n");
  console.log(`killed the worker with SIGKILL; the journal has ${lines.length} entries, the last: ${JSON.parse(lines.at(-1)!).type}`);

  const agent = agentIn(dir);
  await agent.resume(); // loads, answers the open calls, asks the model again, finishes the run
  for (const m of agent.state.messages) console.log(`  ${m.role.padEnd(10)} ${text(m)}`);
  rmSync(dir, { recursive: true, force: true });
}
