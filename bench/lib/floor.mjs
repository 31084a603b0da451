/**
 * The floor: the least a runtime can do for the observable work of each workload, in plain code
 * (no framework, no Observable, no async iterator, no validation, no copies).
 *
 * - Provider: the same scripts (lib/scenarios.mjs), played as the smallest protocol that still
 *   delivers every delta: one part object per text delta and per tool call (its arguments as
 *   JSON text, as a wire protocol carries them), in batches of EVENTS_PER_READ parts per
 *   macrotask (setImmediate between batches), like every other runtime's provider here.
 * - Loop: per part, one event object created, the assistant text accumulated into the message
 *   being built, one listener call; per tool call, its arguments parsed, the same async tool as
 *   rxagent's and the reference's executed (all calls of a turn in parallel), a tool-result
 *   message built and kept, one listener call at its start and one at its end; per turn, start
 *   and end events; the transcript kept to the end of the run.
 *
 * Not done, on purpose: argument validation, message copies per update, cancellation, hooks,
 * error handling. So it is a floor for what the other runtimes add, not a runtime.
 */
import { EVENTS_PER_READ, instantTool, TEXT_DELTA, toolRuns, userMessage } from "./scenarios.mjs";

let tool;
export async function load() {
  tool = instantTool();
}

/** The floor's provider: one response's parts, minimal objects. */
function* parts(plan) {
  for (let i = 0; i < plan.textDeltas; i++) yield { type: "text", delta: TEXT_DELTA };
  for (let c = 0; c < plan.toolCalls.length; c++) {
    const { name, args } = plan.toolCalls[c];
    yield { type: "toolCall", id: `call_${plan.turn}_${c}`, name, input: JSON.stringify(args) };
  }
}

/** Delivers `source`'s parts to `onPart`, batch by batch; resolves after the last. */
function play(source, onPart) {
  return new Promise((resolve) => {
    const pump = () => {
      for (let i = 0; i < EVENTS_PER_READ; i++) {
        const next = source.next();
        if (next.done) return resolve();
        onPart(next.value);
      }
      setImmediate(pump);
    };
    pump();
  });
}

async function run(script, listener) {
  const runs0 = toolRuns.count;
  const messages = [userMessage("go")];
  let requests = 0;
  listener({ type: "agent_start" });
  for (;;) {
    const plan = script(++requests);
    listener({ type: "turn_start" });
    const textBlock = { type: "text", text: "" };
    const message = { role: "assistant", content: [], stopReason: "stop", timestamp: Date.now() };
    const calls = [];
    listener({ type: "message_start", message });
    await play(parts(plan), (part) => {
      if (part.type === "text") {
        if (textBlock.text === "") message.content.push(textBlock);
        textBlock.text += part.delta;
        listener({ type: "message_update", message, delta: part.delta });
      } else {
        const call = { type: "toolCall", id: part.id, name: part.name, arguments: JSON.parse(part.input) };
        message.content.push(call);
        calls.push(call);
        listener({ type: "message_update", message, toolCall: call });
      }
    });
    if (calls.length > 0) message.stopReason = "toolUse";
    messages.push(message);
    listener({ type: "message_end", message });
    if (calls.length === 0) break;
    const results = await Promise.all(
      calls.map(async (call) => {
        listener({ type: "tool_execution_start", toolCallId: call.id, toolName: call.name, args: call.arguments });
        const result = await tool.execute(call.id, call.arguments);
        const toolResult = { role: "toolResult", toolCallId: call.id, toolName: call.name, content: result.content, isError: false, timestamp: Date.now() };
        listener({ type: "tool_execution_end", toolCallId: call.id, toolName: call.name, result, isError: false });
        return toolResult;
      }),
    );
    for (const toolResult of results) {
      messages.push(toolResult);
      listener({ type: "message_end", message: toolResult });
    }
    listener({ type: "turn_end", message, toolResults: results });
  }
  listener({ type: "turn_end", message: messages.at(-1), toolResults: [] });
  listener({ type: "agent_end", messages });
  const last = messages.at(-1);
  const finalTextLength = last.content.reduce((n, block) => n + (block.type === "text" ? block.text.length : 0), 0);
  return {
    requests,
    messages,
    work: { requests, toolExecutions: toolRuns.count - runs0, toolResults: messages.filter((m) => m.role === "toolResult").length, finalTextLength },
  };
}

/** The loop workloads: a listener that counts events. */
export async function runLoop(script) {
  let events = 0;
  const out = await run(script, () => {
    events++;
  });
  return { events, messages: out.messages.length, requests: out.requests, stopReason: out.messages.at(-1).stopReason, work: out.work, kept: out.messages };
}

/** The long run: the same loop, a listener that counts events and reads the clock at each turn's end. */
export async function runAgent(script, size) {
  let events = 0;
  const turnEnds = new Float64Array(size + 2);
  let turns = 0;
  const out = await run(script, (event) => {
    events++;
    if (event.type === "turn_end") turnEnds[turns++] = performance.now();
  });
  return { events, messages: out.messages.length, requests: out.requests, stopReason: out.messages.at(-1).stopReason, work: out.work, kept: out.messages, turnEnds: turnEnds.subarray(0, turns) };
}
