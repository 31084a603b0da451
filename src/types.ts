/**
 * The agent-level vocabulary: app messages, tools, events, the loop's configuration and hooks
 * (SPEC M2, L2, L3, T1, T2).
 *
 * @module
 */
import type { Observable, SchedulerLike } from "rxjs";
import type {
  AssistantMessage,
  AssistantMessageEvent,
  ImageContent,
  Message,
  Model,
  ProviderOptions,
  TextContent,
  ThinkingLevel,
  ToolCall,
  ToolResultMessage,
  Tool,
  Usage,
} from "./messages.js";

/**
 * A value, a promise of it, or an Observable whose last value is it. Hooks may return any of
 * the three; a plain value keeps the loop synchronous (SPEC L12).
 */
export type MaybeAsync<T> = T | PromiseLike<T> | Observable<T>;

/**
 * App message types, added by declaration merging (SPEC M2).
 *
 * @example
 * ```ts
 * declare module "rxagent" {
 *   interface CustomAgentMessages {
 *     notice: { role: "notice"; text: string; timestamp: number };
 *   }
 * }
 * ```
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface CustomAgentMessages {}

/** A transcript entry: a model message or an app message from {@link CustomAgentMessages}. */
export type AgentMessage = Message | CustomAgentMessages[keyof CustomAgentMessages];

/** How the tool calls of one assistant message run. */
export type ToolExecutionMode = "sequential" | "parallel";

/** How many queued messages one poll takes: the oldest only, or all of them. */
export type QueueMode = "all" | "one-at-a-time";

/** What a tool returns (and what progress updates carry). */
export interface AgentToolResult<TDetails = any> {
  /** What the model sees. */
  content: (TextContent | ImageContent)[];
  /** Anything for logs and UIs; not sent to the model. */
  details?: TDetails;
  /** Report a failure without throwing: the model sees `content` as an error result. */
  isError?: boolean;
  /** Asks the loop to stop after this batch; honoured only when every result in it asks (SPEC L6). */
  terminate?: boolean;
  usage?: Usage;
}

/** Called by a tool to report progress; each call becomes a `tool_execution_update`. */
export type AgentToolUpdateCallback<TDetails = any> = (partialResult: AgentToolResult<TDetails>) => void;

/**
 * A tool the agent can run (SPEC T1).
 *
 * `execute` returns a promise of the result, the result itself, or an Observable: every
 * emission before the last is a progress update, the last is the result, and unsubscribing
 * cancels it.
 *
 * @example
 * ```ts
 * const clock: AgentTool = {
 *   name: "now", label: "Clock", description: "Current time",
 *   parameters: { type: "object", properties: {} },
 *   execute: async () => ({ content: [{ type: "text", text: new Date().toISOString() }] }),
 * };
 * ```
 */
export interface AgentTool<TParams = any, TDetails = any> extends Tool<object> {
  /** Human-readable name for UIs. */
  label: string;
  /** Rewrites raw arguments before validation (compatibility shims). */
  prepareArguments?: (args: unknown) => unknown;
  /** `sequential` makes any batch that contains this tool run one call at a time. */
  executionMode?: ToolExecutionMode;
  execute: (
    toolCallId: string,
    params: TParams,
    signal: AbortSignal,
    onUpdate: AgentToolUpdateCallback<TDetails>,
  ) => AgentToolResult<TDetails> | PromiseLike<AgentToolResult<TDetails>> | Observable<AgentToolResult<TDetails>>;
}

/** What the loop reads and appends to. `tools` are the executable tools of this run. */
export interface AgentContext {
  messages: AgentMessage[];
  tools?: AgentTool[];
}

/** Lifecycle events of a run (SPEC L2). */
export type AgentEvent =
  | { type: "agent_start" }
  | { type: "agent_end"; messages: AgentMessage[] }
  | { type: "turn_start" }
  | { type: "turn_end"; message: AgentMessage; toolResults: ToolResultMessage[] }
  | { type: "message_start"; message: AgentMessage }
  | { type: "message_update"; message: AgentMessage; assistantMessageEvent: AssistantMessageEvent }
  | { type: "message_end"; message: AgentMessage }
  | { type: "tool_execution_start"; toolCallId: string; toolName: string; args: any }
  | { type: "tool_execution_update"; toolCallId: string; toolName: string; args: any; partialResult: AgentToolResult }
  | {
      type: "tool_execution_end";
      toolCallId: string;
      toolName: string;
      result: AgentToolResult;
      isError: boolean;
      durationMs?: number;
    };

/** The type of an {@link AgentEvent}. */
export type AgentEventType = AgentEvent["type"];

/** What `beforeToolCall` sees. */
export interface BeforeToolCallContext {
  assistantMessage: AssistantMessage;
  toolCall: ToolCall;
  /** Validated (and coerced) arguments. */
  args: unknown;
  context: AgentContext;
}

/** Return `{ block: true }` to stop a call; `reason` is what the model reads. */
export interface BeforeToolCallResult {
  block?: boolean;
  reason?: string;
  terminate?: boolean;
}

/** What `afterToolCall` sees. */
export interface AfterToolCallContext extends BeforeToolCallContext {
  result: AgentToolResult;
  isError: boolean;
}

/** Field-by-field override of an executed result; omitted fields keep their values. */
export interface AfterToolCallResult {
  content?: (TextContent | ImageContent)[];
  details?: unknown;
  isError?: boolean;
  terminate?: boolean;
  usage?: Usage;
}

/** A finished turn, as `finishTurn` and `prepareNextTurn` see it. */
export interface AgentTurnContext {
  message: AssistantMessage;
  toolResults: ToolResultMessage[];
  context: AgentContext;
  /** What this run would return if it ended now. */
  newMessages: AgentMessage[];
}

/** `continue` guarantees one more request; `end` ends the run (SPEC L6, L8). */
export type AgentTurnDecision = { action: "continue" } | { action: "end" };

/** What `prepareRequest` sees. */
export interface PrepareRequestContext {
  context: AgentContext;
  model: Model;
  thinkingLevel: ThinkingLevel;
}

/** Replacements for this and later requests of the run. */
export interface AgentRequestUpdate {
  context?: AgentContext;
  model?: Model;
  thinkingLevel?: ThinkingLevel;
}

/** Replacements before the next turn, plus messages to append to it. */
export interface AgentLoopTurnUpdate extends AgentRequestUpdate {
  messages?: AgentMessage[];
}

/** The outcome of one tool call after every hook ran (see `runToolCall`). */
export interface ToolCallOutcome {
  toolCall: ToolCall;
  result: AgentToolResult;
  isError: boolean;
  /** How long `execute` took; absent when the tool did not run. */
  durationMs?: number;
}

/** The tool hooks, shared by the loop and `runToolCall`. */
export interface ToolHooks {
  /** After validation, before execution; may block (SPEC T2). */
  beforeToolCall?: (context: BeforeToolCallContext, signal: AbortSignal) => MaybeAsync<BeforeToolCallResult | undefined | void>;
  /** After execution; overrides the result field by field (SPEC T2). */
  afterToolCall?: (context: AfterToolCallContext, signal: AbortSignal) => MaybeAsync<AfterToolCallResult | undefined | void>;
}

/**
 * Configuration of one run of the loop. Besides the hooks, every field of
 * {@link ProviderOptions} (`reasoning`, `apiKey`, `sessionId`, ...) is passed to the provider.
 */
export interface AgentLoopConfig extends ToolHooks, ProviderOptions {
  model: Model;
  /**
   * App messages → model messages, before every request (SPEC M2). Defaults to keeping the
   * four model roles, memoized over the append-only transcript (SPEC L4b).
   */
  convertToLlm?: (messages: AgentMessage[]) => MaybeAsync<Message[]>;
  /** Rewrites the app-level view before `convertToLlm` (pruning, injection). */
  transformContext?: (messages: AgentMessage[], signal: AbortSignal) => MaybeAsync<AgentMessage[]>;
  /** An API key per request, for expiring tokens. */
  getApiKey?: (provider: string) => MaybeAsync<string | undefined>;
  /** Steering: polled at run start, after each turn, and after `prepareNextTurn` (SPEC L7). */
  getSteeringMessages?: () => MaybeAsync<AgentMessage[]>;
  /** Follow-up: polled only when the run would otherwise stop (SPEC L7). */
  getFollowUpMessages?: () => MaybeAsync<AgentMessage[]>;
  /** Default `parallel` (SPEC T4). */
  toolExecution?: ToolExecutionMode;
  /** Before every request, pending messages already appended. */
  prepareRequest?: (request: PrepareRequestContext, signal: AbortSignal) => MaybeAsync<AgentRequestUpdate | undefined | void>;
  /** After `turn_end` when the run goes on, before the next `turn_start`. */
  prepareNextTurn?: (turn: AgentTurnContext, signal: AbortSignal) => MaybeAsync<AgentLoopTurnUpdate | undefined | void>;
  /** After a turn's tool results, before `turn_end` (SPEC L6, L8). */
  finishTurn?: (turn: AgentTurnContext, signal: AbortSignal) => MaybeAsync<AgentTurnDecision | undefined | void>;
  /**
   * Clock for timestamps and durations, and the scheduler handed to providers. Pass the
   * `TestScheduler` in marble tests for deterministic timestamps.
   */
  scheduler?: SchedulerLike;
}

/**
 * Called with every event before the loop goes on; the loop waits for what it returns
 * (a promise or an Observable) — the `Agent` uses this as its listener barrier (SPEC L11).
 */
export type AgentEmit = (event: AgentEvent) => void | PromiseLike<unknown> | Observable<unknown>;
