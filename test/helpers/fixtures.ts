import type { Observable } from "rxjs";
import type { AgentEvent, AgentMessage, AgentTool, AgentToolResult, Model, UserMessage } from "../../src/index.js";

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
