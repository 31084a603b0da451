/**
 * The `Agent`'s state and its reduction from events (SPEC A4).
 *
 * @module
 */
import type { Model, ThinkingLevel, Tool } from "./messages.js";
import { createInitialSystemMessage, getSystemPrompt } from "./transcript.js";
import type { AgentEvent, AgentMessage, AgentTool } from "./types.js";

/** What the `Agent` knows. `messages` and `tools` copy the top-level array on assignment. */
export interface AgentState {
  /** The system prompt, replayed from the transcript's system messages. Read-only. */
  readonly systemPrompt: string;
  model: Model;
  thinkingLevel: ThinkingLevel;
  tools: AgentTool[];
  messages: AgentMessage[];
  /** True from the start of a run until its `agent_end` listeners have settled. */
  readonly isStreaming: boolean;
  /** The partial assistant message while one streams. */
  readonly streamingMessage: AgentMessage | undefined;
  /** Ids of tool calls that are executing. */
  readonly pendingToolCalls: ReadonlySet<string>;
  /** The error of the last failed or aborted turn. */
  readonly errorMessage: string | undefined;
}

/** A frozen copy of the state at one moment, as `state$` emits it. */
export interface AgentStateSnapshot {
  readonly systemPrompt: string;
  readonly model: Model;
  readonly thinkingLevel: ThinkingLevel;
  readonly tools: readonly AgentTool[];
  readonly messages: readonly AgentMessage[];
  readonly isStreaming: boolean;
  readonly streamingMessage: AgentMessage | undefined;
  readonly pendingToolCalls: ReadonlySet<string>;
  readonly errorMessage: string | undefined;
}

/** The initial state an `Agent` is created with. */
export interface AgentInitialState {
  systemPrompt?: string;
  model?: Model;
  thinkingLevel?: ThinkingLevel;
  tools?: AgentTool[];
  messages?: AgentMessage[];
}

const UNKNOWN_MODEL: Model = { id: "unknown", api: "unknown", provider: "unknown" };

/**
 * The mutable state behind `agent.state`. Messages are only ever appended to the current
 * array (assignment and reset install a new one), so a snapshot can share the array and
 * remember its length — a snapshot per event costs O(1), not O(transcript).
 *
 * @internal
 */
export class AgentStateStore implements AgentState {
  private _model: Model;
  private _thinkingLevel: ThinkingLevel;
  isStreaming = false;
  streamingMessage: AgentMessage | undefined;
  pendingToolCalls: ReadonlySet<string> = new Set();
  errorMessage: string | undefined;
  private _tools: AgentTool[];
  private _messages: AgentMessage[];
  private version = 0;
  private cached: AgentStateSnapshot | undefined;
  private cachedVersion = -1;

  constructor(
    initial: AgentInitialState = {},
    private readonly changed: () => void,
  ) {
    this._model = initial.model ?? UNKNOWN_MODEL;
    this._thinkingLevel = initial.thinkingLevel ?? "off";
    this._tools = initial.tools?.slice() ?? [];
    this._messages = initial.messages?.slice() ?? [];
    const leading = createInitialSystemMessage(initial.systemPrompt, this._tools as Tool[]);
    if (leading && (this._messages[0] as { role?: string } | undefined)?.role !== "system") this._messages.unshift(leading);
  }

  get systemPrompt(): string {
    return getSystemPrompt(this._messages);
  }

  get model(): Model {
    return this._model;
  }
  set model(model: Model) {
    this._model = model;
    this.touch();
  }

  get thinkingLevel(): ThinkingLevel {
    return this._thinkingLevel;
  }
  set thinkingLevel(level: ThinkingLevel) {
    this._thinkingLevel = level;
    this.touch();
  }

  get tools(): AgentTool[] {
    return this._tools;
  }
  set tools(tools: AgentTool[]) {
    this._tools = tools.slice();
    this.touch();
  }

  get messages(): AgentMessage[] {
    return this._messages;
  }
  set messages(messages: AgentMessage[]) {
    this._messages = messages.slice();
    this.touch();
  }

  /** Marks a change: `state$` emits a new snapshot. */
  touch(): void {
    this.version++;
    this.changed();
  }

  /** Folds one loop event into the state (before any listener sees it). */
  reduce(event: AgentEvent): void {
    switch (event.type) {
      case "message_start":
      case "message_update":
        this.streamingMessage = event.message;
        break;
      case "message_end":
        this.streamingMessage = undefined;
        this._messages.push(event.message);
        break;
      case "tool_execution_start":
        this.pendingToolCalls = new Set(this.pendingToolCalls).add(event.toolCallId);
        break;
      case "tool_execution_end": {
        const pending = new Set(this.pendingToolCalls);
        pending.delete(event.toolCallId);
        this.pendingToolCalls = pending;
        break;
      }
      case "turn_end": {
        const message = event.message as { role?: string; errorMessage?: string };
        if (message.role === "assistant" && message.errorMessage) this.errorMessage = message.errorMessage;
        break;
      }
      case "agent_end":
        this.streamingMessage = undefined;
        break;
      default:
        break;
    }
    this.touch();
  }

  /** An immutable view of this moment; the same object until the next change. */
  snapshot(): AgentStateSnapshot {
    if (this.cached && this.cachedVersion === this.version) return this.cached;
    const source = this._messages;
    const length = source.length;
    let messages: readonly AgentMessage[] | undefined;
    let systemPrompt: string | undefined;
    const snapshot: AgentStateSnapshot = Object.freeze({
      // Copied on first read: a copy per event would make long runs quadratic.
      get messages() {
        return (messages ??= Object.freeze(source.slice(0, length)));
      },
      get systemPrompt() {
        return (systemPrompt ??= getSystemPrompt(source.slice(0, length)));
      },
      model: this.model,
      thinkingLevel: this.thinkingLevel,
      tools: Object.freeze(this._tools.slice()),
      isStreaming: this.isStreaming,
      streamingMessage: this.streamingMessage,
      pendingToolCalls: this.pendingToolCalls,
      errorMessage: this.errorMessage,
    });
    this.cached = snapshot;
    this.cachedVersion = this.version;
    return snapshot;
  }
}
