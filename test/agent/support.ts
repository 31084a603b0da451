/**
 * Helpers of the Agent's tests. Self-contained on purpose: the Agent suite does not lean on the
 * loop suite's helpers.
 */
import { map, Observable, type SchedulerLike, timer } from "rxjs";
import { TestScheduler } from "rxjs/testing";
import { expect } from "vitest";
import { Agent, type AgentOptions } from "../../src/agent/agent.js";
import { label as eventLabel } from "../helpers/marbles.js";
import type { AgentEvent, AgentMessage, AgentTool, AgentToolResult, Message, Model, ToolResultMessage, UserMessage } from "../../src/index.js";

export const model: Model = { id: "faux-1", api: "faux", provider: "faux" };

export function user(text: string, timestamp = 0): UserMessage {
  return { role: "user", content: text, timestamp };
}

export function textResult(text: string, extra: Partial<AgentToolResult> = {}): AgentToolResult {
  return { content: [{ type: "text", text }], ...extra };
}

/** A tool whose `execute` is given; its schema accepts any object. */
export function tool(name: string, execute: AgentTool["execute"], extra: Partial<AgentTool> = {}): AgentTool {
  return { name, label: name, description: `${name} tool`, parameters: { type: "object" }, execute, ...extra };
}

/** An Observable tool: `timer(frames)` (on whatever scheduler `timer` defaults to), then its result. */
export function timerTool(name: string, frames: number, text = name): AgentTool {
  return tool(name, () => timer(frames).pipe(map(() => textResult(text))));
}

/** A promise tool that answers after `ms` real milliseconds, honouring the abort signal. */
export function sleepTool(name: string, ms: number, text = name): AgentTool {
  return tool(
    name,
    (_id, _params, signal) =>
      new Promise<AgentToolResult>((resolve, reject) => {
        const handle = setTimeout(() => resolve(textResult(text)), ms);
        signal.addEventListener("abort", () => {
          clearTimeout(handle);
          reject(new Error("aborted"));
        });
      }),
  );
}

/** A promise tool the test finishes itself ({@link heldTool}). */
export interface HeldTool {
  readonly tool: AgentTool;
  /** Resolves when the tool was called. */
  readonly started: Promise<void>;
  /** Answers the call with its text. */
  finish(): void;
}

/**
 * A promise tool that answers when the test calls `finish()` — no clock involved — and rejects
 * with "aborted" when its signal fires first, as {@link sleepTool} does.
 */
export function heldTool(name: string, text = name): HeldTool {
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  let answer: (() => void) | undefined;
  let finished = false;
  const held = tool(
    name,
    (_id, _params, signal) =>
      new Promise<AgentToolResult>((resolve, reject) => {
        answer = () => resolve(textResult(text));
        if (finished) answer();
        signal.addEventListener("abort", () => reject(new Error("aborted")));
        markStarted();
      }),
  );
  return {
    tool: held,
    started,
    finish: () => {
      finished = true;
      answer?.();
    },
  };
}

export function roles(messages: readonly AgentMessage[]): string[] {
  return messages.map((m) => (m as { role: string }).role);
}

/** The text of a message's content, whatever its shape. */
export function textOf(message: AgentMessage | undefined): string {
  const content = (message as { content?: unknown } | undefined)?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((block: { type: string; text?: string }) => (block.type === "text" ? block.text : "")).join("");
}

/** The user texts of a list of messages (what a request carried from the user). */
export function userTexts(messages: readonly AgentMessage[]): string[] {
  return messages.filter((m) => (m as Message).role === "user").map(textOf);
}

export function toolResults(messages: readonly AgentMessage[]): ToolResultMessage[] {
  return messages.filter((m): m is ToolResultMessage => (m as Message).role === "toolResult");
}

/** A short name for an event: `message_end:assistant`, `message_end:user:TEXT`, `tool_execution_start:a`, ... */
export function label(event: AgentEvent): string {
  return eventLabel(event, (message) => (message.role === "user" ? textOf(message) : undefined));
}

/** Records every event an agent's listener sees, with the frame (or ms) of its arrival. */
export function record(agent: Agent, clock?: SchedulerLike): { events: AgentEvent[]; stamped: string[] } {
  const events: AgentEvent[] = [];
  const stamped: string[] = [];
  agent.subscribe((event) => {
    events.push(event);
    if (event.type !== "message_update") stamped.push(`${clock ? clock.now() : 0} ${label(event)}`);
  });
  return { events, stamped };
}

/** A fresh TestScheduler that compares with `toStrictEqual`. */
export function newScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toStrictEqual(expected));
}

/** An Agent with the faux model and the given options. */
export function agentWith(options: AgentOptions): Agent {
  return new Agent({ ...options, initialState: { model, ...options.initialState } });
}

/** The events of `source`, each with the frame it arrived at, as `"<frame> <label>"` lines. */
export function stampedEvents(source: Observable<AgentEvent>, clock: SchedulerLike, into: string[]): Observable<AgentEvent> {
  return new Observable<AgentEvent>((subscriber) =>
    source.subscribe({
      next: (event) => {
        if (event.type !== "message_update") into.push(`${clock.now()} ${label(event)}`);
        subscriber.next(event);
      },
      error: (error) => subscriber.error(error),
      complete: () => subscriber.complete(),
    }),
  );
}

/** The frame of the first stamped line that ends with `suffix`. */
export function frameOf(stamped: readonly string[], suffix: string): number {
  const line = stamped.find((l) => l.endsWith(` ${suffix}`));
  if (!line) throw new Error(`no event "${suffix}" in:\n${stamped.join("\n")}`);
  return Number(line.split(" ")[0]);
}

/** Index of the first stamped line that ends with `suffix`. */
export function indexOf(stamped: readonly string[], suffix: string): number {
  const index = stamped.findIndex((l) => l.endsWith(` ${suffix}`));
  if (index < 0) throw new Error(`no event "${suffix}" in:\n${stamped.join("\n")}`);
  return index;
}
