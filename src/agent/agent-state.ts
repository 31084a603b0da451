/**
 * The store behind `agent.state`, and its reduction from events (SPEC A4, I1); the state's
 * types are in `agent-state-types.ts`, its snapshots in `state-snapshot.ts`.
 *
 * @module
 */
import { initialRunState, reduceRunState, repeatsUpdate, type RunState, withErrorMessage } from "../loop/run-state.js";
import type { AssistantMessage, Model, ThinkingLevel, Tool, Usage } from "../model/messages.js";
import { emptyUsage } from "../model/assistant-message.js";
import { addUsage, copyUsage } from "../model/usage-totals.js";
import { createInitialSystemMessage, getSystemPrompt, isSystem } from "../model/transcript.js";
import type { AgentEvent, AgentMessage, CallCancellation, LimitReached, RunOutcome } from "../model/types.js";
import type { AgentTool, ToolApprovalRequest } from "../model/tool-types.js";
import { type Observable, type SchedulerLike, Subject } from "rxjs";
import { describeError } from "../model/describe-error.js";
import { placeholderModel } from "../model/placeholder-model.js";
import type { ParkedRun } from "./parked-run.js";
import type { AgentInitialState, AgentState, AgentStateSnapshot } from "./agent-state-types.js";
import { freezeSnapshot, type SnapshotSource } from "./state-snapshot.js";

export type { AgentInitialState, AgentState, AgentStateSnapshot } from "./agent-state-types.js";

const NO_APPROVALS: readonly ToolApprovalRequest[] = Object.freeze([]);

function deepFreeze(usage: Usage): Usage {
  Object.freeze(usage.cost);
  return Object.freeze(usage);
}

// Outside `reduce`: a closure there over `event` would allocate its context on every event.
function withoutApproval(approvals: readonly ToolApprovalRequest[], toolCallId: string): readonly ToolApprovalRequest[] {
  return Object.freeze(approvals.filter((request) => request.toolCallId !== toolCallId));
}

/**
 * The mutable state behind `agent.state`. Messages are only ever appended to the current
 * array (assignment and reset install a new one), so a snapshot can share the array and
 * remember its length — a snapshot per event costs O(1), not O(transcript) — and the frozen
 * copy `messages` hands out stays valid until the next message.
 *
 * @internal
 */
export class AgentStateStore implements AgentState, SnapshotSource {
  private _model: Model;
  private _thinkingLevel: ThinkingLevel;
  isStreaming = false;
  /** What the run's events say (streaming message, pending calls, error): the loop's own reducer. */
  private run: RunState = initialRunState;
  /** The `Set` `pendingToolCalls` handed out last, and the run state's `executing` it was made from. */
  private pending: { readonly from: readonly string[]; readonly set: ReadonlySet<string> } | undefined;
  private _tools: AgentTool[];
  private _messages: AgentMessage[];
  /**
   * The frozen copy `messages` handed out last, held weakly: a second array the length of the
   * transcript is kept only while someone uses it (a long run's transcript is most of the heap).
   */
  private view: WeakRef<readonly AgentMessage[]> | undefined;
  /**
   * A resumed run that waits for its first approval answer before it goes on (SPEC R1). It owns
   * the transcript meanwhile: replacing it throws.
   */
  parked: ParkedRun | undefined;
  /** The clock of message timestamps: the Agent's scheduler, else `Date.now`. */
  scheduler: SchedulerLike | undefined;
  /** Told of every change; made when `state$` is first subscribed to (an Agent nobody observes has none). */
  private changes: Subject<void> | undefined;
  private changesView: Observable<void> | undefined;
  /** Told when the transcript is replaced as a whole (the session journal, SPEC S1). */
  onReplaced: ((messages: readonly AgentMessage[], reset: boolean) => void) | undefined;
  /** The snapshot of this moment, once made; every change forgets it. */
  private cached: AgentStateSnapshot | undefined;
  pendingApprovals: readonly ToolApprovalRequest[] = NO_APPROVALS;
  /** Made when the first assistant message adds to it: an idle Agent has none. */
  private _usage: Usage | undefined;
  private usageView: Usage | undefined;
  limit: LimitReached | undefined;
  cancellation: readonly CallCancellation[] | undefined;
  /** How the last run ended (SPEC A9): cleared when a run begins, set when its `agent_end` is reduced. */
  outcome: RunOutcome | undefined;

  constructor(initial: AgentInitialState = {}) {
    // Without one, pi's placeholder: the run goes ahead, and a provider that needs a real id says so (SPEC A8).
    this._model = initial.model ?? placeholderModel();
    this._thinkingLevel = initial.thinkingLevel ?? "off";
    this._tools = initial.tools?.slice() ?? [];
    this._messages = initial.messages?.slice() ?? [];
    const leading = createInitialSystemMessage(initial.systemPrompt, this._tools as Tool[]);
    if (leading && (this._messages[0] as { role?: string } | undefined)?.role !== "system") this._messages.unshift(leading);
  }

  get systemPrompt(): string {
    return getSystemPrompt(this._messages);
  }
  // The transcript owns the prompt (SPEC M5): assigning here would leave the transcript saying otherwise.
  set systemPrompt(_: string) {
    throw new TypeError(
      "state.systemPrompt is read from the transcript's system messages. Call agent.setSystemPrompt(text) while idle, or send a system message with `sections` to change a named part.",
    );
  }

  /** Replaces the leading system message's text (inserting one if there is none); later system messages still apply. */
  replaceSystemPrompt(text: string): void {
    const first = this._messages[0];
    if (first && isSystem(first)) this.messages = [{ ...first, content: text }, ...this._messages.slice(1)];
    else this.messages = [{ role: "system", content: text, timestamp: this.now() }, ...this._messages];
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

  get messages(): readonly AgentMessage[] {
    const view = this.currentView();
    if (view) return view;
    const copy = Object.freeze(this._messages.slice());
    this.view = new WeakRef(copy);
    return copy;
  }

  /** The frozen copy of the transcript as it is now, if one is still alive. */
  currentView(): readonly AgentMessage[] | undefined {
    const view = this.view?.deref();
    return view?.length === this._messages.length ? view : undefined;
  }
  set messages(messages: readonly AgentMessage[]) {
    this.assertUnparked();
    this.install(messages);
    this.onReplaced?.(this._messages.slice(), false);
  }

  /** Installs `messages` as the transcript without telling `onReplaced` (a loaded session's). */
  install(messages: readonly AgentMessage[]): void {
    this._messages = messages.slice();
    this.view = undefined;
    this.touch();
  }

  /** The live transcript, for the Agent's own reads (a run's context is copied from it). */
  get transcript(): readonly AgentMessage[] {
    return this._messages;
  }

  get streamingMessage(): AgentMessage | undefined {
    return this.run.streamingMessage;
  }

  /** A `Set` view of the run state's `executing`, made when it changed and is read. */
  get pendingToolCalls(): ReadonlySet<string> {
    const executing = this.run.executing;
    if (this.pending?.from !== executing) this.pending = { from: executing, set: new Set(executing) };
    return this.pending.set;
  }

  get errorMessage(): string | undefined {
    return this.run.errorMessage;
  }
  set errorMessage(errorMessage: string | undefined) {
    this.run = withErrorMessage(this.run, errorMessage);
  }

  /** The usage totals, as a frozen copy made when they changed and are read. */
  get usage(): Usage {
    return (this.usageView ??= deepFreeze(this._usage ? copyUsage(this._usage) : emptyUsage()));
  }

  /** Installs the usage totals a loaded session had. */
  installUsage(usage: Usage): void {
    this._usage = copyUsage(usage);
    this.usageView = undefined;
  }

  /** Marks a change: `state$` emits a new snapshot. */
  touch(): void {
    this.cached = undefined;
    this.changes?.next();
  }

  /** The Agent could not end the run cleanly (its loop, an `agent_end` listener, the journal): the state says so. */
  runFailed(errorMessage: string): void {
    this.errorMessage = errorMessage;
    this.outcome = "failed";
  }

  /** A stream given to the Agent (`steerFrom()`, `answerApprovals()`, ...) failed: the state says so. */
  streamFailed(source: string, error: unknown): void {
    this.failedOutsideRun(`The stream given to ${source}() failed: ${describeError(error)}`);
  }

  /** A failure outside a run's events (a stream, a refused approval answer): `outcome` is `failed` while no run goes (A9). */
  failedOutsideRun(errorMessage: string): void {
    this.errorMessage = errorMessage;
    if (!this.isStreaming) this.outcome = "failed";
    this.touch();
  }

  /** The changes from now on (`touch`), for `state$`. */
  get changed$(): Observable<void> {
    return (this.changesView ??= (this.changes ??= new Subject<void>()).asObservable());
  }

  /** The time now, on the Agent's scheduler if it has one. */
  now(): number {
    return this.scheduler ? this.scheduler.now() : Date.now();
  }

  /** Throws while a parked run owns the transcript. */
  assertUnparked(): void {
    if (this.parked) throw new Error("The resumed run waits for approvals: approve() or deny() them before changing the transcript.");
  }

  /** A run begins: nothing streams, nothing is pending, the last error is forgotten. */
  beginRun(): void {
    this.isStreaming = true;
    this.run = initialRunState;
    this.pendingApprovals = NO_APPROVALS;
    this.limit = undefined;
    this.cancellation = undefined;
    this.outcome = undefined;
    this.touch();
  }

  /** The run is over and its listeners settled: nothing streams or is pending; the error stays. */
  endRun(): void {
    this.isStreaming = false;
    this.pendingApprovals = NO_APPROVALS;
    this.run = withErrorMessage(initialRunState, this.run.errorMessage);
    this.touch();
  }

  /** Clears the run state and installs `messages` as the transcript. */
  reset(messages: AgentMessage[]): void {
    this.assertUnparked();
    this.run = initialRunState;
    this.limit = undefined;
    this.cancellation = undefined;
    this.outcome = undefined;
    this.install(messages);
    this.onReplaced?.(this._messages.slice(), true);
  }

  /** Folds one loop event into the state (before any listener sees it), with the loop's reducer. */
  reduce(event: AgentEvent): void {
    // The per-delta path: an update of the message already streaming changes only the snapshot.
    // The rest is a method of its own, so this one stays small enough to inline into that path.
    if (repeatsUpdate(this.run, event)) this.touch();
    else this.reduceChange(event);
  }

  private reduceChange(event: AgentEvent): void {
    this.run = reduceRunState(this.run, event);
    switch (event.type) {
      case "message_end":
        this._messages.push(event.message);
        if ((event.message as { role?: string }).role === "assistant") {
          addUsage((this._usage ??= emptyUsage()), (event.message as AssistantMessage).usage);
          this.usageView = undefined;
        }
        break;
      case "tool_approval_request":
        this.pendingApprovals = Object.freeze([...this.pendingApprovals, { toolCallId: event.toolCallId, toolName: event.toolName, args: event.args }]);
        break;
      case "tool_approval_end":
        this.pendingApprovals = withoutApproval(this.pendingApprovals, event.toolCallId);
        break;
      case "agent_end":
        this.outcome = event.outcome;
        this.limit = event.limit;
        this.cancellation = event.cancellation ? Object.freeze(event.cancellation.slice()) : undefined;
        break;
    }
    this.touch();
  }

  /** An immutable view of this moment; the same object until the next change. */
  snapshot(): AgentStateSnapshot {
    return (this.cached ??= freezeSnapshot(this));
  }
}
