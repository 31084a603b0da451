/**
 * The low-level `agentLoop` as a plain Observable pipeline: no Agent class, just RxJS.
 *
 *   npx tsx examples/agent-loop-pipeline.ts
 *
 * `agentLoop(...)` is cold: each subscription is one run, and unsubscribing cancels it — the
 * provider request and the running tools are aborted. So `takeUntil` is a cancel button,
 * `ofType` (from `rxagent/operators`) picks the events you care about, and `scan` folds them
 * into state.
 */
import { finalize, map, merge, type Observable, scan, share, takeUntil, tap, timer } from "rxjs";
import { agentLoop, type AgentTool, type AgentToolResult, type UserMessage } from "../src/index.js"; // in your app: from "rxagent"
import { ofType, textDeltas } from "../src/operators/index.js"; // in your app: from "rxagent/operators"
import { DEMO_MODEL, demoModel } from "../demo/demo-model.js";
import { weatherTool } from "../demo/tools.js";

const user = (text: string): UserMessage => ({ role: "user", content: text, timestamp: Date.now() });

// The demo's weather tool (an Observable with progress), wrapped to record which calls were
// torn down before they finished.
const weather = weatherTool();
const cancelled: string[] = [];
const tools: AgentTool[] = [
  {
    ...weather,
    execute: (id, params: { city: string }, signal, onUpdate) => {
      let finished = false;
      return (weather.execute(id, params, signal, onUpdate) as Observable<AgentToolResult>).pipe(
        tap({ complete: () => (finished = true) }),
        finalize(() => finished || cancelled.push(params.city)),
      );
    },
  },
];

// 1. A whole run: text deltas streamed, and a live count of finished tools with `scan`.
const run$ = agentLoop([user("Weather in Paris, Tokyo and Oslo?")], { messages: [], tools }, { model: DEMO_MODEL }, undefined, demoModel()).pipe(share());
const text$ = run$.pipe(textDeltas());
const toolsDone$ = run$.pipe(
  ofType("tool_execution_end"),
  scan((count) => count + 1, 0),
  map((count) => `  [${count} tool${count === 1 ? "" : "s"} finished]\n`),
);
let atLineStart = true;
await new Promise<void>((resolve) =>
  merge(text$, toolsDone$).subscribe({
    next: (text) => {
      if (text.startsWith("  [") && !atLineStart) process.stdout.write("\n");
      process.stdout.write(text);
      atLineStart = text.endsWith("\n");
    },
    complete: resolve,
  }),
);
process.stdout.write("\n");

// 2. Cancel with `takeUntil`: stop the run as soon as the first tool finishes.
//    Unsubscribing aborts the calls still running; nothing more is emitted.
const second$ = agentLoop([user("Weather in Paris, Tokyo and Oslo?")], { messages: [], tools }, { model: DEMO_MODEL }, undefined, demoModel()).pipe(share());
const firstToolDone$ = second$.pipe(ofType("tool_execution_end"));
const seen = await new Promise<string[]>((resolve) => {
  const types: string[] = [];
  second$.pipe(takeUntil(firstToolDone$)).subscribe({ next: (event) => types.push(event.type), complete: () => resolve(types) });
});
await new Promise((resolve) => timer(2500).subscribe(resolve)); // long enough for every call to have finished, had it run on
console.log(`second run: ${seen.length} events, last ${seen.at(-1)}; no agent_end: ${!seen.includes("agent_end")}`);
console.log(`cancelled by unsubscribing: ${cancelled.join(", ")}`);
