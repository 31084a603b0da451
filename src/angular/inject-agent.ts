/**
 * `injectAgent`: the agent of the surrounding injector as signals, zoneless.
 *
 * @module
 */
import { assertInInjectionContext, computed, DestroyRef, inject, type Injector, runInInjectionContext } from "@angular/core";
import { toSignal } from "@angular/core/rxjs-interop";
import { type Observable, of, Subject } from "rxjs";
import type { AgentConnection, AgentViewState } from "../agent/agent-like.js";
import type { AgentMessage } from "../model/types.js";
import { AGENT } from "./agent-token.js";
import type { AgentSignals } from "./agent-signals.js";
import { messageText } from "./message-text.js";
import { type QueueCommand, type QueuedMessage, queuedMessages } from "./queued-messages.js";
import { runToolCalls } from "./run-tool-calls.js";

/**
 * Options of {@link injectAgent}.
 *
 * @example
 * ```ts
 * const chat = injectAgent({ injector: this.injector }); // outside a constructor, e.g. in ngOnInit
 * ```
 */
export interface InjectAgentOptions {
  /** Where to find the agent and whose destruction ends the signals; default: the current injection context. */
  readonly injector?: Injector;
}

const CONNECTED: AgentConnection = Object.freeze({ status: "connected" });

/**
 * Whether two lists hold the same items. Each state the agent emits has a fresh transcript array,
 * a text delta included: compared item by item, `messages` changes only when a message does, and
 * what a template computes from it is not redone for every delta.
 */
function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

/**
 * The agent {@link provideAgent} provided, as {@link AgentSignals}. Call it where `inject()`
 * works (a field initializer, a constructor, a factory) or pass an `injector`. The signals are
 * `toSignal`s that update as the agent's streams emit, so a zoneless app redraws with no
 * zone.js and no manual change detection; their subscriptions end when that context's
 * `DestroyRef` fires (the component goes), while the agent lives on with its provider.
 *
 * @example
 * ```ts
 * @Component({ template: `@if (chat.streamingText()) { <p>{{ chat.streamingText() }}</p> }` })
 * export class ChatComponent {
 *   readonly chat = injectAgent();
 *   ask(text: string): void {
 *     void this.chat.send(text);
 *   }
 * }
 * ```
 */
export function injectAgent(options: InjectAgentOptions = {}): AgentSignals {
  if (options.injector) return runInInjectionContext(options.injector, agentSignals);
  assertInInjectionContext(injectAgent);
  return agentSignals();
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === "function";
}

/** The assistant's text being streamed; none while tools run, and none of a user message passing through. */
function streamingText(state: AgentViewState): string {
  const message = state.streamingMessage;
  if (state.pendingToolCalls.size > 0 || (message as { role?: unknown } | undefined)?.role !== "assistant") return "";
  return messageText(message);
}

/** The signals, made in the current injection context. */
function agentSignals(): AgentSignals {
  const agent = inject(AGENT);
  const destroyRef = inject(DestroyRef);
  // What this object's commands queued; completed with the context, so nothing outlives it.
  const commands = new Subject<QueueCommand>();
  destroyRef.onDestroy(() => commands.complete());

  const connection$: Observable<AgentConnection> = agent.connection$ ?? of(CONNECTED);
  const state = toSignal(agent.state$, { initialValue: agent.state });
  const queue = (kind: QueuedMessage["kind"], message: AgentMessage | string): Promise<void> => {
    // A remote agent's commands are requests: typed `void` in AgentLike, they return their promise.
    const sent: unknown = kind === "steering" ? agent.steer(message) : agent.followUp(message);
    // Listed only once the agent took it: a command that throws queued nothing.
    const queued: QueuedMessage = { kind, text: typeof message === "string" ? message : messageText(message) };
    commands.next({ queued });
    if (!isPromiseLike(sent)) return Promise.resolve();
    return Promise.resolve(sent).then(
      () => undefined,
      (error: unknown) => {
        commands.next({ dropped: queued });
        throw error;
      },
    );
  };

  return {
    agent,
    state,
    messages: computed(() => state().messages, { equal: sameItems }),
    streamingText: computed(() => streamingText(state())),
    running: computed(() => state().isStreaming),
    pendingApprovals: computed(() => state().pendingApprovals, { equal: sameItems }),
    toolCalls: toSignal(agent.events$.pipe(runToolCalls()), { initialValue: [] }),
    queued: toSignal(queuedMessages(commands, agent.state$), { initialValue: [] }),
    error: computed(() => state().errorMessage),
    outcome: computed(() => state().outcome),
    connection: toSignal(connection$, { initialValue: CONNECTED }),
    state$: agent.state$,
    events$: agent.events$,
    connection$,
    prompt: (input, images) => agent.prompt(input, images),
    send: (text) => (agent.state.isStreaming ? queue("steering", text) : agent.prompt(text)),
    // The caller of steer() and followUp() gets void, as from the agent: a refusal is caught here
    // (it has left the list), and send() is the way to await one.
    steer: (message) => void queue("steering", message).catch(() => undefined),
    followUp: (message) => void queue("followUp", message).catch(() => undefined),
    abort: () => agent.abort(),
    approve: (toolCallId, approval) => agent.approve(toolCallId, approval),
    deny: (toolCallId, reason) => agent.deny(toolCallId, reason),
  };
}
