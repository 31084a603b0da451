import type { Observable } from "rxjs";
import { createInitialSystemMessage } from "../../src/index.js";
import { emptyUsage } from "../../src/model/assistant-message.js";
import type { AgentContext, AgentEvent, AgentMessage, AgentTool, AgentToolResult, AssistantMessage, AssistantMessageEvent, Model, UserMessage } from "../../src/index.js";
import type { ToolCallEnvironment } from "../../src/tools/prepare-tool-call.js";

export const model: Model = { id: "faux-1", api: "faux", provider: "faux" };

export function user(text: string, timestamp = 0): UserMessage {
  return { role: "user", content: text, timestamp };
}

export function textResult(text: string, extra: Partial<AgentToolResult> = {}): AgentToolResult {
  return { content: [{ type: "text", text }], ...extra };
}

/** A tool whose execute is given. Parameters accept anything unless a schema is passed. */
export function tool(name: string, execute: AgentTool["execute"], parameters: object = { type: "object" }, extra: Partial<AgentTool> = {}): AgentTool {
  return { name, label: name, description: `${name} tool`, parameters, execute, ...extra };
}

/** Collects a synchronous run's events. */
export function collectSync(events$: Observable<AgentEvent>): AgentEvent[] {
  const events: AgentEvent[] = [];
  let done = false;
  events$.subscribe({ next: (e) => events.push(e), complete: () => (done = true), error: (e) => { throw e; } });
  if (!done) throw new Error("run did not complete synchronously");
  return events;
}

export function types(events: readonly AgentEvent[]): string[] {
  return events.map((e) => e.type);
}

export function roles(messages: readonly AgentMessage[]): string[] {
  return messages.map((m) => (m as { role: string }).role);
}

/** The messages of the `message_end` events, in order: what the run committed. */
export function committed(events: readonly AgentEvent[]): AgentMessage[] {
  return events.flatMap((e) => (e.type === "message_end" ? [e.message] : []));
}

/** The `agent_end` event of a run (there must be exactly one). */
export function agentEnd(events: readonly AgentEvent[]): Extract<AgentEvent, { type: "agent_end" }> {
  const ends = events.filter((e): e is Extract<AgentEvent, { type: "agent_end" }> => e.type === "agent_end");
  if (ends.length !== 1) throw new Error(`expected one agent_end, got ${ends.length}`);
  return ends[0]!;
}

/** The text of a message's (or a tool result's) content, whatever its shape. */
export function textOf(message: AgentMessage | { content?: unknown } | undefined): string {
  const content = (message as { content?: unknown } | undefined)?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((block: { type: string; text?: string }) => (block.type === "text" ? block.text : "")).join("");
}

/** An assistant message, as a provider's final `done` message would carry it. */
export function assistantMessage(content: AssistantMessage["content"] | string, stopReason: AssistantMessage["stopReason"] = "stop", extra: Partial<AssistantMessage> = {}): AssistantMessage {
  return {
    role: "assistant",
    content: typeof content === "string" ? [{ type: "text", text: content }] : content,
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: emptyUsage(),
    stopReason,
    timestamp: 0,
    ...extra,
  };
}

/** A minimal well-formed protocol stream for `message`: `start`, one start/end per block, `done` (or `error`). */
export function protocolEvents(message: AssistantMessage): AssistantMessageEvent[] {
  const events: AssistantMessageEvent[] = [{ type: "start", partial: { ...message, content: [] } }];
  message.content.forEach((block, index) => {
    const partial = { ...message, content: message.content.slice(0, index + 1) };
    if (block.type === "text") {
      events.push({ type: "text_start", contentIndex: index, partial }, { type: "text_delta", contentIndex: index, delta: block.text, partial }, { type: "text_end", contentIndex: index, content: block.text, partial });
    } else if (block.type === "thinking") {
      events.push({ type: "thinking_start", contentIndex: index, partial }, { type: "thinking_end", contentIndex: index, content: block.thinking, partial });
    } else {
      events.push({ type: "toolcall_start", contentIndex: index, partial }, { type: "toolcall_end", contentIndex: index, toolCall: block, partial });
    }
  });
  if (message.stopReason === "error" || message.stopReason === "aborted") events.push({ type: "error", reason: message.stopReason, error: message });
  else events.push({ type: "done", reason: message.stopReason, message });
  return events;
}

/**
 * A context whose transcript already declares `tools` in its leading system message, so the
 * loop has no tool change to announce (SPEC M5) and a run's events start with the prompt.
 */
export function contextWith(tools: AgentTool[], messages: AgentMessage[] = []): AgentContext {
  return { messages: [createInitialSystemMessage("You are a test agent.", tools)!, ...messages], tools };
}

/**
 * The environment of one message's tool calls for unit tests of the pipeline's stages: no tools,
 * a signal nobody aborts, a clock at 0, a validator that accepts anything; `extra` overrides.
 */
export function toolEnvironment(extra: Partial<ToolCallEnvironment> = {}): ToolCallEnvironment {
  return {
    tools: [],
    context: { messages: [] },
    assistantMessage: assistantMessage("", "toolUse"),
    signal: new AbortController().signal,
    now: () => 0,
    validator: { name: "none", compile: () => () => undefined },
    ...extra,
  };
}
