/**
 * The rich session scenario of the crash tests: parallel tools, a `replay: "never"` tool with a
 * side effect counted outside the agent, a `replay: "safe"` tool, and steering and follow-up
 * queued while the first batch runs. The provider answers from the transcript (how many
 * assistant messages it holds), so a resumed process asking again gets the same reply.
 */
import { Agent, type AgentMessage, type AgentTool, type Message, type StreamFn } from "../../src/index.js";
import { fauxProvider, fauxToolCall, type FauxReply } from "../../src/testing/index.js";
import type { SessionStore } from "../../src/session/session-store.js";
import { agentSession } from "../../src/session/agent-session.js";
import { textOf } from "../helpers/fixtures.js";

/** Where the side effects of `charge` are counted: survives the agent (a file, in the child process). */
export interface EffectLog {
  record(toolCallId: string): void;
  /** Told of every `lookup` run (it has no effect; counted to see replays). */
  read?(toolCallId: string): void;
}

const replies: FauxReply[] = [
  { content: [fauxToolCall("charge", { amount: 5 }, "charge-1"), fauxToolCall("lookup", { key: "a" }, "lookup-1"), fauxToolCall("note", { text: "n1" }, "note-1")] },
  { content: [fauxToolCall("lookup", { key: "b" }, "lookup-2"), fauxToolCall("charge", { amount: 7 }, "charge-2")] },
  { content: "done with the tools" },
];

const assistantsIn = (messages: readonly Message[]): number => messages.filter((m) => m.role === "assistant").length;

/** The scripted provider: reply N to a transcript with N assistant messages, then an acknowledgement. */
export function scenarioProvider(): StreamFn {
  const reply = (request: { messages: Message[] }): FauxReply => {
    const n = assistantsIn(request.messages);
    return replies[n] ?? { content: `ack ${n}` };
  };
  return fauxProvider(Array.from({ length: 200 }, () => reply));
}

/** The tools; `wait` makes each call take that long (the child process), synchronous without it. */
export function scenarioTools(effects: EffectLog, wait?: (ms: number) => Promise<void>): AgentTool[] {
  const answer = <T>(value: T, ms: number): T | Promise<T> => (wait ? wait(ms).then(() => value) : value);
  return [
    {
      name: "charge",
      label: "Charge",
      description: "Charges the card (a side effect: never replayed).",
      parameters: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] },
      replay: "never",
      execute: (id, params: { amount: number }) => {
        effects.record(id);
        return answer({ content: [{ type: "text", text: `charged ${params.amount}` }] }, 30);
      },
    },
    {
      name: "lookup",
      label: "Lookup",
      description: "Reads a value (safe to run again).",
      parameters: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
      replay: "safe",
      execute: (id, params: { key: string }) => {
        effects.read?.(id);
        return answer({ content: [{ type: "text", text: `value of ${params.key}` }] }, 10);
      },
    },
    {
      name: "note",
      label: "Note",
      description: "Notes something (no replay policy: never).",
      parameters: { type: "object", properties: { text: { type: "string" } } },
      execute: (_id, params: { text?: string }) => answer({ content: [{ type: "text", text: `noted ${params.text ?? ""}` }] }, 20),
    },
  ];
}

/** The scenario's Agent on `store`. */
export function scenarioAgent(store: SessionStore, id: string, effects: EffectLog, options: { owner?: string; wait?: (ms: number) => Promise<void> } = {}): Agent {
  const streamFn = scenarioProvider();
  return new Agent({
    initialState: { systemPrompt: "You run the crash scenario.", model: { id: "faux-1", api: "faux", provider: "faux" }, tools: scenarioTools(effects, options.wait) },
    streamFn,
    session: agentSession({ store, id, owner: options.owner ?? "scenario" }),
  });
}

/** The first process's part: queue steering and follow-up when the first charge starts, then prompt. */
export function driveFresh(agent: Agent): Promise<void> {
  let queued = false;
  agent.subscribe((event) => {
    if (!queued && event.type === "tool_execution_start" && event.toolCallId === "charge-1") {
      queued = true;
      agent.steer("steer-1");
      agent.followUp("follow-1");
    }
  });
  return agent.prompt("start");
}

/** The texts of the user messages, for counting deliveries. */
export function userTexts(messages: readonly AgentMessage[]): string[] {
  return messages.filter((m) => (m as Message).role === "user").map(textOf);
}
