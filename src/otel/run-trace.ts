/**
 * The spans of one run, opened and closed by its events: `invoke_agent` for the run, `chat`
 * for each model request, `execute_tool` for each tool call. Tool spans are children of the run
 * span, siblings of the chat spans (as the GenAI conventions draw an agent: the tools a model
 * asked for run under the same `invoke_agent`, after the chat span that asked ended), each with
 * a link to the chat span whose answer asked for it.
 *
 * @internal
 * @module
 */
import { type Attributes, type Context, context as contextApi, type HrTime, type Link, type Span, type SpanContext, SpanKind, trace } from "@opentelemetry/api";
import type { AssistantMessage } from "../model/messages.js";
import type { AgentEvent, AgentMessage } from "../model/types.js";
import { redactSecrets } from "../model/redact-secrets.js";
import { ATTR, ERROR_TYPE, OPERATION, providerName } from "./attributes.js";
import { inputMessagesJson, outputMessagesJson, resultText, safeJson } from "./content.js";
import { toHrTime } from "./span-clock.js";
import { answerAttributes, runAttributes, usageAttributes } from "./span-attributes.js";
import { answerStatus, closureStatus, fail, recordRunException, type RunClosure } from "./span-failure.js";
import type { TracedModel, TracingSettings } from "./tracing-options.js";

type ToolStart = Extract<AgentEvent, { type: "tool_execution_start" }>;
type ToolEnd = Extract<AgentEvent, { type: "tool_execution_end" }>;
type AgentEnd = Extract<AgentEvent, { type: "agent_end" }>;

function isAssistant(message: AgentMessage): message is AssistantMessage {
  return (message as { role?: string }).role === "assistant";
}

/** The spans of one run; its events arrive through {@link RunTrace.observe}. */
export class RunTrace {
  /**
   * Opens the run span. Returns nothing when the span does not record (no tracer provider is
   * registered, or the sampler dropped the run): the run is then not traced at all. What the
   * span starts with is read first, once per run: the sampler decides on the start attributes
   * and the parent (the conventions want the model, provider and server there, for sampling).
   * `history` and `tools` are read only once the span records.
   */
  static start(settings: TracingSettings): RunTrace | undefined {
    const model = settings.model();
    const { attributes, provider, server, conversationId } = runAttributes(settings, model);
    const parent = settings.parentContext ?? contextApi.active();
    const startTime = settings.now();
    const name = settings.agentName ? `${OPERATION.invokeAgent} ${settings.agentName}` : OPERATION.invokeAgent;
    const span = settings.tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes, startTime: toHrTime(startTime) }, parent);
    if (!span.isRecording()) return undefined;
    try {
      return new RunTrace(settings, span, trace.setSpan(parent, span), startTime, provider !== undefined, model, server, conversationId);
    } catch (error) {
      // A reader that threw (`history`): the span is open, so end it before the failure is reported (SPEC O4).
      // Each step on its own; should they fail too, the first failure is the one to report.
      try {
        closureStatus(span, { kind: "failed", error }, settings.capture);
      } catch {}
      try {
        span.end(toHrTime(startTime));
      } catch {}
      throw error;
    }
  }

  /** The open chat span, from the assistant's `message_start` to its `message_end`. */
  private chat: Span | undefined;
  /** Whether the open chat span has seen its first streamed chunk. */
  private chunkSeen = false;
  /** When the next request went out: the turn's input was committed (its last `message_end`, or `turn_start`). */
  private requestAt: number;
  /** The last chat span, which the next tool spans link to. */
  private lastChat: SpanContext | undefined;
  private readonly tools = new Map<string, Span>();
  private turn = 0;
  private inputTokens = 0;
  private outputTokens = 0;
  private cacheRead = 0;
  private cacheWrite = 0;
  private answers = 0;
  private last: AssistantMessage | undefined;
  /** With `captureContent`: the transcript so far (history, then the run's committed messages). */
  private readonly transcript: AgentMessage[] | undefined;
  /** With `captureContent`: where the run's own messages start in `transcript`, and where its first answer is. */
  private readonly runFrom: number;
  private firstAnswerAt = -1;

  private constructor(
    private readonly settings: TracingSettings,
    private readonly span: Span,
    private readonly context: Context,
    startTime: number,
    private providerKnown: boolean,
    private readonly model: TracedModel | undefined,
    private readonly server: { address: string; port: number } | undefined,
    private readonly conversationId: string | undefined,
  ) {
    this.requestAt = startTime;
    this.transcript = settings.capture ? [...(settings.history() ?? [])] : undefined;
    this.runFrom = this.transcript?.length ?? 0;
  }

  /** One event of the run; true once the run is over (`agent_end`). */
  observe(event: AgentEvent): boolean {
    switch (event.type) {
      case "message_update":
        // The per-delta path: one check after the first chunk.
        if (!this.chunkSeen && this.chat) this.firstChunk(this.chat);
        return false;
      case "turn_start":
        this.turn++;
        this.requestAt = this.settings.now();
        return false;
      case "message_start":
        if (isAssistant(event.message)) this.startChat(event.message);
        return false;
      case "message_end":
        this.messageEnd(event.message);
        return false;
      case "tool_execution_start":
        this.startTool(event);
        return false;
      case "tool_execution_end":
        this.endTool(event);
        return false;
      case "agent_end":
        this.end(event);
        return true;
      default:
        this.other(event as { type: string });
        return false;
    }
  }

  /**
   * Ends every open span of a run that did not reach `agent_end`. Span by span, each step on
   * its own: one that throws (an exporter, the clock) keeps no other span open (SPEC O4); the
   * first failure is thrown once all were tried.
   */
  close(closure: RunClosure): void {
    let failure: { error: unknown } | undefined;
    const attempt = (step: () => void): void => {
      try {
        step();
      } catch (error) {
        failure ??= { error };
      }
    };
    // Without a clock reading the SDK dates the end itself.
    let time: HrTime | undefined;
    attempt(() => (time = toHrTime(this.settings.now())));
    const finish = (span: Span): void => {
      attempt(() => closureStatus(span, closure, this.transcript !== undefined));
      attempt(() => span.end(time));
    };
    for (const span of this.tools.values()) finish(span);
    this.tools.clear();
    if (this.chat) finish(this.chat);
    this.chat = undefined;
    if (closure.kind === "error") {
      const error = closure.error;
      attempt(() => recordRunException(this.span, error, this.transcript !== undefined, time));
    }
    attempt(() => this.usageOnRun());
    finish(this.span);
    if (failure) throw failure.error;
  }

  private firstChunk(chat: Span): void {
    this.chunkSeen = true;
    chat.setAttribute(ATTR.timeToFirstChunk, (this.settings.now() - this.requestAt) / 1000);
  }

  private startChat(message: AssistantMessage): void {
    const settings = this.settings;
    if (this.chat) this.chat.end(toHrTime(settings.now()));
    const model = message.model || this.model?.id;
    const attributes: Attributes = { [ATTR.operationName]: OPERATION.chat, [ATTR.turn]: this.turn };
    const provider = settings.providerName ?? (message.provider ? providerName(message.provider) : undefined);
    if (provider !== undefined) attributes[ATTR.providerName] = provider;
    if (model) attributes[ATTR.requestModel] = model;
    if (this.conversationId !== undefined) attributes[ATTR.conversationId] = this.conversationId;
    if (this.server && this.model?.id === model) {
      attributes[ATTR.serverAddress] = this.server.address;
      attributes[ATTR.serverPort] = this.server.port;
    }
    if (this.transcript) {
      attributes[ATTR.inputMessages] = inputMessagesJson(this.transcript);
      if (this.firstAnswerAt < 0) this.firstAnswerAt = this.transcript.length;
    }
    const name = model ? `${OPERATION.chat} ${model}` : OPERATION.chat;
    this.chat = settings.tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes, startTime: toHrTime(this.requestAt) }, this.context);
    this.chunkSeen = false;
    if (!this.providerKnown && provider !== undefined) {
      this.providerKnown = true;
      this.span.setAttribute(ATTR.providerName, provider);
    }
  }

  private messageEnd(message: AgentMessage): void {
    if (isAssistant(message)) this.endChat(message);
    else this.requestAt = this.settings.now();
    this.transcript?.push(message);
  }

  private endChat(message: AssistantMessage): void {
    const span = this.chat;
    if (!span) return;
    const { attributes, input, output, cacheRead, cacheWrite } = answerAttributes(message);
    this.inputTokens += input;
    this.outputTokens += output;
    this.cacheRead += cacheRead;
    this.cacheWrite += cacheWrite;
    this.answers++;
    this.last = message;
    if (this.transcript) attributes[ATTR.outputMessages] = outputMessagesJson(message);
    span.setAttributes(attributes);
    answerStatus(span, message, this.transcript !== undefined);
    span.end(toHrTime(this.settings.now()));
    // Let go of the span only once it ended: should anything above throw, closing the run still finds it (SPEC O4).
    this.chat = undefined;
    this.lastChat = span.spanContext();
  }

  private startTool(event: ToolStart): void {
    const settings = this.settings;
    const now = settings.now();
    this.tools.get(event.toolCallId)?.end(toHrTime(now));
    const attributes: Attributes = {
      [ATTR.operationName]: OPERATION.executeTool,
      [ATTR.toolName]: event.toolName,
      [ATTR.toolCallId]: event.toolCallId,
      // Tools run in the app's process, with arguments the model chose: the conventions' "function".
      [ATTR.toolType]: "function",
      [ATTR.turn]: this.turn,
    };
    const description = settings.tools()?.find((tool) => tool.name === event.toolName)?.description;
    if (description) attributes[ATTR.toolDescription] = description;
    if (this.transcript) attributes[ATTR.toolCallArguments] = safeJson(event.args);
    const links: Link[] | undefined = this.lastChat ? [{ context: this.lastChat }] : undefined;
    const span = settings.tracer.startSpan(`${OPERATION.executeTool} ${event.toolName}`, { kind: SpanKind.INTERNAL, attributes, links, startTime: toHrTime(now) }, this.context);
    this.tools.set(event.toolCallId, span);
  }

  private endTool(event: ToolEnd): void {
    const span = this.tools.get(event.toolCallId);
    if (!span) return;
    // Read loosely: the field is newer than this module's oldest supported loop.
    const cancellation = (event as { cancellation?: unknown }).cancellation;
    if (typeof cancellation === "string") span.setAttribute(ATTR.toolCancellation, cancellation);
    if (event.isError) {
      const aborted = cancellation === "not_started" || cancellation === "stopped";
      // The error text may quote the arguments: content, so only with `captureContent`.
      const description = this.transcript ? redactSecrets(resultText(event.result)) : "The tool call ended with an error result";
      fail(span, aborted ? ERROR_TYPE.aborted : ERROR_TYPE.tool, description);
    } else if (this.transcript) {
      span.setAttribute(ATTR.toolCallResult, resultText(event.result));
    }
    span.end(toHrTime(this.settings.now()));
    this.tools.delete(event.toolCallId);
  }

  private end(event: AgentEnd): void {
    const now = this.settings.now();
    // The loop answers every call before agent_end (SPEC L10); a span still open here has no end of its own.
    for (const span of this.tools.values()) span.end(toHrTime(now));
    this.tools.clear();
    this.chat?.end(toHrTime(now));
    this.chat = undefined;
    const span = this.span;
    this.usageOnRun();
    const limit = (event as { limit?: { limit?: unknown } }).limit;
    if (limit && typeof limit.limit === "string") span.setAttribute(ATTR.limit, limit.limit);
    if (this.last) answerStatus(span, this.last, this.transcript !== undefined);
    if (this.transcript) {
      const prompts = this.transcript.slice(this.runFrom, this.firstAnswerAt < 0 ? undefined : this.firstAnswerAt);
      span.setAttribute(ATTR.inputMessages, inputMessagesJson(prompts));
      if (this.last) span.setAttribute(ATTR.outputMessages, outputMessagesJson(this.last));
    }
    span.end(toHrTime(now));
  }

  /** The run's usage, summed over its answers, on the run span. */
  private usageOnRun(): void {
    if (this.answers === 0) return;
    const attributes: Attributes = {};
    usageAttributes(attributes, this.inputTokens, this.outputTokens, this.cacheRead, this.cacheWrite);
    this.span.setAttributes(attributes);
  }

  /** Events this module has no span for: the approval of a call (SPEC R1) becomes an event on its span. */
  private other(event: { type: string; toolCallId?: unknown; approved?: unknown }): void {
    if (event.type !== "tool_approval_request" && event.type !== "tool_approval_end") return;
    const id = typeof event.toolCallId === "string" ? event.toolCallId : undefined;
    const attributes: Attributes = {};
    if (id !== undefined) attributes[ATTR.toolCallId] = id;
    if (typeof event.approved === "boolean") attributes[ATTR.approved] = event.approved;
    ((id !== undefined && this.tools.get(id)) || this.span).addEvent(`rxagent.${event.type}`, attributes, toHrTime(this.settings.now()));
  }
}
