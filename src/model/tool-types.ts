/**
 * The tool vocabulary: what a tool is and returns, what its hooks see and decide, and the
 * outcome of one call (SPEC T1, T2).
 *
 * @module
 */
import type { Observable } from "rxjs";
import type { AssistantMessage, ImageContent, TextContent, Tool, ToolCall, Usage } from "./messages.js";
import type { AgentMessage } from "./agent-message.js";
import type { MaybeAsync } from "../rx/maybe-async.js";
import type { ArgumentValidator } from "./argument-validator.js";

/** What the loop reads and appends to. `tools` are the executable tools of this run. */
export interface AgentContext {
  messages: AgentMessage[];
  tools?: AgentTool[] | undefined;
}

/** How the tool calls of one assistant message run. */
export type ToolExecutionMode = "sequential" | "parallel";

/** What a tool returns (and what progress updates carry). */
export interface AgentToolResult<TDetails = any> {
  /** What the model sees. */
  content: (TextContent | ImageContent)[];
  /** Anything for logs and UIs; not sent to the model. */
  details?: TDetails | undefined;
  /** Report a failure without throwing: the model sees `content` as an error result. */
  isError?: boolean | undefined;
  /** Asks the loop to stop after this batch; honoured only when every result in it asks (SPEC L6). */
  terminate?: boolean | undefined;
  usage?: Usage | undefined;
}

/** Called by a tool to report progress; each call becomes a `tool_execution_update`. */
export type AgentToolUpdateCallback<TDetails = any> = (partialResult: AgentToolResult<TDetails>) => void;

/**
 * A tool the agent can run (SPEC T1).
 *
 * `execute` returns a promise of the result, the result itself, or an Observable: its
 * emissions are progress updates, shown as soon as each stands (see `executeToolCall`), the last
 * is the result, and unsubscribing cancels it.
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
  prepareArguments?: ((args: unknown) => unknown) | undefined;
  /** Checks this tool's arguments, overriding the Agent's or loop's `validator`. */
  validator?: ArgumentValidator | undefined;
  /** `sequential` makes any batch that contains this tool run one call at a time. */
  executionMode?: ToolExecutionMode | undefined;
  /**
   * What a resumed session does with a call of this tool that a stopped process had started
   * (SPEC S5): `"safe"` runs it again (it is idempotent, or reads only); `"never"`, the default,
   * answers it with an error result the model can read, so a side effect is not repeated.
   */
  replay?: "never" | "safe" | undefined;
  /**
   * Whether a call waits for a human first (SPEC R1): `true`, or a function of the validated
   * arguments deciding per call (a value keeps the loop synchronous, a promise or Observable is
   * awaited). While it waits, the other calls of the batch go on.
   */
  needsApproval?: boolean | ((args: TParams, context: ToolApprovalContext) => MaybeAsync<boolean>) | undefined;
  /**
   * Calls with the same key run one after another, in the order the model gave them; calls
   * with different keys (or none) run side by side (SPEC R3). E.g. the path a call writes.
   */
  concurrencyKey?: ((args: TParams) => string | undefined) | undefined;
  /** Longest a call may run, in ms on the loop's scheduler; overrides the run's `limits.toolTimeoutMs` (SPEC R2). */
  timeoutMs?: number | undefined;
  execute: (
    toolCallId: string,
    params: TParams,
    signal: AbortSignal,
    onUpdate: AgentToolUpdateCallback<TDetails>,
  ) => AgentToolResult<TDetails> | PromiseLike<AgentToolResult<TDetails>> | Observable<AgentToolResult<TDetails>>;
}

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
  block?: boolean | undefined;
  reason?: string | undefined;
  terminate?: boolean | undefined;
  /** Make this call wait for a human's approval (SPEC R1), as the tool's `needsApproval` would. */
  needsApproval?: boolean | undefined;
}

/** What a tool's `needsApproval` function sees besides the arguments. */
export interface ToolApprovalContext {
  toolCall: ToolCall;
  assistantMessage: AssistantMessage;
  context: AgentContext;
  /** The run's signal: a decision that takes time should stop when it fires. */
  signal: AbortSignal;
}

/** A call waiting for a human decision (SPEC R1): the Agent lists these in `state.pendingApprovals`. */
export interface ToolApprovalRequest {
  toolCallId: string;
  toolName: string;
  /** The validated arguments the call would run with. */
  args: unknown;
}

/**
 * The answer to a {@link ToolApprovalRequest}: approved (optionally with edited arguments, which
 * are validated again), or denied with the reason the model reads.
 */
export type ToolApprovalDecision = { approved: true; args?: unknown } | { approved: false; reason?: string | undefined };

/**
 * What became of a call when its run was aborted (SPEC R4): never executed (still preflighting,
 * waiting for approval or for a concurrency slot); `stopped` on the signal (an Observable tool
 * unsubscribed, or a tool that failed after the abort); `finished` with its own result after the
 * abort; `ignored` the signal and still running when the run gave up on it (`abortGraceMs`).
 */
export type ToolCancellation = "not_started" | "stopped" | "finished" | "ignored";

/** What `afterToolCall` sees. */
export interface AfterToolCallContext extends BeforeToolCallContext {
  result: AgentToolResult;
  isError: boolean;
}

/** Field-by-field override of an executed result; omitted fields keep their values. */
export interface AfterToolCallResult {
  content?: (TextContent | ImageContent)[] | undefined;
  details?: unknown;
  isError?: boolean | undefined;
  terminate?: boolean | undefined;
  usage?: Usage | undefined;
}

/** The outcome of one tool call after every hook ran (see `runToolCall`). */
export interface ToolCallOutcome {
  toolCall: ToolCall;
  result: AgentToolResult;
  isError: boolean;
  /** How long `execute` took; absent when the tool did not run. */
  durationMs?: number;
  /** Set when the run was aborted before this call ended (SPEC R4). */
  cancellation?: ToolCancellation;
}

/** The tool hooks, shared by the loop and `runToolCall`. */
export interface ToolHooks {
  /** After validation, before execution; may block (SPEC T2). */
  beforeToolCall?: ((context: BeforeToolCallContext, signal: AbortSignal) => MaybeAsync<BeforeToolCallResult | undefined | void>) | undefined;
  /** After execution; overrides the result field by field (SPEC T2). */
  afterToolCall?: ((context: AfterToolCallContext, signal: AbortSignal) => MaybeAsync<AfterToolCallResult | undefined | void>) | undefined;
}
