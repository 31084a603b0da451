/**
 * What one AG-UI request asks of an agent, decided before anything runs: answer the approvals a
 * run waits for (a `resume`), or start a run on the conversation the client sent. Each refusal is
 * a status and a sentence for the client.
 *
 * @module
 */
import type { Agent } from "../agent/agent.js";
import type { AgentLike } from "../agent/agent-like.js";
import type { ToolApprovalDecision } from "../model/tool-types.js";
import type { AgentMessage } from "../model/types.js";
import { getCurrentSystemMessage } from "../model/transcript.js";
import { fromAgUiMessages } from "./ag-ui-messages.js";
import type { AgUiResumeEntry, RunAgentInput } from "./ag-ui-types.js";

/** A request the handler refuses: the status and the client's sentence. */
export interface Refusal {
  status: 400 | 409;
  error: string;
}

/** What to do: answer waiting calls, or start a run (with the transcript to seed, when there is one). */
export type RunPlan =
  | { kind: "resume"; answers: { toolCallId: string; decision: ToolApprovalDecision }[] }
  | { kind: "prompt"; transcript: AgentMessage[] | undefined; message: AgentMessage }
  | { kind: "continue"; transcript: AgentMessage[] };

/** Whose transcript a run starts from: the client's messages (default), or the agent's own. */
export type AgUiHistory = "client" | "server";

/** An `Agent`, which can be given a transcript and continued; an `AgentLike` elsewhere cannot. */
export function isSeedable(agent: AgentLike): agent is Agent {
  return typeof (agent as Partial<Agent>).continue === "function" && typeof (agent as Partial<Agent>).reset === "function";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A resume entry as the answer to the call it names. */
function decision(entry: AgUiResumeEntry): ToolApprovalDecision | string {
  if (entry.status === "cancelled") return { approved: false, reason: "The user cancelled the approval" };
  const payload = entry.payload;
  if (!isRecord(payload) || typeof payload.approved !== "boolean") return `resume "${entry.interruptId.slice(0, 100)}": payload must be { approved: boolean, reason?: string, args?: object }`;
  if (payload.reason !== undefined && typeof payload.reason !== "string") return `resume "${entry.interruptId.slice(0, 100)}": reason must be a string`;
  if (payload.args !== undefined && !isRecord(payload.args)) return `resume "${entry.interruptId.slice(0, 100)}": args must be an object`;
  if (payload.approved) return payload.args === undefined ? { approved: true } : { approved: true, args: payload.args };
  return payload.reason === undefined ? { approved: false } : { approved: false, reason: payload.reason };
}

function planResume(agent: AgentLike, resume: AgUiResumeEntry[]): RunPlan | Refusal {
  const waiting = new Set(agent.state.pendingApprovals.map((request) => request.toolCallId));
  if (waiting.size === 0) return { status: 409, error: "Nothing on this thread waits for an answer" };
  const answers: { toolCallId: string; decision: ToolApprovalDecision }[] = [];
  const answered = new Set<string>();
  for (const entry of resume) {
    if (answered.has(entry.interruptId)) return { status: 400, error: `resume answers "${entry.interruptId.slice(0, 100)}" twice` };
    answered.add(entry.interruptId);
    if (!waiting.has(entry.interruptId)) return { status: 409, error: `No tool call "${entry.interruptId.slice(0, 100)}" waits for approval` };
    const answer = decision(entry);
    if (typeof answer === "string") return { status: 400, error: answer };
    answers.push({ toolCallId: entry.interruptId, decision: answer });
  }
  return { kind: "resume", answers };
}

/**
 * Decides what a request does. With `resume`: answer the calls it names, which must wait on the
 * agent (409 otherwise). Without: the agent must be idle (409); with the `client` history and an
 * `Agent`, its transcript becomes the server's system prompt and the client's conversation, and
 * the run prompts with the last user message or continues after the last tool result; with the
 * `server` history (or an agent that is not an `Agent`), the run prompts with the last message,
 * which must be the user's.
 *
 * @example
 * ```ts
 * const plan = planRun(agent, input, "client", Date.now());
 * if ("status" in plan) return json(plan.status, { error: plan.error });
 * ```
 */
export function planRun(agent: AgentLike, input: RunAgentInput, history: AgUiHistory, timestamp: number): RunPlan | Refusal {
  if (input.resume !== undefined && input.resume.length > 0) return planResume(agent, input.resume);
  if (agent.state.isStreaming || agent.state.pendingApprovals.length > 0) {
    return { status: 409, error: "A run is already going on this thread (answer its interrupts with resume, or wait for it)" };
  }
  const conversation = fromAgUiMessages(input.messages, agent.state.model, timestamp);
  if (typeof conversation === "string") return { status: 400, error: conversation };
  const last = conversation[conversation.length - 1] as { role?: unknown } | undefined;
  if (history === "client" && isSeedable(agent)) {
    const prompt = getCurrentSystemMessage(agent.state.messages);
    const baseline: AgentMessage[] = prompt ? [prompt] : [];
    if (last?.role === "user") return { kind: "prompt", transcript: [...baseline, ...conversation.slice(0, -1)], message: conversation[conversation.length - 1]! };
    if (last?.role === "toolResult") return { kind: "continue", transcript: [...baseline, ...conversation] };
    return { status: 400, error: "The conversation must end with a user message or a tool result" };
  }
  if (last?.role !== "user") return { status: 400, error: "The conversation must end with a user message" };
  return { kind: "prompt", transcript: undefined, message: conversation[conversation.length - 1]! };
}
