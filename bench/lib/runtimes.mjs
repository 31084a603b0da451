/**
 * How each runtime runs a workload. All get the same scripts, the same tools and a listener
 * (or consumer) that only counts events.
 *
 * Runtimes: "reference" (pi-agent-core), "rxagent" (dist/), and the peers beside them
 * (lib/peers/*.mjs): "ai-sdk" (Vercel AI SDK 7, an in-memory LanguageModelV4), "openai-agents"
 * (OpenAI Agents JS, an in-memory Model), "floor" (lib/floor.mjs: a plain loop doing the same
 * observable work). Each run returns its own protocol's counts (`events`, …, checked equal from
 * run to run of one runtime) and `work` (requests, tool executions, tool results kept, final
 * text length), checked here against what the script asks for, for every runtime and run.
 */
import { pathToFileURL } from "node:url";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { existsSync } from "node:fs";
import { expectedWork, finalTextLength, instantTool, longRunScript, MODEL, prepareForm, referenceConvertToLlm, scriptedStreamFn, streamingScript, toolHeavyScript, toolRuns, userMessage } from "./scenarios.mjs";

/** The peers and the floor: a module per runtime, each with load(), runLoop(script, size) and runAgent(script, size). */
const PEER_MODULES = { "ai-sdk": "./peers/ai-sdk.mjs", "openai-agents": "./peers/openai-agents.mjs", floor: "./floor.mjs" };

const here = path.dirname(fileURLToPath(import.meta.url));
/**
 * rxagent as built by `npm run build` at the root (tsc → dist/). RXAGENT_DIST=<dir> points at
 * another build (for before/after comparisons of a change).
 */
export const RXAGENT_ENTRY = path.resolve(process.env.RXAGENT_DIST ?? path.resolve(here, "../../dist"), "index.js");

/**
 * rxagent as built from an earlier commit (bench/baseline.mjs builds it): the runtime named
 * "baseline", timed beside "rxagent" in one process for a before/after of the core.
 */
export const BASELINE_ENTRY = process.env.RXAGENT_BASELINE_DIST ? path.resolve(process.env.RXAGENT_BASELINE_DIST, "index.js") : undefined;

export async function loadRuntime(name) {
  if (name === "reference") return import("@earendil-works/pi-agent-core");
  if (name === "baseline") {
    if (!BASELINE_ENTRY || !existsSync(BASELINE_ENTRY)) throw new Error("The baseline runtime needs RXAGENT_BASELINE_DIST, a built dist/ of the earlier commit (bench/baseline.mjs makes one).");
    return import(pathToFileURL(BASELINE_ENTRY).href);
  }
  if (PEER_MODULES[name]) {
    const peer = await import(PEER_MODULES[name]);
    await peer.load();
    return peer;
  }
  if (!existsSync(RXAGENT_ENTRY)) throw new Error(`rxagent is not built: ${RXAGENT_ENTRY} is missing. Run \`npm run build\` at the repository root.`);
  return import(pathToFileURL(RXAGENT_ENTRY).href);
}

export function scriptFor(workload, size) {
  switch (workload) {
    case "streaming":
      return streamingScript(size);
    case "tool-heavy":
      return toolHeavyScript(size);
    case "long-run":
      return longRunScript(size);
    default:
      throw new Error(`unknown workload ${workload}`);
  }
}

/**
 * One tool object per runtime per process, as an app defines its tools once: both runtimes
 * compile a tool's schema once per schema object and cache it, so a fresh tool per run would
 * time the schema compiler (ajv for rxagent, pi-schema for the reference) instead of the loop.
 */
const tools = new Map();
function toolOf(name) {
  if (!tools.has(name)) tools.set(name, instantTool());
  return tools.get(name);
}

/**
 * The low-level loop, one run. Returns what was seen, for the cross-check.
 * @param {"reference" | "rxagent"} name
 * @param {object} lib the runtime's module
 * @param {"pi" | "observable"} form provider form
 */
export async function runLoop(name, lib, workload, size, form) {
  if (PEER_MODULES[name]) return checked(name, workload, size, await lib.runLoop(scriptFor(workload, size), size));
  await prepareForm(form);
  const runs0 = toolRuns.count;
  const streamFn = scriptedStreamFn(scriptFor(workload, size), form);
  const prompts = [userMessage("go")];
  const tools = [toolOf(name)];
  let events = 0;
  let end;
  if (name === "reference") {
    const stream = lib.agentLoop(prompts, { systemPrompt: "", messages: [], tools }, { model: MODEL, convertToLlm: referenceConvertToLlm, toolExecution: "parallel" }, undefined, streamFn);
    for await (const event of stream) {
      events++;
      if (event.type === "agent_end") end = event;
    }
  } else {
    await new Promise((resolve, reject) => {
      lib.agentLoop(prompts, { messages: [], tools }, { model: MODEL, toolExecution: "parallel" }, undefined, streamFn).subscribe({
        next: (event) => {
          events++;
          if (event.type === "agent_end") end = event;
        },
        error: reject,
        complete: resolve,
      });
    });
  }
  const messages = end?.messages ?? [];
  const work = { requests: streamFn.requests(), toolExecutions: toolRuns.count - runs0, toolResults: messages.filter((m) => m.role === "toolResult").length, finalTextLength: finalTextLength(messages) };
  return checked(name, workload, size, { events, messages: end?.messages.length ?? -1, requests: streamFn.requests(), stopReason: end?.messages.at(-1)?.stopReason, work, kept: end });
}

/** The `Agent` class with one counting listener, one prompt. */
export async function runAgent(name, lib, workload, size, form) {
  if (PEER_MODULES[name]) return checked(name, workload, size, await lib.runAgent(scriptFor(workload, size), size));
  await prepareForm(form);
  const runs0 = toolRuns.count;
  const streamFn = scriptedStreamFn(scriptFor(workload, size), form);
  const agent = new lib.Agent({ initialState: { model: MODEL, tools: [toolOf(name)], systemPrompt: "You are a benchmark." }, streamFn });
  let events = 0;
  // When each turn ended (one clock read per turn, the same for both runtimes): the per-turn
  // cost early and late in one run (SPEC L4b), without the noise between separate runs.
  const turnEnds = new Float64Array(size + 2);
  let turns = 0;
  agent.subscribe((event) => {
    events++;
    if (event.type === "turn_end") turnEnds[turns++] = performance.now();
  });
  await agent.prompt("go");
  const messages = agent.state.messages;
  const work = { requests: streamFn.requests(), toolExecutions: toolRuns.count - runs0, toolResults: messages.filter((m) => m.role === "toolResult").length, finalTextLength: finalTextLength(messages) };
  return checked(name, workload, size, { events, messages: messages.length, requests: streamFn.requests(), stopReason: messages.at(-1)?.stopReason, work, kept: agent, turnEnds: turnEnds.subarray(0, turns) });
}

/** What each (workload, size) asks for: computed once per process from the script. */
const expected = new Map();
/**
 * Every run of every runtime does the work its script asks for, or the run fails here, loudly:
 * the same provider requests, one execution per tool call, one tool result per call in what the
 * runtime keeps, and the final answer's full text.
 */
function checked(name, workload, size, outcome) {
  const key = `${workload}:${size}`;
  if (!expected.has(key)) expected.set(key, expectedWork(scriptFor(workload, size)));
  const want = expected.get(key);
  const got = outcome.work;
  for (const field of Object.keys(want)) {
    if (got?.[field] !== want[field]) throw new Error(`${name} ${workload} ${size}: did not do the script's work: ${field} ${got?.[field]}, expected ${want[field]} (${JSON.stringify(got)} vs ${JSON.stringify(want)})`);
  }
  return outcome;
}
