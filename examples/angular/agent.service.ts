/**
 * An Angular service around an rxagent `Agent`: signals for the template, methods for the
 * buttons.
 *
 * - `state` is `toSignal(agent.state$)`; `messages`, `isStreaming`, `streamingText`,
 *   `errorMessage` are `computed` from it.
 * - `tools` is `toSignal` of a `scan` over `agent.events$`: the live tool panel.
 * - `prompt()`, `steer()`, `followUp()`, `abort()`, `reset()` call the Agent.
 * - When the injector is destroyed, the subscriptions end (`toSignal` uses `DestroyRef`) and
 *   a running run is aborted.
 *
 * Provide it with `provideAgent(options)`. The class has no decorator so that this file
 * type-checks and runs without the Angular compiler; in an app built by the Angular CLI you
 * may add `@Injectable()` and keep the rest.
 */
import { computed, DestroyRef, inject, InjectionToken, type Provider, type Signal } from "@angular/core";
import { toSignal } from "@angular/core/rxjs-interop";
import { scan } from "rxjs";
import { Agent, type AgentEvent, type AgentMessage, type AgentOptions, type AgentStateSnapshot } from "../../src/index.js"; // in your app: from "rxagent"

/** The options of the service's Agent. */
export const AGENT_OPTIONS = new InjectionToken<AgentOptions>("rxagent AgentOptions");

/** One row of the tool panel. */
export interface ToolActivity {
  id: string;
  name: string;
  args: unknown;
  status: "running" | "done" | "error";
  /** 0..1, from `details.progress` of the tool's updates. */
  progress: number;
  /** The latest update's or the result's text. */
  text: string;
}

function textOf(message: AgentMessage | undefined): string {
  const content = (message as { content?: unknown } | undefined)?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((block: { type: string; text?: string }) => (block.type === "text" ? (block.text ?? "") : "")).join("");
}

/** The tool panel as a fold over events: a new run clears it. */
export function toolActivity(rows: ToolActivity[], event: AgentEvent): ToolActivity[] {
  switch (event.type) {
    case "agent_start":
      return [];
    case "tool_execution_start":
      return [...rows, { id: event.toolCallId, name: event.toolName, args: event.args, status: "running", progress: 0, text: "" }];
    case "tool_execution_update": {
      const details = event.partialResult.details as { progress?: number } | undefined;
      const text = textOf({ role: "toolResult", content: event.partialResult.content } as AgentMessage);
      return rows.map((row) => (row.id === event.toolCallId ? { ...row, progress: details?.progress ?? row.progress, text } : row));
    }
    case "tool_execution_end": {
      const text = textOf({ role: "toolResult", content: event.result.content } as AgentMessage);
      return rows.map((row) => (row.id === event.toolCallId ? { ...row, status: event.isError ? "error" : "done", progress: event.isError ? row.progress : 1, text } : row));
    }
    default:
      return rows;
  }
}

/**
 * Wraps one `Agent` for an Angular app.
 *
 * @example
 * ```ts
 * // app.config.ts
 * providers: [provideAgent(() => ({ streamFn: streamProxy({ url: "/api/stream" }), initialState: { model } }))]
 *
 * // chat.component.ts
 * readonly chat = inject(AgentService);
 * // template:
 * // @for (m of chat.messages(); track $index) { <p>{{ m.role }}: …</p> }
 * // @if (chat.isStreaming()) { <p>{{ chat.streamingText() }}</p> <button (click)="chat.abort()">Stop</button> }
 * ```
 */
export class AgentService {
  /** The Agent itself, for anything the service does not wrap. */
  readonly agent = new Agent(inject(AGENT_OPTIONS));

  /** The whole state; `state$` emits at once, so the signal always has a value. */
  readonly state: Signal<AgentStateSnapshot> = toSignal(this.agent.state$, { requireSync: true });
  readonly messages = computed(() => this.state().messages);
  readonly isStreaming = computed(() => this.state().isStreaming);
  /** The text of the message being streamed ("" when none). */
  readonly streamingText = computed(() => textOf(this.state().streamingMessage));
  readonly pendingToolCalls = computed(() => this.state().pendingToolCalls.size);
  readonly errorMessage = computed(() => this.state().errorMessage);
  /** The tool calls of the current (or last) run, with live progress. */
  readonly tools: Signal<ToolActivity[]> = toSignal(this.agent.events$.pipe(scan(toolActivity, [])), { initialValue: [] });

  constructor() {
    inject(DestroyRef).onDestroy(() => this.agent.abort());
  }

  /** Starts a run; resolves when it is over. While a run is active, use `steer` or `followUp`. */
  prompt(text: string): Promise<void> {
    return this.agent.prompt(text);
  }

  /** Sends `text` now if idle, else steers the running agent with it. */
  send(text: string): Promise<void> | void {
    if (this.agent.state.isStreaming) return this.agent.steer(text);
    return this.prompt(text);
  }

  steer(text: string): void {
    this.agent.steer(text);
  }

  followUp(text: string): void {
    this.agent.followUp(text);
  }

  abort(): void {
    this.agent.abort();
  }

  reset(): void {
    this.agent.reset();
  }
}

/** Providers for {@link AgentService}: the Agent's options (or a factory, run in an injection context). */
export function provideAgent(options: AgentOptions | (() => AgentOptions)): Provider[] {
  return [
    { provide: AGENT_OPTIONS, useFactory: typeof options === "function" ? options : () => options },
    { provide: AgentService, useFactory: () => new AgentService() },
  ];
}
