/**
 * An Angular service around an rxagent `Agent`: signals and Observables for the template,
 * methods for the buttons.
 *
 * - `state` is `toSignal(agent.state$)`; `messages`, `isStreaming`, `streamingText`,
 *   `status`, `errorMessage` are `computed` from it.
 * - `tools` is `toSignal(tools$)`, a `scan` over `agent.events$`: the live tool panel.
 * - `streamingText$`, `tools$` and `events$` are plain Observables, for the `async` pipe or
 *   your own `toSignal`.
 * - `prompt()`, `send()`, `steer()`, `followUp()`, `abort()`, `reset()` call the Agent.
 * - When the injector is destroyed, the subscriptions end (`toSignal` uses `DestroyRef`) and
 *   a running run is aborted.
 *
 * Provide it with `provideAgent(options)`. The class has no decorator, so this file also
 * type-checks and runs without the Angular compiler (test/examples/angular.test.ts runs it in
 * a bare injection context); `provideAgent` creates it in a factory, an injection context.
 * In your app you may add `@Injectable()` and keep the rest.
 */
import { computed, DestroyRef, inject, InjectionToken, type Provider, type Signal } from "@angular/core";
import { toSignal } from "@angular/core/rxjs-interop";
import { distinctUntilChanged, map, scan, type Observable } from "rxjs";
// The app's other files import "rxagent" through the tsconfig's paths; this one is also run by
// test/examples/angular.test.ts outside the Angular build, where they do not apply.
import { Agent, type AgentEvent, type AgentMessage, type AgentOptions, type AgentStateSnapshot, type AssistantMessage } from "../../../../src/index.js"; // in your app: from "rxagent"

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

/** What the status line shows: a run is going, the last one was stopped or failed, or neither. */
export type AgentStatus = "running" | "stopped" | "error" | "idle";

/** The text blocks of a message, joined ("" for a message without text). */
export function textOf(message: AgentMessage | undefined): string {
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
 * The status of a state: the last run's outcome says how an idle agent's run ended (a Stop sets
 * `errorMessage` too, so that alone would read as an error); before any run, a transcript given
 * to the agent is read from its last assistant message.
 */
export function statusOf(state: AgentStateSnapshot): AgentStatus {
  if (state.isStreaming) return "running";
  if (state.outcome === "aborted") return "stopped";
  if (state.outcome === "failed") return "error";
  if (state.outcome) return "idle";
  const last = [...state.messages].reverse().find((message): message is AssistantMessage => (message as { role?: string }).role === "assistant");
  if (last?.stopReason === "aborted") return "stopped";
  if (last?.stopReason === "error" || state.errorMessage) return "error";
  return "idle";
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
 * // @if (chat.isStreaming()) { <p>{{ chat.streamingText$ | async }}</p> <button (click)="chat.abort()">Stop</button> }
 * ```
 */
export class AgentService {
  /** The Agent itself, for anything the service does not wrap. */
  readonly agent = new Agent(inject(AGENT_OPTIONS));

  /** Every event of every run (hot). */
  readonly events$: Observable<AgentEvent> = this.agent.events$;
  /** The text of the message being streamed ("" when none), once per change. */
  readonly streamingText$: Observable<string> = this.agent.state$.pipe(
    map((state) => textOf(state.streamingMessage)),
    distinctUntilChanged(),
  );
  /** The tool calls of the current (or last) run, with live progress; starts empty for each subscriber. */
  readonly tools$: Observable<ToolActivity[]> = this.events$.pipe(scan(toolActivity, [] as ToolActivity[]));

  /** The whole state; `state$` emits at once, so the signal always has a value. */
  readonly state: Signal<AgentStateSnapshot> = toSignal(this.agent.state$, { requireSync: true });
  /** The transcript, system messages included. */
  readonly messages = computed(() => this.state().messages);
  /** Whether a run is going. */
  readonly isStreaming = computed(() => this.state().isStreaming);
  /** The text of the message being streamed ("" when none). */
  readonly streamingText = computed(() => textOf(this.state().streamingMessage));
  /** Running, stopped (the last run was aborted), error, or idle. */
  readonly status: Signal<AgentStatus> = computed(() => statusOf(this.state()));
  /** How many tool calls are running. */
  readonly pendingToolCalls = computed(() => this.state().pendingToolCalls.size);
  /** The last run's error, if it failed. */
  readonly errorMessage = computed(() => this.state().errorMessage);
  /** The tool calls of the current (or last) run, with live progress. */
  readonly tools: Signal<ToolActivity[]> = toSignal(this.tools$, { initialValue: [] });

  constructor() {
    inject(DestroyRef).onDestroy(() => this.agent.abort());
  }

  /** Starts a run; resolves when it is over. While a run is active, use `steer` or `followUp`. */
  prompt(text: string): Promise<void> {
    return this.agent.prompt(text);
  }

  /** Sends `text` now if idle, else steers the running agent with it (it lands after the current tool batch). */
  send(text: string): Promise<void> | void {
    if (this.agent.state.isStreaming) return this.agent.steer(text);
    return this.prompt(text);
  }

  /** Queues `text` for the running agent, before its next request. */
  steer(text: string): void {
    this.agent.steer(text);
  }

  /** Queues `text` for when the running agent would otherwise stop. */
  followUp(text: string): void {
    this.agent.followUp(text);
  }

  /** Stops the running run: it ends with an `aborted` assistant message. */
  abort(): void {
    this.agent.abort();
  }

  /** Clears the transcript and the queues. */
  reset(): void {
    this.agent.reset();
  }
}

/**
 * Providers for {@link AgentService}: the Agent's options, or a factory for them. The factory
 * runs once, when the service is first injected, in an injection context: `inject()` works in
 * its body (not in callbacks it returns, which run later).
 */
export function provideAgent(options: AgentOptions | (() => AgentOptions)): Provider[] {
  return [
    { provide: AGENT_OPTIONS, useFactory: typeof options === "function" ? options : () => options },
    { provide: AgentService, useFactory: () => new AgentService() },
  ];
}
