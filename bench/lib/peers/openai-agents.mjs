/**
 * Peer: OpenAI Agents JS (`@openai/agents` 0.20.0; its runtime, `@openai/agents-core`, which
 * `@openai/agents` re-exports with the OpenAI provider added), on a hand-written in-memory
 * `Model` (the interface in agents-core's dist/model.d.ts), handed to a `Runner` through a
 * `ModelProvider`.
 *
 * Not the SDK's `ScriptedModel` (agents-core/testing): it records every call's request (the
 * whole input of every turn) for the test to inspect. The model here keeps a request counter.
 *
 * - Every workload: `new Agent({ name, instructions, tools, … })` and
 *   `new Runner({ modelProvider, tracingDisabled: true }).run(agent, "go", { stream: true, maxTurns: null })`,
 *   the streamed result read to the end by a consumer that counts its events, then `completed`.
 *   The SDK has one loop (the Runner), so the low-level loop workloads and the long run both use
 *   it. A turn ends at each `response_done` (the raw model event the runner forwards).
 * - Tool: `tool({ name, parameters: z.object({ i: z.number() }), execute })`: the SDK validates
 *   each call's arguments with the zod schema. All calls of a turn run concurrently (its default).
 * - Tracing off (`tracingDisabled`, and `setTracingDisabled(true)`): with it on, the SDK would
 *   export spans to OpenAI's servers.
 *
 * The provider plays the same scripts as the others' (lib/scenarios.mjs) in this SDK's model
 * stream protocol: `response_started`, one `output_text_delta` per delta, then `response_done`
 * carrying the whole response (the assistant message's text and a `function_call` item per
 * call, arguments as JSON text), as its OpenAI Responses provider emits them (that one also
 * forwards each raw server event, which is left out here), from an async generator that yields
 * to the event loop (setImmediate) after every EVENTS_PER_READ events.
 */
import { EVENTS_PER_READ, TEXT_DELTA, toolAnswer, toolRuns } from "../scenarios.mjs";

let sdk;
let echo;
export async function load() {
  const [core, { z }] = await Promise.all([import("@openai/agents-core"), import("zod")]);
  sdk = core;
  core.setTracingDisabled(true);
  // One tool per process, as an app defines its tools once.
  echo = core.tool({
    name: "echo",
    description: "Returns its input at once.",
    parameters: z.object({ i: z.number() }),
    execute: async ({ i }) => {
      toolRuns.count++;
      return toolAnswer(i);
    },
  });
}

const ZERO_USAGE = Object.freeze({ requests: 1, inputTokens: 0, outputTokens: 0, totalTokens: 0 });

/** One response as this SDK's model stream events. */
function* modelEvents(plan) {
  yield { type: "response_started" };
  const itemId = `msg_${plan.turn}`;
  let text = "";
  for (let i = 0; i < plan.textDeltas; i++) {
    text += TEXT_DELTA;
    yield { type: "output_text_delta", itemId, delta: TEXT_DELTA };
  }
  const output = [];
  if (plan.textDeltas > 0) output.push({ type: "message", id: itemId, role: "assistant", status: "completed", content: [{ type: "output_text", text }] });
  for (let c = 0; c < plan.toolCalls.length; c++) {
    const { name, args } = plan.toolCalls[c];
    output.push({ type: "function_call", id: `fc_${plan.turn}_${c}`, callId: `call_${plan.turn}_${c}`, name, status: "completed", arguments: JSON.stringify(args) });
  }
  yield { type: "response_done", response: { id: `resp_${plan.turn}`, usage: ZERO_USAGE, output } };
}

/** The in-memory Model: `script(n)` is the n-th response; nothing of the request is kept. */
class ScriptedModel {
  requests = 0;
  constructor(script) {
    this.script = script;
  }
  async getResponse() {
    throw new Error("the benchmark streams: getResponse is not scripted");
  }
  async *getStreamedResponse() {
    let n = 0;
    for (const event of modelEvents(this.script(++this.requests))) {
      yield event;
      if (++n === EVENTS_PER_READ) {
        n = 0;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  }
}

async function run(script, size, turnEnds) {
  const runs0 = toolRuns.count;
  const model = new ScriptedModel(script);
  const agent = new sdk.Agent({ name: "bench", instructions: "You are a benchmark.", tools: [echo] });
  const runner = new sdk.Runner({ modelProvider: { getModel: () => model }, tracingDisabled: true });
  const result = await runner.run(agent, "go", { stream: true, maxTurns: null });
  let events = 0;
  let turns = 0;
  for await (const event of result) {
    events++;
    if (turnEnds && event.type === "raw_model_stream_event" && event.data.type === "response_done") turnEnds[turns++] = performance.now();
  }
  await result.completed;
  if (result.error) throw result.error;
  const items = result.newItems;
  let toolResults = 0;
  for (const item of items) if (item.type === "tool_call_output_item") toolResults++;
  const finalOutput = result.finalOutput;
  if (typeof finalOutput !== "string") throw new Error(`openai-agents: no text final output (${typeof finalOutput})`);
  return {
    events,
    messages: items.length,
    requests: model.requests,
    stopReason: "final_output",
    work: { requests: model.requests, toolExecutions: toolRuns.count - runs0, toolResults, finalTextLength: finalOutput.length },
    kept: result,
    turns,
  };
}

export async function runLoop(script, size) {
  const out = await run(script, size);
  delete out.turns;
  return out;
}

export async function runAgent(script, size) {
  const turnEnds = new Float64Array(size + 2);
  const out = await run(script, size, turnEnds);
  out.turnEnds = turnEnds.subarray(0, out.turns);
  delete out.turns;
  return out;
}
