/**
 * The store behind `agent.state` (SPEC A4, A7, I1): the fold of the Agent's actions by
 * {@link reduceAgentState}, with `scan`, into the state the Agent reads and `state$` emits. The
 * state's types are in `agent-state-types.ts`, its snapshots in `state-snapshot.ts`.
 *
 * @module
 */
import type { Observable, SchedulerLike } from "rxjs";
import { HeldFold } from "../engine/held-fold.js";
import type { Model, ThinkingLevel, Tool, Usage } from "../model/messages.js";
import { emptyUsage } from "../model/assistant-message.js";
import { createInitialSystemMessage, getSystemPrompt, isSystem } from "../model/transcript.js";
import type { AgentEvent, AgentMessage, CallCancellation, LimitReached, RunOutcome } from "../model/types.js";
import type { AgentTool, ToolApprovalRequest } from "../model/tool-types.js";
import { describeError } from "../model/describe-error.js";
import { placeholderModel } from "../model/placeholder-model.js";
import type { ParkedRun } from "./parked-run.js";
import type { AgentInitialState, AgentState, AgentStateSnapshot } from "./agent-state-types.js";
import { type AgentStateAction, type AgentStateValue, initialAgentState, reduceAgentState, transcriptOf } from "./agent-state-reducer.js";
import { freezeSnapshot } from "./state-snapshot.js";

export type { AgentInitialState, AgentState, AgentStateSnapshot } from "./agent-state-types.js";

const NO_USAGE: Usage = Object.freeze({ ...emptyUsage(), cost: Object.freeze(emptyUsage().cost) });

/**
 * `agent.state`: reads the newest value of the fold, and turns each write into an action.
 *
 * ```text
 * actions:  -m---b--e--e--n-   (m: state.model = …, b: run begun, e: an event, n: run ended)
 * states:   sv--v--v--v--v-    (scan(reduceAgentState, initial), the newest one held)
 * ```
 *
 * @internal
 */
export class AgentStateStore implements AgentState {
  /**
   * The state, now and after every action: the actions folded by `scan(reduceAgentState)`, held
   * in a `BehaviorSubject` as NgRx's store holds it (without its queue scheduler), so
   * `agent.state` reads it synchronously and a write is read back at once (SPEC L12). The
   * engine's `HeldFold`: this runs for every streamed delta.
   */
  private readonly fold: HeldFold<AgentStateValue, AgentStateAction>;
  /**
   * The frozen copy `messages` handed out last, by the array it was made from; both held weakly
   * (a long transcript is most of the heap, and a replaced one must not outlive its last reader).
   */
  private readonly views = new WeakMap<readonly AgentMessage[], WeakRef<readonly AgentMessage[]>>();
  /** The `Set` `pendingToolCalls` handed out last, and the run state's `executing` it was made from. */
  private pending: { readonly from: readonly string[]; readonly set: ReadonlySet<string> } | undefined;
  /** The snapshot of this moment, once made; every action forgets it. */
  private cached: AgentStateSnapshot | undefined;
  /**
   * Not state but who owns the transcript: a resumed run that waits for its first approval
   * answer before it goes on (SPEC R1). Replacing the transcript meanwhile throws.
   */
  parked: ParkedRun | undefined;
  /** The clock of message timestamps: the Agent's scheduler, else `Date.now`. */
  scheduler: SchedulerLike | undefined;
  /** Told when the app replaces the transcript as a whole (the session journal, SPEC S1). */
  onReplaced: ((messages: readonly AgentMessage[], reset: boolean) => void) | undefined;

  constructor(initial: AgentInitialState = {}) {
    const tools = initial.tools?.slice() ?? [];
    const messages = initial.messages?.slice() ?? [];
    const leading = createInitialSystemMessage(initial.systemPrompt, tools as Tool[]);
    if (leading && (messages[0] as { role?: string } | undefined)?.role !== "system") messages.unshift(leading);
    // Without a model, pi's placeholder: the run goes ahead, and a provider that needs a real id says so (SPEC A8).
    const first = initialAgentState(messages, initial.model ?? placeholderModel(), initial.thinkingLevel ?? "off", tools);
    this.fold = new HeldFold(reduceAgentState, first);
  }

  /** Folds `action` into the state, synchronously; `state$` hears of it with a new snapshot (a streamed delta keeps the value). */
  dispatch(action: AgentStateAction): void {
    this.cached = undefined;
    this.fold.dispatch(action);
  }

  /** The newest value of the fold. */
  get value(): AgentStateValue {
    return this.fold.value;
  }

  /** The newest value at once, then each later one (hot). */
  get states(): Observable<AgentStateValue> {
    return this.fold.values$;
  }

  get systemPrompt(): string {
    return getSystemPrompt(this.transcript);
  }
  // The transcript owns the prompt (SPEC M5): assigning here would leave the transcript saying otherwise.
  set systemPrompt(_: string) {
    throw new TypeError(
      "state.systemPrompt is read from the transcript's system messages. Call agent.setSystemPrompt(text) while idle, or send a system message with `sections` to change a named part.",
    );
  }

  /** Replaces the leading system message's text (inserting one if there is none); later system messages still apply. */
  replaceSystemPrompt(text: string): void {
    const messages = this.transcript;
    const first = messages[0];
    if (first && isSystem(first)) this.messages = [{ ...first, content: text }, ...messages.slice(1)];
    else this.messages = [{ role: "system", content: text, timestamp: this.now() }, ...messages];
  }

  get model(): Model {
    return this.value.model;
  }
  set model(model: Model) {
    this.dispatch({ type: "[state] model", model });
  }

  get thinkingLevel(): ThinkingLevel {
    return this.value.thinkingLevel;
  }
  set thinkingLevel(thinkingLevel: ThinkingLevel) {
    this.dispatch({ type: "[state] thinking level", thinkingLevel });
  }

  /** The Agent's own array (pi's API lets an app push onto it); assigning installs a copy. */
  get tools(): AgentTool[] {
    return this.value.tools;
  }
  set tools(tools: AgentTool[]) {
    this.dispatch({ type: "[state] tools", tools: tools.slice() });
  }

  /** The transcript, as a frozen copy made once per length and shared while someone holds it. */
  get messages(): readonly AgentMessage[] {
    return this.frozenTranscript(this.value);
  }
  set messages(messages: readonly AgentMessage[]) {
    this.assertUnparked();
    this.dispatch({ type: "[state] transcript", messages, reset: false });
    this.onReplaced?.(this.transcript.slice(), false);
  }

  /** The frozen transcript of `value` (its first `messageCount` messages): the one handed out last if it is alive, else a new one, kept for the next read when `keep`. */
  frozenTranscript(value: AgentStateValue, keep = true): readonly AgentMessage[] {
    const held = this.views.get(value.messages)?.deref();
    if (held?.length === value.messageCount) return held;
    const copy = Object.freeze(transcriptOf(value));
    if (keep) this.views.set(value.messages, new WeakRef(copy));
    return copy;
  }

  /**
   * The live transcript, for the Agent's own reads (a run's context is copied from it): the
   * newest value always holds its array's end (history is one line), so the array is it.
   */
  get transcript(): readonly AgentMessage[] {
    return this.value.messages;
  }

  get isStreaming(): boolean {
    return this.value.isStreaming;
  }

  get streamingMessage(): AgentMessage | undefined {
    return this.value.run.streamingMessage;
  }

  /** A `Set` view of the run state's `executing`, made when it changed and is read. */
  get pendingToolCalls(): ReadonlySet<string> {
    const executing = this.value.run.executing;
    if (this.pending?.from !== executing) this.pending = { from: executing, set: new Set(executing) };
    return this.pending.set;
  }

  get errorMessage(): string | undefined {
    return this.value.run.errorMessage;
  }

  get pendingApprovals(): readonly ToolApprovalRequest[] {
    return this.value.pendingApprovals;
  }

  /** The usage totals, frozen. */
  get usage(): Usage {
    return this.value.usage ?? NO_USAGE;
  }

  get limit(): LimitReached | undefined {
    return this.value.limit;
  }

  get cancellation(): readonly CallCancellation[] | undefined {
    return this.value.cancellation;
  }

  get outcome(): RunOutcome | undefined {
    return this.value.outcome;
  }

  /** Installs what a session's journal held: transcript, usage totals, last error and outcome, as one change. */
  restore(image: { messages: readonly AgentMessage[]; usage: Usage; errorMessage: string | undefined; outcome: RunOutcome | undefined }): void {
    this.dispatch({ type: "[state] restored", ...image });
  }

  /** The Agent could not end the run cleanly (its loop, an `agent_end` listener, the journal): the state says so. */
  runFailed(errorMessage: string): void {
    this.dispatch({ type: "[state] failed", errorMessage, inRun: true });
  }

  /** A stream given to the Agent (`steerFrom()`, `answerApprovals()`, ...) failed: the state says so. */
  streamFailed(source: string, error: unknown): void {
    this.failedOutsideRun(`The stream given to ${source}() failed: ${describeError(error)}`);
  }

  /** A failure outside a run's events (a stream, a refused approval answer): `outcome` is `failed` while no run goes (A9). */
  failedOutsideRun(errorMessage: string): void {
    this.dispatch({ type: "[state] failed", errorMessage, inRun: false });
  }

  /** The approvals a parked run waits for, shown in `pendingApprovals` (none: it was dropped). */
  showApprovals(approvals: readonly ToolApprovalRequest[]): void {
    this.dispatch({ type: "[state] approvals", approvals });
  }

  /** The time now, on the Agent's scheduler if it has one. */
  now(): number {
    return this.scheduler ? this.scheduler.now() : Date.now();
  }

  /** Throws while a parked run owns the transcript. */
  assertUnparked(): void {
    if (this.parked) throw new Error("The resumed run waits for approvals: approve() or deny() them before changing the transcript.");
  }

  /** A run begins: nothing streams, nothing is pending, the last run is forgotten. */
  beginRun(): void {
    this.dispatch({ type: "[state] run begun" });
  }

  /** The run is over and its listeners settled: nothing streams or is pending; the error stays. */
  endRun(): void {
    this.dispatch({ type: "[state] run ended" });
  }

  /** Forgets the last run and installs `messages` as the transcript. */
  reset(messages: AgentMessage[]): void {
    this.assertUnparked();
    this.dispatch({ type: "[state] transcript", messages, reset: true });
    this.onReplaced?.(this.transcript.slice(), true);
  }

  /** Folds one loop event into the state (before any listener sees it). */
  reduce(event: AgentEvent): void {
    this.dispatch(event);
  }

  /** An immutable view of the newest value; the same object until the next action. */
  snapshot(): AgentStateSnapshot {
    return (this.cached ??= freezeSnapshot(this.value, this));
  }
}
