/**
 * The state machine behind `toAgUiEvents`: what one AG-UI run has opened (a text message, a
 * reasoning message, tool calls, a step) so that everything it opened is closed before the run
 * ends, and which tool calls run or wait for approval, so that the run can end in an interrupt
 * when nothing but approvals is left to wait for.
 *
 * @internal
 * @module
 */
import type { AssistantMessage, ToolCall, ToolResultMessage } from "../model/messages.js";
import type { ToolApprovalRequest } from "../model/tool-types.js";
import type { AgentEvent } from "../model/types.js";
import { redactSecrets } from "../model/redact-secrets.js";
import { resultContent, runUsage } from "./ag-ui-content.js";
import { AG_UI_PROTOCOL_VERSION, type AgUiEvent, type AgUiInterrupt } from "./ag-ui-types.js";
import { approvalInterrupt, type ToAgUiEventsOptions } from "./ag-ui-options.js";

type AssistantStreamEvent = Extract<AgentEvent, { type: "message_update" }>["assistantMessageEvent"];

/** JSON Pointer escaping of one reference token (RFC 6901). */
function pointer(key: string): string {
  return `/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

/** Maps the events of one run, event by event; `ended` once it emitted the run's last event. */
export class AgUiRunMapping {
  ended = false;
  private messages = 0;
  private turns = 0;
  private message: string | undefined;
  private step: string | undefined;
  private text: string | undefined;
  private reasoning: string | undefined;
  /** Blocks of the current answer that streamed (so a block only its final message holds is still told). */
  private streamed = new Set<number>();
  /** Tool calls opened (TOOL_CALL_START) and not closed, by content index. */
  private openCalls = new Map<number, { id: string; args: boolean }>();
  private announced = new Set<string>();
  private answered = new Set<string>();
  /** Calls between `tool_execution_start` and `_end`; of them, those waiting for approval. */
  private running = new Set<string>();
  private waiting = new Map<string, ToolApprovalRequest>();
  /** The answers this AG-UI run told: its usage (a resumed run reports only its own calls). */
  private answers: AssistantMessage[] = [];

  constructor(private readonly options: ToAgUiEventsOptions) {
    for (const request of options.waiting ?? []) {
      this.running.add(request.toolCallId);
      this.waiting.set(request.toolCallId, request);
      this.announced.add(request.toolCallId);
    }
  }

  /** The run's first events. */
  start(): AgUiEvent[] {
    const { threadId, runId, parentRunId } = this.options;
    const started: AgUiEvent = { type: "RUN_STARTED", threadId, runId, protocolVersion: AG_UI_PROTOCOL_VERSION, ...(parentRunId !== undefined ? { parentRunId } : {}) };
    return [started, ...this.state({ status: "running", pendingApprovals: [...this.waiting.values()] })];
  }

  /** The AG-UI events for one rxagent event (none once the run ended). */
  next(event: AgentEvent): AgUiEvent[] {
    if (this.ended) return [];
    switch (event.type) {
      case "turn_start":
        this.step = `turn ${++this.turns}`;
        return [{ type: "STEP_STARTED", stepName: this.step }];
      case "turn_end":
        return this.closeStep();
      case "message_start":
        if ((event.message as { role?: unknown }).role !== "assistant") return [];
        this.message = `${this.options.runId}-${++this.messages}`;
        this.streamed.clear();
        return [];
      case "message_update":
        return this.message === undefined ? [] : this.update(this.message, event.assistantMessageEvent);
      case "message_end":
        return this.messageEnd(event.message as { role?: unknown });
      case "tool_execution_start":
        this.running.add(event.toolCallId);
        return [];
      case "tool_execution_end": {
        this.running.delete(event.toolCallId);
        this.waiting.delete(event.toolCallId);
        return [...this.result(event.toolCallId, resultContent(event.result.content ?? [])), ...this.interruptIfOnlyWaiting()];
      }
      case "tool_approval_request": {
        const request = { toolCallId: event.toolCallId, toolName: event.toolName, args: event.args };
        this.waiting.set(event.toolCallId, request);
        if (this.options.approvals === "custom") return [{ type: "CUSTOM", name: "rxagent.tool_approval_request", value: request }, ...this.pendingApprovals()];
        return [...this.pendingApprovals(), ...this.interruptIfOnlyWaiting()];
      }
      case "tool_approval_end": {
        this.waiting.delete(event.toolCallId);
        const { type: _type, ...answer } = event;
        if (this.options.approvals === "custom") return [{ type: "CUSTOM", name: "rxagent.tool_approval_end", value: answer }, ...this.pendingApprovals()];
        return this.pendingApprovals();
      }
      case "agent_end":
        return this.end(event);
      default:
        return [];
    }
  }

  /** The run's end when its source stopped without `agent_end` (or failed). */
  incomplete(): AgUiEvent[] {
    if (this.ended) return [];
    this.ended = true;
    return [{ type: "RUN_ERROR", message: this.errorText(undefined), code: "incomplete" }];
  }

  private update(id: string, update: AssistantStreamEvent): AgUiEvent[] {
    switch (update.type) {
      case "text_start":
        this.streamed.add(update.contentIndex);
        return this.openText(id);
      case "text_delta":
        this.streamed.add(update.contentIndex);
        return [...this.openText(id), { type: "TEXT_MESSAGE_CONTENT", messageId: id, delta: update.delta }];
      case "text_end":
        return this.closeText();
      case "thinking_start":
        this.streamed.add(update.contentIndex);
        return this.openReasoning(`${id}-reasoning-${update.contentIndex}`);
      case "thinking_delta":
        this.streamed.add(update.contentIndex);
        return [...this.openReasoning(`${id}-reasoning-${update.contentIndex}`), { type: "REASONING_MESSAGE_CONTENT", messageId: this.reasoning!, delta: update.delta }];
      case "thinking_end":
        return this.closeReasoning();
      case "toolcall_start":
      case "toolcall_delta":
        return this.toolCallDelta(id, update.contentIndex, update.partial, update.type === "toolcall_delta" ? update.delta : "");
      case "toolcall_end":
        return this.toolCallEnd(id, update.contentIndex, update.toolCall);
      default:
        return [];
    }
  }

  private openText(id: string): AgUiEvent[] {
    if (this.text !== undefined) return [];
    this.text = id;
    return [...this.closeReasoning(), { type: "TEXT_MESSAGE_START", messageId: id, role: "assistant" }];
  }

  private closeText(): AgUiEvent[] {
    if (this.text === undefined) return [];
    const messageId = this.text;
    this.text = undefined;
    return [{ type: "TEXT_MESSAGE_END", messageId }];
  }

  private openReasoning(id: string): AgUiEvent[] {
    if (this.reasoning === id) return [];
    this.reasoning = id;
    return [...this.closeText(), { type: "REASONING_START", messageId: id }, { type: "REASONING_MESSAGE_START", messageId: id, role: "reasoning" }];
  }

  private closeReasoning(): AgUiEvent[] {
    if (this.reasoning === undefined) return [];
    const messageId = this.reasoning;
    this.reasoning = undefined;
    return [
      { type: "REASONING_MESSAGE_END", messageId },
      { type: "REASONING_END", messageId },
    ];
  }

  /** Opens the call at `index` once its block names it, then passes on argument text. */
  private toolCallDelta(parent: string, index: number, partial: AssistantMessage, delta: string): AgUiEvent[] {
    this.streamed.add(index);
    const events: AgUiEvent[] = [];
    let open = this.openCalls.get(index);
    if (!open) {
      const block = partial.content[index] as Partial<ToolCall> | undefined;
      // A provider that names the call only at its end: it is told whole then.
      if (typeof block?.id !== "string" || block.id === "" || typeof block.name !== "string") return [];
      events.push(...this.closeText(), ...this.closeReasoning(), { type: "TOOL_CALL_START", toolCallId: block.id, toolCallName: block.name, parentMessageId: parent });
      this.announced.add(block.id);
      this.openCalls.set(index, (open = { id: block.id, args: false }));
    }
    if (delta !== "") {
      open.args = true;
      events.push({ type: "TOOL_CALL_ARGS", toolCallId: open.id, delta });
    }
    return events;
  }

  private toolCallEnd(parent: string, index: number, call: ToolCall): AgUiEvent[] {
    const open = this.openCalls.get(index);
    if (!open) return this.wholeCall(parent, call);
    this.openCalls.delete(index);
    const args: AgUiEvent[] = open.args ? [] : [{ type: "TOOL_CALL_ARGS", toolCallId: open.id, delta: JSON.stringify(call.arguments ?? {}) }];
    return [...args, { type: "TOOL_CALL_END", toolCallId: open.id }];
  }

  /** A call told at once: start, its arguments as one piece, end. */
  private wholeCall(parent: string, call: ToolCall): AgUiEvent[] {
    if (this.announced.has(call.id)) return [];
    this.announced.add(call.id);
    return [
      ...this.closeText(),
      ...this.closeReasoning(),
      { type: "TOOL_CALL_START", toolCallId: call.id, toolCallName: call.name, parentMessageId: parent },
      { type: "TOOL_CALL_ARGS", toolCallId: call.id, delta: JSON.stringify(call.arguments ?? {}) },
      { type: "TOOL_CALL_END", toolCallId: call.id },
    ];
  }

  /** Closes what the answer left open; tells what its final message holds that never streamed. */
  private messageEnd(message: { role?: unknown }): AgUiEvent[] {
    if (message.role === "toolResult") {
      const result = message as ToolResultMessage;
      // A resumed run commits the results of its whole batch: only its own calls' are news.
      if (!this.announced.has(result.toolCallId)) return [];
      return this.result(result.toolCallId, resultContent(result.content ?? []));
    }
    if (message.role !== "assistant" || this.message === undefined) return [];
    this.answers.push(message as AssistantMessage);
    const id = this.message;
    const events = [...this.closeText(), ...this.closeReasoning()];
    for (const open of this.openCalls.values()) events.push({ type: "TOOL_CALL_END", toolCallId: open.id });
    this.openCalls.clear();
    (message as AssistantMessage).content?.forEach((block, index) => {
      if (this.streamed.has(index)) return;
      if (block.type === "text" && block.text !== "") {
        events.push({ type: "TEXT_MESSAGE_START", messageId: id, role: "assistant" }, { type: "TEXT_MESSAGE_CONTENT", messageId: id, delta: block.text }, { type: "TEXT_MESSAGE_END", messageId: id });
      } else if (block.type === "toolCall") {
        events.push(...this.wholeCall(id, block));
      }
    });
    this.message = undefined;
    return events;
  }

  private result(toolCallId: string, content: ReturnType<typeof resultContent>): AgUiEvent[] {
    if (this.answered.has(toolCallId)) return [];
    this.answered.add(toolCallId);
    return [{ type: "TOOL_CALL_RESULT", messageId: `${toolCallId}-result`, toolCallId, content, role: "tool" }];
  }

  private closeStep(): AgUiEvent[] {
    if (this.step === undefined) return [];
    const stepName = this.step;
    this.step = undefined;
    return [{ type: "STEP_FINISHED", stepName }];
  }

  /** Ends the run in an interrupt when every call still going waits for approval. */
  private interruptIfOnlyWaiting(): AgUiEvent[] {
    if (this.options.approvals === "custom" || this.waiting.size === 0) return [];
    for (const id of this.running) if (!this.waiting.has(id)) return [];
    const interrupts: AgUiInterrupt[] = [...this.waiting.values()].map(approvalInterrupt);
    this.ended = true;
    const { threadId, runId } = this.options;
    const usage = runUsage(this.answers);
    const finished: AgUiEvent = { type: "RUN_FINISHED", threadId, runId, outcome: { type: "interrupt", interrupts }, ...(usage ? { usage } : {}) };
    return [...this.closeStep(), ...this.state({ status: "interrupted", pendingApprovals: [...this.waiting.values()] }), finished];
  }

  private end(event: Extract<AgentEvent, { type: "agent_end" }>): AgUiEvent[] {
    this.ended = true;
    const usage = runUsage(this.answers);
    const withUsage = usage ? { usage } : {};
    const closing = [...this.closeStep(), ...this.state({ status: event.outcome, pendingApprovals: [], ...(event.limit ? { limit: event.limit } : {}) })];
    const { threadId, runId } = this.options;
    switch (event.outcome) {
      case "completed":
        return [...closing, { type: "RUN_FINISHED", threadId, runId, outcome: { type: "success" }, ...withUsage }];
      case "aborted":
        return [...closing, { type: "RUN_FINISHED", threadId, runId, outcome: { type: "cancelled" }, ...withUsage }];
      case "limit":
        return [...closing, { type: "RUN_ERROR", message: event.limit?.message ?? "A run limit ended the run", code: "limit", ...withUsage }];
      default: {
        const failed = [...event.messages].reverse().find((message) => typeof (message as AssistantMessage).errorMessage === "string") as AssistantMessage | undefined;
        return [...closing, { type: "RUN_ERROR", message: this.errorText(failed?.errorMessage), code: "failed", ...withUsage }];
      }
    }
  }

  private errorText(detail: string | undefined): string {
    if (this.options.errorText) return this.options.errorText(detail);
    return redactSecrets(detail ?? "The agent run failed");
  }

  private pendingApprovals(): AgUiEvent[] {
    const key = this.options.stateKey;
    if (key === undefined) return [];
    return [{ type: "STATE_DELTA", delta: [{ op: "add", path: `${pointer(key)}/pendingApprovals`, value: [...this.waiting.values()] }] }];
  }

  /** The run's view under `stateKey`, when the options name one. */
  private state(view: Record<string, unknown>): AgUiEvent[] {
    const key = this.options.stateKey;
    return key === undefined ? [] : [{ type: "STATE_DELTA", delta: [{ op: "add", path: pointer(key), value: view }] }];
  }
}
