/**
 * What `toAgUiEvents` is told about the run it maps, and how a tool call waiting for approval
 * becomes an AG-UI interrupt (and how a resume entry answers it).
 *
 * @module
 */
import type { ToolApprovalRequest } from "../model/tool-types.js";
import type { AgUiInterrupt } from "./ag-ui-types.js";

/**
 * Options of `toAgUiEvents`.
 *
 * @example
 * ```ts
 * const options: ToAgUiEventsOptions = { threadId: input.threadId, runId: input.runId, stateKey: "agent" };
 * ```
 */
export interface ToAgUiEventsOptions {
  /** The conversation (`RunAgentInput.threadId`). */
  threadId: string;
  /** This AG-UI run (`RunAgentInput.runId`); message ids are made from it. */
  runId: string;
  /** The run that spawned this one, echoed on `RUN_STARTED`. */
  parentRunId?: string | undefined;
  /**
   * How approvals travel. `interrupt` (default): AG-UI 1.0's own way — when every tool call still
   * going waits for approval, the AG-UI run ends with `RUN_FINISHED` and an `interrupt` outcome
   * (one interrupt per call, its id the tool call's id); the rxagent run keeps waiting, and a
   * later run's `resume` entries answer it. `custom`: the run goes on and each request and answer
   * is a `CUSTOM` event (`rxagent.tool_approval_request`, `rxagent.tool_approval_end`), for apps
   * that answer through a channel of their own.
   */
  approvals?: "interrupt" | "custom" | undefined;
  /**
   * Calls that already wait for approval when the mapping begins: the run a resume takes up again
   * (`agent.state.pendingApprovals`). Their start was told by the run the interrupt ended.
   */
  waiting?: readonly ToolApprovalRequest[] | undefined;
  /**
   * The text of `RUN_ERROR` for a failed run, from the run's error (`undefined` when it has
   * none). Default: the error, redacted of credential shapes. The handler's default is a generic
   * text instead: a provider's error may say more about the server than its users should read.
   */
  errorText?: ((detail: string | undefined) => string) | undefined;
  /**
   * When set, the run's view — `status` (`running`, then the outcome or `interrupted`),
   * `pendingApprovals` and the `limit` that ended it — is kept under this key of the AG-UI state
   * with `STATE_DELTA` events (JSON Patch `add`), leaving the rest of the app's state alone.
   */
  stateKey?: string | undefined;
}

/** What an interrupt's answer (a resume entry's `payload`) may hold. */
export const APPROVAL_RESPONSE_SCHEMA: Record<string, unknown> = {
  type: "object",
  properties: {
    approved: { type: "boolean" },
    reason: { type: "string" },
    args: { type: "object" },
  },
  required: ["approved"],
};

/**
 * The interrupt of one call that waits for approval: its id is the tool call's id, its metadata
 * the tool's name and the arguments it would run with.
 *
 * @example
 * ```ts
 * approvalInterrupt({ toolCallId: "call_1", toolName: "delete_file", args: { path: "/tmp/x" } });
 * // { id: "call_1", reason: "tool_approval", toolCallId: "call_1", message: 'Approve the call of "delete_file"?', ... }
 * ```
 */
export function approvalInterrupt(request: ToolApprovalRequest): AgUiInterrupt {
  return {
    id: request.toolCallId,
    reason: "tool_approval",
    message: `Approve the call of "${request.toolName}"?`,
    toolCallId: request.toolCallId,
    responseSchema: APPROVAL_RESPONSE_SCHEMA,
    metadata: { toolName: request.toolName, args: request.args },
  };
}
