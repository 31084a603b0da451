/**
 * How each runtime runs a workload. Both get the same scripts, the same tools and a listener
 * (or consumer) that only counts events.
 */
import { pathToFileURL } from "node:url";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { existsSync } from "node:fs";
import { instantTool, longRunScript, MODEL, prepareForm, referenceConvertToLlm, scriptedStreamFn, streamingScript, toolHeavyScript, userMessage } from "./scenarios.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
/**
 * rxagent as built by `npm run build` at the root (tsc → dist/). RXAGENT_DIST=<dir> points at
 * another build (for before/after comparisons of a change).
 */
export const RXAGENT_ENTRY = path.resolve(process.env.RXAGENT_DIST ?? path.resolve(here, "../../dist"), "index.js");

export async function loadRuntime(name) {
  if (name === "reference") return import("@earendil-works/pi-agent-core");
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
  await prepareForm(form);
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
  return { events, messages: end?.messages.length ?? -1, requests: streamFn.requests(), stopReason: end?.messages.at(-1)?.stopReason, kept: end };
}

/** The `Agent` class with one counting listener, one prompt. */
export async function runAgent(name, lib, workload, size, form) {
  await prepareForm(form);
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
  return { events, messages: messages.length, requests: streamFn.requests(), stopReason: messages.at(-1)?.stopReason, kept: agent, turnEnds: turnEnds.subarray(0, turns) };
}
