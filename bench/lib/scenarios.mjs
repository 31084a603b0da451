/**
 * The scripted provider output and the instant tools shared by both runtimes.
 *
 * Every workload is a script: a function from the request number to one assistant response.
 * A response is played as pi-ai protocol events the way pi-ai's own providers build them: one
 * `output` message mutated in place, every event's `partial` pointing at it, `done` carrying
 * it. The same generator feeds both runtimes, so both see the very same events.
 *
 * Provider forms:
 * - `piStreamFn`: pi-ai's `AssistantMessageEventStream` (async iterable with `result()`), the
 *   only form the reference accepts, and one rxagent accepts unchanged (SPEC M3).
 * - `observableStreamFn`: a synchronous rxjs Observable, rxagent's native provider form.
 */

/**
 * The provider form's library, imported on first use: the reference's process never loads
 * rxjs, and an rxagent process with the Observable provider never loads pi-ai, so start-up
 * memory reflects each runtime's own dependencies.
 */
const kit = {};
export async function prepareForm(form) {
  if (form === "observable") kit.Observable ??= (await import("rxjs")).Observable;
  else if (form === "pi") kit.createAssistantMessageEventStream ??= (await import("@earendil-works/pi-ai")).createAssistantMessageEventStream;
  // Any other form is a peer's own model protocol (lib/peers/*.mjs) or the floor's plain callbacks:
  // nothing to load here, the peer's module brings what it needs.
}

export const MODEL = Object.freeze({
  id: "bench-1",
  name: "bench",
  api: "bench",
  provider: "bench",
  baseUrl: "",
  reasoning: false,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 1_000_000,
  maxTokens: 100_000,
});

function usage() {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
}

/** Every text delta of every script, for every runtime's provider. */
export const TEXT_DELTA = "abc ";

/**
 * One response as protocol events.
 * @param {{ textDeltas: number, toolCalls: { name: string, args: object }[], turn: number }} plan
 */
export function* responseEvents(plan) {
  const output = { role: "assistant", content: [], api: MODEL.api, provider: MODEL.provider, model: MODEL.id, usage: usage(), stopReason: "stop", timestamp: Date.now() };
  yield { type: "start", partial: output };
  if (plan.textDeltas > 0) {
    const block = { type: "text", text: "" };
    output.content.push(block);
    const index = output.content.length - 1;
    yield { type: "text_start", contentIndex: index, partial: output };
    for (let i = 0; i < plan.textDeltas; i++) {
      const delta = TEXT_DELTA;
      block.text += delta;
      yield { type: "text_delta", contentIndex: index, delta, partial: output };
    }
    yield { type: "text_end", contentIndex: index, content: block.text, partial: output };
  }
  for (let c = 0; c < plan.toolCalls.length; c++) {
    const { name, args } = plan.toolCalls[c];
    const block = { type: "toolCall", id: `call_${plan.turn}_${c}`, name, arguments: {} };
    output.content.push(block);
    const index = output.content.length - 1;
    yield { type: "toolcall_start", contentIndex: index, partial: output };
    const json = JSON.stringify(args);
    block.arguments = args;
    yield { type: "toolcall_delta", contentIndex: index, delta: json, partial: output };
    yield { type: "toolcall_end", contentIndex: index, toolCall: block, partial: output };
  }
  const reason = plan.toolCalls.length > 0 ? "toolUse" : "stop";
  output.stopReason = reason;
  yield { type: "done", reason, message: output };
}

/**
 * Events per network read: a provider delivers at most this many events, then yields to the
 * event loop (setImmediate) before the next batch, as a streaming HTTP response would. Responses
 * of workloads 2 and 3 fit in one batch, so they arrive synchronously; workload 1's 100 000
 * deltas arrive in 100 batches, and neither runtime has to hold the whole response in a queue.
 */
export const EVENTS_PER_READ = Number(process.env.BENCH_EVENTS_PER_READ ?? 1000);

/** pi-ai's stream type, filled the way a provider fills it (events pushed batch by batch, then ended). */
function piStream(events) {
  const stream = kit.createAssistantMessageEventStream();
  const pump = () => {
    for (let i = 0; i < EVENTS_PER_READ; i++) {
      const next = events.next();
      if (next.done) return stream.end();
      stream.push(next.value);
    }
    setImmediate(pump);
  };
  pump();
  return stream;
}

/** rxagent's native provider form: an Observable over the same events, same batches. */
function observableStream(events) {
  return new kit.Observable((subscriber) => {
    let timer;
    const pump = () => {
      for (let i = 0; i < EVENTS_PER_READ; i++) {
        if (subscriber.closed) return;
        const next = events.next();
        if (next.done) return subscriber.complete();
        subscriber.next(next.value);
      }
      timer = setImmediate(pump);
    };
    pump();
    return () => clearImmediate(timer);
  });
}

/**
 * A scripted provider: `script(n)` gives the plan of the n-th request (1-based).
 * @param {(n: number) => object} script
 * @param {"pi" | "observable"} form
 */
export function scriptedStreamFn(script, form) {
  if (!(form === "observable" ? kit.Observable : kit.createAssistantMessageEventStream)) throw new Error(`call prepareForm("${form}") first`);
  let requests = 0;
  const wrap = form === "observable" ? observableStream : piStream;
  const streamFn = () => wrap(responseEvents(script(++requests)));
  streamFn.requests = () => requests;
  return streamFn;
}

/**
 * Tool executions in this process, over every runtime: each runtime's tool bumps it once per
 * execution, and a run's count (after − before) is part of its cross-check, so a runtime that
 * skipped, repeated or failed a call (a validation error is not an execution) fails the run.
 */
export const toolRuns = { count: 0 };

/** An instant tool: resolves at once (same definition for both runtimes). */
export function instantTool(name = "echo") {
  return {
    name,
    label: name,
    description: "Returns its input at once.",
    parameters: { type: "object", properties: { i: { type: "number" } }, required: ["i"] },
    execute: async (_id, params) => {
      toolRuns.count++;
      return { content: [{ type: "text", text: toolAnswer(params.i) }], details: {} };
    },
  };
}

/** The text an instant tool answers for `i`, for every runtime's tool (pi's content block, a peer's string). */
export function toolAnswer(i) {
  return `ok ${i}`;
}

/** The length of the text of the last assistant message in a pi-shaped transcript (-1 when there is none). */
export function finalTextLength(messages) {
  for (let m = messages.length - 1; m >= 0; m--) {
    const message = messages[m];
    if (message.role !== "assistant") continue;
    let length = 0;
    for (const block of message.content) if (block.type === "text") length += block.text.length;
    return length;
  }
  return -1;
}

/** Workload 1: one response of `deltas` text deltas. */
export function streamingScript(deltas) {
  return (n) => ({ turn: n, textDeltas: n === 1 ? deltas : 0, toolCalls: [] });
}

/** Workload 2: `turns` turns of 4 parallel tool calls and 3 text deltas, then a closing text turn. */
export function toolHeavyScript(turns, calls = 4, textDeltas = 3) {
  return (n) =>
    n <= turns
      ? { turn: n, textDeltas, toolCalls: Array.from({ length: calls }, (_, c) => ({ name: "echo", args: { i: n * 10 + c } })) }
      : { turn: n, textDeltas: 1, toolCalls: [] };
}

/** Workload 3: `turns` turns of one tool call each, then a closing text turn. */
export function longRunScript(turns) {
  return (n) => (n <= turns ? { turn: n, textDeltas: 0, toolCalls: [{ name: "echo", args: { i: n } }] } : { turn: n, textDeltas: 1, toolCalls: [] });
}

/**
 * What a run of `script` must do, whatever the runtime: the provider requests (responses played
 * until the first one without tool calls), the tool executions, and the length of the final
 * answer's text. Every run of every runtime is checked against it (lib/runtimes.mjs).
 */
export function expectedWork(script) {
  let requests = 0;
  let toolExecutions = 0;
  for (;;) {
    const plan = script(++requests);
    toolExecutions += plan.toolCalls.length;
    if (plan.toolCalls.length === 0) return { requests, toolExecutions, toolResults: toolExecutions, finalTextLength: plan.textDeltas * TEXT_DELTA.length };
  }
}

export function userMessage(text) {
  return { role: "user", content: [{ type: "text", text }], timestamp: Date.now() };
}

/** The reference's Agent default, which its low-level loop needs passed in explicitly. */
export function referenceConvertToLlm(messages) {
  return messages.filter((m) => m.role === "system" || m.role === "user" || m.role === "assistant" || m.role === "toolResult");
}
