/**
 * Tools that run in parallel and report progress.
 *
 *   npx tsx examples/parallel-tools.ts
 *
 * A tool's `execute` may return an Observable: its emissions are progress updates
 * (`tool_execution_update` events, delivered as they are emitted), the last one is the
 * result, and unsubscribing cancels it. The calls of one assistant message run concurrently (`mergeMap`):
 * `tool_execution_end` arrives in completion order, while the tool-result messages keep the
 * order the model asked in.
 */
import { map, take, timer } from "rxjs";
import { Agent, type AgentTool, type ToolResultMessage } from "../src/index.js"; // in your app: from "rxagent"
import { fauxProvider, fauxToolCall } from "../src/testing/index.js"; // in your app: from "rxagent/testing"

/** A pretend download: `size` chunks, one every 100 ms, each reported as progress. */
const download: AgentTool<{ file: string; size: number }> = {
  name: "download",
  label: "Download",
  description: "Downloads a file.",
  parameters: {
    type: "object",
    properties: { file: { type: "string" }, size: { type: "integer", minimum: 1 } },
    required: ["file", "size"],
  },
  execute: (_toolCallId, { file, size }) =>
    timer(100, 100).pipe(
      take(size + 1),
      map((chunk) =>
        chunk < size
          ? { content: [{ type: "text" as const, text: `${file}: chunk ${chunk + 1}/${size}` }], details: { progress: (chunk + 1) / size } }
          : { content: [{ type: "text" as const, text: `${file}: ${size} chunks downloaded` }] },
      ),
    ),
};

// A scripted model (deterministic): first it asks for three downloads at once, then it answers.
const model = fauxProvider([
  { content: [fauxToolCall("download", { file: "big.iso", size: 5 }), fauxToolCall("download", { file: "small.txt", size: 1 }), fauxToolCall("download", { file: "medium.zip", size: 3 })] },
  { content: "All three files are downloaded." },
]);

const agent = new Agent({ streamFn: model, initialState: { model: model.model, tools: [download] } });

const bar = (progress: number) => "#".repeat(Math.round(progress * 10)).padEnd(10, ".");
const files = new Map<string, string>(); // toolCallId → file
let sumOfDurations = 0;
agent.subscribe((event) => {
  switch (event.type) {
    case "tool_execution_start":
      files.set(event.toolCallId, event.args.file);
      console.log(`start    ${event.args.file}`);
      break;
    case "tool_execution_update":
      console.log(`progress ${event.args.file.padEnd(10)} [${bar(event.partialResult.details.progress)}]`);
      break;
    case "tool_execution_end":
      console.log(`end      ${files.get(event.toolCallId)} (${event.durationMs} ms)`);
      sumOfDurations += event.durationMs ?? 0;
      break;
    case "turn_end": {
      const order = event.toolResults.map((result: ToolResultMessage) => result.content[0]?.type === "text" && result.content[0].text.split(":")[0]);
      if (order.length > 0) console.log(`results in the order the model asked: ${order.join(", ")}`);
      break;
    }
  }
});

const started = Date.now();
await agent.prompt("Download big.iso, small.txt and medium.zip.");
// Parallel: the run took about as long as the longest download, less than the downloads one after another.
const elapsed = Date.now() - started;
console.log(`parallel: ${elapsed < sumOfDurations} (the run took ${elapsed} ms; the downloads took ${sumOfDurations} ms in total)`);
const last = agent.state.messages.at(-1);
console.log(`answer: ${last?.role === "assistant" ? JSON.stringify(last.content) : "none"}`);
