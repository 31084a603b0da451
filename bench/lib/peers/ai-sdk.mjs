/**
 * Peer: Vercel AI SDK 7 (`ai`), on a hand-written in-memory `LanguageModelV4` (the provider spec
 * of `@ai-sdk/provider`, as its dist/index.d.ts declares it).
 *
 * Not `MockLanguageModelV4` (ai/test): it records every call's options (the whole prompt of
 * every step) for the test to inspect, so a long run would keep N prompts of up to N messages:
 * the mock's memory, not the SDK's. The model here keeps nothing but a request counter.
 *
 * - Loop workloads: `streamText({ model, prompt, tools, stopWhen: isStepCount(…) })`, its
 *   `stream` read to the end by a consumer that counts parts.
 * - Long run: `new ToolLoopAgent({ model, instructions, tools, stopWhen })` (the SDK's agent
 *   class), `agent.stream({ prompt })`, the same counting consumer; a turn ends at each
 *   `finish-step` part.
 * - Tool: `tool({ inputSchema: z.object({ i: z.number() }), execute })`: the SDK validates each
 *   call's input with the zod schema (rxagent and the reference: their JSON Schema validators).
 *
 * The provider plays the same scripts as the others' (lib/scenarios.mjs), as V4 stream parts
 * (stream-start, response-metadata, text-start/-delta/-end, tool-input-start/-delta/-end and
 * tool-call per call, finish), through a ReadableStream fed in batches of EVENTS_PER_READ parts
 * per macrotask. Any `error` or `tool-error` part fails the run.
 */
import { EVENTS_PER_READ, TEXT_DELTA, toolAnswer, toolRuns } from "../scenarios.mjs";

let sdk;
let tools;
export async function load() {
  const [ai, { z }] = await Promise.all([import("ai"), import("zod")]);
  sdk = ai;
  // One tool set per process, as an app defines its tools once.
  tools = {
    echo: ai.tool({
      description: "Returns its input at once.",
      inputSchema: z.object({ i: z.number() }),
      execute: async ({ i }) => {
        toolRuns.count++;
        return toolAnswer(i);
      },
    }),
  };
}

const ZERO_USAGE = Object.freeze({
  inputTokens: Object.freeze({ total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }),
  outputTokens: Object.freeze({ total: 0, text: 0, reasoning: 0 }),
});

/** One response as LanguageModelV4StreamPart objects. */
function* v4Parts(plan) {
  yield { type: "stream-start", warnings: [] };
  yield { type: "response-metadata", id: `resp_${plan.turn}`, modelId: "bench-1", timestamp: new Date() };
  if (plan.textDeltas > 0) {
    const id = `text_${plan.turn}`;
    yield { type: "text-start", id };
    for (let i = 0; i < plan.textDeltas; i++) yield { type: "text-delta", id, delta: TEXT_DELTA };
    yield { type: "text-end", id };
  }
  for (let c = 0; c < plan.toolCalls.length; c++) {
    const { name, args } = plan.toolCalls[c];
    const id = `call_${plan.turn}_${c}`;
    const input = JSON.stringify(args);
    yield { type: "tool-input-start", id, toolName: name };
    yield { type: "tool-input-delta", id, delta: input };
    yield { type: "tool-input-end", id };
    yield { type: "tool-call", toolCallId: id, toolName: name, input };
  }
  const calls = plan.toolCalls.length > 0;
  yield { type: "finish", usage: ZERO_USAGE, finishReason: { unified: calls ? "tool-calls" : "stop", raw: calls ? "tool_calls" : "stop" } };
}

/** A ReadableStream over `parts`, filled batch by batch as a streaming HTTP body would be. */
function partStream(parts) {
  let timer;
  return new ReadableStream({
    start(controller) {
      const pump = () => {
        for (let i = 0; i < EVENTS_PER_READ; i++) {
          const next = parts.next();
          if (next.done) return controller.close();
          controller.enqueue(next.value);
        }
        timer = setImmediate(pump);
      };
      pump();
    },
    cancel() {
      clearImmediate(timer);
    },
  });
}

/** The in-memory LanguageModelV4: `script(n)` is the n-th response; nothing of the request is kept. */
class ScriptedLanguageModel {
  specificationVersion = "v4";
  provider = "bench";
  modelId = "bench-1";
  supportedUrls = {};
  requests = 0;
  constructor(script) {
    this.script = script;
  }
  async doStream() {
    return { stream: partStream(v4Parts(this.script(++this.requests))) };
  }
  async doGenerate() {
    throw new Error("the benchmark streams: doGenerate is not scripted");
  }
}

/** Reads a StreamTextResult's `stream` to the end with a counting consumer. */
async function consume(result, turnEnds) {
  let events = 0;
  let turns = 0;
  for await (const part of result.stream) {
    events++;
    if (part.type === "finish-step") {
      if (turnEnds) turnEnds[turns++] = performance.now();
    } else if (part.type === "error" || part.type === "tool-error") {
      throw new Error(`ai-sdk: ${part.type} part: ${part.error?.message ?? part.error}`);
    }
  }
  return { events, turns };
}

async function outcome(model, result, events) {
  const [messages, text, finishReason] = await Promise.all([result.responseMessages, result.text, result.finishReason]);
  let toolResults = 0;
  for (const m of messages) if (m.role === "tool") for (const p of m.content) if (p.type === "tool-result") toolResults++;
  return {
    events,
    messages: messages.length,
    requests: model.requests,
    stopReason: finishReason,
    work: { requests: model.requests, toolExecutions: undefined, toolResults, finalTextLength: text.length },
    kept: messages,
  };
}

/** The stop condition never ends a run here: each script ends with a response without tool calls. */
const stepLimit = (size) => sdk.isStepCount(size + 2);

export async function runLoop(script, size) {
  const runs0 = toolRuns.count;
  const model = new ScriptedLanguageModel(script);
  const result = sdk.streamText({ model, prompt: "go", tools, stopWhen: stepLimit(size) });
  const { events } = await consume(result);
  const out = await outcome(model, result, events);
  out.work.toolExecutions = toolRuns.count - runs0;
  return out;
}

export async function runAgent(script, size) {
  const runs0 = toolRuns.count;
  const model = new ScriptedLanguageModel(script);
  const agent = new sdk.ToolLoopAgent({ model, instructions: "You are a benchmark.", tools, stopWhen: stepLimit(size) });
  const turnEnds = new Float64Array(size + 2);
  const result = await agent.stream({ prompt: "go" });
  const { events, turns } = await consume(result, turnEnds);
  const out = await outcome(model, result, events);
  out.work.toolExecutions = toolRuns.count - runs0;
  out.turnEnds = turnEnds.subarray(0, turns);
  return out;
}
