/**
 * soak: long runs and many Agents, with the heap measured after forced GC.
 *
 *   npm run soak        (= node --expose-gc --import tsx test/soak/soak.ts)
 *
 * 1. 100 000 turns through one Agent run (each turn: a tool call, its Observable tool, the
 *    result), heap sampled every 10 000 turns. The heap may grow with the transcript and
 *    nothing else: after the run the transcript is dropped and the heap must return to the
 *    baseline.
 * 2. 10 000 Agents created, run (a tool turn and a text turn, with a listener, `state$` and
 *    `events$` subscribers) and dropped. Afterwards: every subscription the library opened on our
 *    Observables is closed, no AbortSignal handed out still has a listener, the Agents are
 *    garbage-collected, and the heap is back at its baseline.
 *
 * Exits non-zero when a check fails. Not a vitest file (too slow for every `npm test`).
 */
import { getEventListeners } from "node:events";
import { finalize, Observable, of } from "rxjs";
import { Agent } from "../../src/agent/agent.js";
import type { AgentTool, AssistantMessageEvent, StreamFn } from "../../src/index.js";
import { assistantMessage, model } from "../helpers/fixtures.js";

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error("Run with node --expose-gc (npm run soak).");
  process.exit(2);
}

const MB = 1024 * 1024;
const failures: string[] = [];

async function settleHeap(): Promise<number> {
  for (let i = 0; i < 4; i++) {
    gc!();
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  return process.memoryUsage().heapUsed;
}

const fmt = (bytes: number): string => `${(bytes / MB).toFixed(2)} MB`;

/** A synchronous provider: a tool call for the first `toolTurns` requests, then a text answer. */
function provider(toolTurns: number, signals?: AbortSignal[]): StreamFn {
  let request = 0;
  return (_model, _context, options) => {
    signals?.push(options.signal!);
    const n = request++;
    const final =
      n < toolTurns ? assistantMessage([{ type: "toolCall", id: `call_${n}`, name: "echo", arguments: { n } }], "toolUse") : assistantMessage([{ type: "text", text: "done" }], "stop");
    const events: AssistantMessageEvent[] = [
      { type: "start", partial: { ...final, content: [] } },
      n < toolTurns
        ? { type: "toolcall_end", contentIndex: 0, toolCall: final.content[0] as never, partial: final }
        : { type: "text_end", contentIndex: 0, content: "done", partial: final },
      { type: "done", reason: final.stopReason as "stop" | "toolUse", message: final },
    ];
    return events;
  };
}

/** An Observable tool whose subscriptions are counted. */
function echoTool(counter: { opened: number; closed: number }, signals?: AbortSignal[]): AgentTool {
  return {
    name: "echo",
    label: "echo",
    description: "echo",
    parameters: { type: "object", properties: { n: { type: "number" } } },
    execute: (_id, params, signal) => {
      signals?.push(signal);
      return new Observable<never>((subscriber) => {
        counter.opened++;
        of({ content: [{ type: "text" as const, text: String((params as { n: number }).n) }] }).subscribe(subscriber as never);
      }).pipe(finalize(() => counter.closed++));
    },
  };
}

async function longRun(): Promise<void> {
  const TURNS = 100_000;
  const EVERY = 10_000;
  console.log(`\n1. ${TURNS.toLocaleString("en")} turns through one Agent run (heap after GC every ${EVERY.toLocaleString("en")} turns)`);
  const baseline = await settleHeap();
  const counter = { opened: 0, closed: 0 };
  let agent: Agent | undefined = new Agent({ initialState: { model, tools: [echoTool(counter)] }, streamFn: provider(TURNS - 1) });
  const samples: { turns: number; heap: number; messages: number; ms: number }[] = [];
  let turns = 0;
  const started = performance.now();
  agent.subscribe((event) => {
    if (event.type !== "turn_end") return;
    turns++;
    if (turns % EVERY === 0) {
      gc!();
      samples.push({ turns, heap: process.memoryUsage().heapUsed, messages: agent!.state.messages.length, ms: performance.now() - started });
    }
  });
  await agent.prompt("go");
  const elapsed = performance.now() - started;
  const full = await settleHeap();
  const messages = agent.state.messages.length;
  console.log("   turns    heap used   growth/10k turns   messages   elapsed");
  let previous = baseline;
  for (const s of samples) {
    console.log(`   ${String(s.turns).padStart(7)}  ${fmt(s.heap).padStart(10)}   ${fmt(s.heap - previous).padStart(12)}     ${String(s.messages).padStart(7)}   ${(s.ms / 1000).toFixed(1)} s`);
    previous = s.heap;
  }
  const growths = samples.slice(1).map((s, i) => s.heap - samples[i]!.heap);
  const perTurn = (full - baseline) / turns;
  console.log(`   baseline ${fmt(baseline)}, after the run ${fmt(full)}: ${(perTurn).toFixed(0)} bytes per turn (2 messages per turn), ${(elapsed / turns * 1000).toFixed(1)} µs per turn`);
  if (turns !== TURNS) failures.push(`long run: ${turns} turns instead of ${TURNS}`);
  // system + prompt, then an assistant message and a tool result per tool turn, then the final answer.
  const expected = 2 + 2 * (TURNS - 1) + 1;
  if (messages !== expected) failures.push(`long run: ${messages} messages, expected ${expected}`);
  if (counter.opened !== counter.closed) failures.push(`long run: ${counter.opened - counter.closed} tool subscriptions left open`);
  // Linear growth (the transcript), not accelerating: the last 10k turns cost at most twice the first.
  const [first, last] = [growths[0] ?? 0, growths[growths.length - 1] ?? 0];
  if (growths.length > 2 && last > 2 * Math.max(first, 1 * MB)) failures.push(`long run: heap growth accelerates (${fmt(first)} → ${fmt(last)} per 10k turns)`);
  // Drop the transcript: what remains must be the baseline.
  agent.reset();
  const withoutTranscript = await settleHeap();
  agent = undefined;
  const dropped = await settleHeap();
  console.log(`   transcript dropped (agent.reset()): ${fmt(withoutTranscript)}; agent dropped: ${fmt(dropped)} (baseline ${fmt(baseline)}, difference ${fmt(dropped - baseline)})`);
  console.log(`   tool subscriptions opened ${counter.opened}, closed ${counter.closed}`);
  if (withoutTranscript - baseline > 5 * MB) failures.push(`long run: ${fmt(withoutTranscript - baseline)} above baseline without the transcript`);
}

async function manyAgents(): Promise<void> {
  const AGENTS = 10_000;
  console.log(`\n2. ${AGENTS.toLocaleString("en")} Agents created, run and dropped`);
  const counter = { opened: 0, closed: 0 };
  const signals: AbortSignal[] = [];
  let collected = 0;
  const registry = new FinalizationRegistry<number>(() => collected++);
  const warm = async (n: number): Promise<void> => {
    for (let i = 0; i < n; i++) {
      const agent = new Agent({ initialState: { systemPrompt: "soak", model, tools: [echoTool(counter)] }, streamFn: provider(1) });
      await agent.prompt("warm up");
    }
  };
  await warm(200);
  const baseline = await settleHeap();
  const started = performance.now();
  let stateSubscriptions = 0;
  let listenerCalls = 0;
  for (let i = 0; i < AGENTS; i++) {
    const agent = new Agent({ initialState: { systemPrompt: "soak", model, tools: [echoTool(counter, signals)] }, streamFn: provider(1, signals) });
    registry.register(agent, i);
    const off = agent.subscribe((event, signal) => {
      listenerCalls++;
      if (event.type === "agent_start") signals.push(signal);
    });
    const state = agent.state$.subscribe(() => stateSubscriptions++);
    const events = agent.events$.subscribe();
    await agent.prompt(`hello ${i}`);
    off();
    state.unsubscribe();
    events.unsubscribe();
  }
  const elapsed = performance.now() - started;
  // Every signal handed to the provider, the tools and the listeners has no listener left.
  const retained = signals.filter((signal) => getEventListeners(signal, "abort").length > 0).length;
  const signalCount = signals.length;
  signals.length = 0;
  const after = await settleHeap();
  for (let i = 0; i < 20 && collected < AGENTS; i++) await settleHeap();
  // Keep the registry reachable until here: a collected registry reports nothing.
  registry.unregister(registry);
  console.log(`   ${(elapsed / AGENTS).toFixed(2)} ms per Agent (${listenerCalls} listener calls, ${stateSubscriptions} state$ values)`);
  console.log(`   heap baseline ${fmt(baseline)}, after 10 000 Agents and GC ${fmt(after)} (difference ${fmt(after - baseline)})`);
  console.log(`   Agents garbage-collected: ${collected} of ${AGENTS}`);
  console.log(`   tool subscriptions opened ${counter.opened}, closed ${counter.closed}; AbortSignals with a listener left: ${retained} of ${signalCount}`);
  if (counter.opened !== counter.closed) failures.push(`many agents: ${counter.opened - counter.closed} tool subscriptions left open`);
  if (retained > 0) failures.push(`many agents: ${retained} AbortSignals still have abort listeners`);
  if (collected < AGENTS * 0.99) failures.push(`many agents: only ${collected} of ${AGENTS} Agents were collected`);
  if (after - baseline > 5 * MB) failures.push(`many agents: heap ${fmt(after - baseline)} above baseline`);
}

await longRun();
await manyAgents();
if (failures.length > 0) {
  console.error(`\nSOAK FAILED:\n  - ${failures.join("\n  - ")}`);
  process.exit(1);
}
console.log("\nsoak ok");
