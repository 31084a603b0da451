/**
 * The stateful shell around the loop (SPEC A1–A7): it owns the transcript, runs one prompt at
 * a time, queues steering and follow-up, awaits its listeners as a barrier, and exposes the
 * same run as promises, listeners and Observables. Tool arguments are checked by the
 * interpreting validator unless `validator` names another (it needs no `eval`, and a bundle that
 * never names `ajvValidator` carries no ajv); approvals, limits and scheduling are run control's.
 * What it holds between runs (settings, state, listeners, queues) is its base, `agent-base.ts`.
 *
 * @module
 */
import { defer, EMPTY, type Observable, type Subscription } from "rxjs";
import { checkRunOptions } from "../loop/agent-loop.js";
import type { AgentLoopConfig } from "../loop/loop-config.js";
import type { ImageContent, StreamFn } from "../model/messages.js";
import { isPlaceholderModel } from "../model/placeholder-model.js";
import { getCurrentSystemMessage } from "../model/transcript.js";
import type { AgentEvent } from "../model/types.js";
import type { ToolApprovalDecision } from "../model/tool-types.js";
import { assertToolSet } from "../tools/tool-set.js";
import { interpretingValidator } from "../tools/validators/interpreting-validator.js";
import { AgentBase } from "./agent-base.js";
import type { CheckedRun } from "./agent-runner.js";
import { agentLoopConfig } from "./agent-loop-config.js";
import { agentSessionHost } from "./agent-session-host.js";
import { answerApproval, answerApprovalsFrom } from "./approval-answering.js";
import { continuation } from "./continuation.js";
import { type PromptInput, promptMessages } from "./prompt-input.js";
import type { RunPlan } from "./run-plan.js";
import type { SessionHost } from "./session-port.js";

export type { AgentListener } from "./listener-barrier.js";
export type { AgentOptions } from "./agent-options.js";
export type { PromptInput } from "./prompt-input.js";

/**
 * A stateful agent: `prompt()` runs the loop over its transcript, listeners are awaited, and
 * the state is reduced from the events.
 *
 * @example
 * ```ts
 * const agent = new Agent({ initialState: { systemPrompt: "Be brief.", model, tools }, streamFn });
 * agent.events$.pipe(ofType("message_update")).subscribe((update) => render(update.message));
 * await agent.prompt("What is the weather in Oslo?");
 * agent.state.messages; // the whole transcript
 * ```
 */
export class Agent extends AgentBase {
  private host: SessionHost | undefined;

  /**
   * Approves a call that waits (SPEC R1), optionally with edited arguments (validated again).
   * A call of a resumed session that waited when its process stopped is answered here too: the
   * run goes on from there (see `waitForIdle()`). Throws when no call with this id waits.
   *
   * @example
   * ```ts
   * agent.events$.pipe(ofType("tool_approval_request")).subscribe((request) => showDialog(request.toolCallId, request.args));
   * // when the user clicks:
   * agent.approve(toolCallId); // or agent.deny(toolCallId, "Not this folder.")
   * ```
   */
  approve(toolCallId: string, options: { args?: unknown } = {}): void {
    // `args: undefined` is no edit: the call runs with its own arguments.
    this.answer(toolCallId, { approved: true, args: options.args });
  }

  /** Denies a call that waits (SPEC R1): it gets an error result with `reason`, which the model reads. */
  deny(toolCallId: string, reason?: string): void {
    this.answer(toolCallId, { approved: false, reason });
  }

  /**
   * Answers approvals from a stream (a UI's clicks, a queue's messages) until the returned
   * subscription is unsubscribed. An answer for a call that does not wait is put in
   * `state.errorMessage`; the stream goes on.
   *
   * @example
   * ```ts
   * const answering = agent.answerApprovals(clicks$.pipe(map((c) => ({ toolCallId: c.id, approved: c.ok }))));
   * ```
   */
  answerApprovals(answers: Observable<ToolApprovalDecision & { toolCallId: string }>): Subscription {
    return answerApprovalsFrom(answers, (toolCallId, decision) => this.answer(toolCallId, decision), this.store);
  }

  private answer(toolCallId: string, decision: ToolApprovalDecision): void {
    answerApproval(toolCallId, decision, this.store, this.runner, (parked) => this.run({ resume: parked }));
  }

  /** The AbortSignal of the current run, if one is active. */
  get signal(): AbortSignal | undefined {
    return this.runner.active?.signal;
  }

  /**
   * Aborts the current run: it ends with an `aborted` assistant message (SPEC L10), outcome
   * `aborted` (L15). The queues stay as they are, as in pi (A10): what the run did not take waits
   * for the next `prompt()` or `continue()`; a poll point the run still reaches (steering after its
   * tool batch, follow-up where it would stop) commits what it takes before the aborted answer.
   *
   * @example
   * ```ts
   * agent.abort(); await agent.waitForIdle();
   * if (agent.hasQueuedMessages()) await agent.continue(); // what was queued meanwhile
   * ```
   */
  abort(): void {
    const active = this.runner.active;
    if (!active) return;
    // On record first: a process that stops before the run ended must not have it continued.
    if (!active.signal.aborted) this.runner.recorder?.stopping("aborted");
    active.controller.abort();
  }

  /** Resolves when no run is active, after the last run's `agent_end` listeners settled. */
  waitForIdle(): Promise<void> {
    return this.runner.active?.idle ?? Promise.resolve();
  }

  /**
   * Replaces the system prompt from the next request on. The transcript owns the prompt (SPEC
   * M5), so this rewrites the text of its leading system message (or adds one); tool
   * declarations and named `sections` of later system messages stay. To change a part while a
   * run is going, steer a system message with `sections` instead.
   *
   * @example
   * ```ts
   * agent.setSystemPrompt("Answer in French.");
   * agent.state.systemPrompt; // "Answer in French."
   * ```
   */
  setSystemPrompt(text: string): void {
    if (this.runner.active) throw new Error("setSystemPrompt() while a run is active: wait for it (await agent.waitForIdle()), or steer a system message with `sections`.");
    if (typeof text !== "string") throw new TypeError("setSystemPrompt() takes the prompt text as a string.");
    this.store.replaceSystemPrompt(text);
  }

  /** Clears the transcript (keeping the replayed system baseline), the queues and the error. */
  reset(): void {
    if (this.runner.active) throw new Error("Agent is already processing. Wait for completion before resetting.");
    this.store.assertUnparked();
    const baseline = getCurrentSystemMessage(this.store.transcript);
    this.clearAllQueues();
    this.store.reset(baseline ? [baseline] : []);
  }

  /**
   * Runs the loop with new input; resolves after the run's `agent_end` listeners settled.
   * Rejects while a run is active: use `steer()` or `followUp()` then.
   */
  prompt(input: PromptInput, images?: ImageContent[]): Promise<void> {
    return this.untilDone(() => this.promptRun(input, images, false));
  }

  /**
   * Continues from the transcript (SPEC A3): after a user or tool-result message it asks the
   * model again; after an assistant message it starts a run with one queued steering batch, else
   * one follow-up batch (the run's polls take what else is queued), else rejects.
   */
  continue(): Promise<void> {
    return this.untilDone(() => this.continueRun(false));
  }

  /**
   * The Observable way to run a prompt (SPEC A7): subscribing starts the run, the run's events
   * arrive as they happen, it completes when the agent is idle again, and unsubscribing aborts
   * the run. Errors at once when a run is already active.
   */
  prompt$(input: PromptInput, images?: ImageContent[]): Observable<AgentEvent> {
    return this.promptRun(input, images, true);
  }

  /** {@link Agent.continue} as an Observable, like {@link Agent.prompt$}. */
  continue$(): Observable<AgentEvent> {
    return this.continueRun(true);
  }

  /** A prompt's run; its events are emitted when `tells`. */
  private promptRun(input: PromptInput, images: ImageContent[] | undefined, tells: boolean): Observable<AgentEvent> {
    return defer(() => {
      if (this.runner.active) throw new Error("Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion.");
      const messages = promptMessages(input, this.now(), images);
      if (messages.length === 0) throw new Error("prompt() needs at least one message.");
      return this.run({ prompts: messages }, tells);
    });
  }

  /** A continuation's run; its events are emitted when `tells`. */
  private continueRun(tells: boolean): Observable<AgentEvent> {
    return defer(() => {
      if (this.runner.active) throw new Error("Agent is already processing. Wait for completion before continuing.");
      return continuation(this.store.transcript, this.queues, (plan) => this.run(plan, tells));
    });
  }

  private untilDone(start: () => Observable<AgentEvent>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      start().subscribe({ error: reject, complete: resolve });
    });
  }

  /**
   * Opens the session (SPEC S5): takes its lease, loads its journal — or creates it with the
   * current transcript — and finishes what a stopped process left open: a run that never ended
   * is continued when its transcript asks for more, tool calls without a result get one (run
   * again only for `replay: "safe"` tools), queued messages wait in their queues again, each to
   * be delivered once. Resolves when the Agent is idle.
   *
   * @example
   * ```ts
   * const agent = new Agent({ initialState: { model, tools }, streamFn, session: agentSession({ store, id: "chat-1" }) });
   * await agent.resume();
   * agent.state.messages; // the transcript as the last process left it
   * ```
   */
  resume(): Promise<void> {
    return this.untilDone(() => this.resume$());
  }

  /**
   * {@link Agent.resume} as an Observable: the events of the run a resume continues, if any; it
   * completes when the Agent is idle. With a synchronous store (`InMemorySessionStore`) all of it
   * runs synchronously, in virtual time under `TestScheduler.run` (SPEC L12).
   */
  resume$(): Observable<AgentEvent> {
    return defer(() => {
      const session = this.session;
      if (!session) throw new Error("resume() needs a session: pass `session: agentSession({ store, id })` (from rxagent/session) in the Agent's options.");
      return session.resume$(this.sessionHost());
    });
  }

  /**
   * Lets the session go (SPEC S3): waits until what was written is on record, then releases the
   * lease, so another process can take the session at once instead of after the lease's time.
   * The Agent no longer journals; `resume()` opens the session again. Rejects while a run is
   * active.
   *
   * @example
   * ```ts
   * await agent.prompt("Summarize the ticket.");
   * await agent.closeSession(); // the next worker may resume it now
   * ```
   */
  closeSession(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.closeSession$().subscribe({ error: reject, complete: resolve });
    });
  }

  /** {@link Agent.closeSession} as an Observable (synchronous with a synchronous store). */
  closeSession$(): Observable<never> {
    return defer(() => {
      if (this.runner.active) throw new Error("closeSession() while a run is active: wait for it (await agent.waitForIdle()).");
      return this.session ? this.session.close$(this.sessionHost()) : EMPTY;
    });
  }

  /** What the session may do to this Agent: install state, journal, run, park. */
  private sessionHost(): SessionHost {
    return (this.host ??= agentSessionHost(this.store, this.queues, this.runner, {
      now: () => this.now(),
      assertRunnable: () => void this.runnable(),
      missing: () => (!this.streamFn ? "streamFn" : isPlaceholderModel(this.store.model) ? "model" : undefined),
      continue$: () => this.continue$(),
      run: (plan) => this.run(plan),
    }));
  }

  /**
   * One run, owned by the Agent: a subscriber leaving only aborts it, the run still settles. Its
   * events are emitted unless `tells` is false.
   */
  private run(plan: RunPlan, tells = true): Observable<AgentEvent> {
    if (this.store.parked) {
      const ids = this.store.parked.approvals.map((request) => request.toolCallId).join(", ");
      throw new Error(`The resumed run waits for approval of tool call${this.store.parked.approvals.length === 1 ? "" : "s"} ${ids}: approve() or deny() first.`);
    }
    if (this.session && !this.session.isOpenFor(this.sessionHost())) throw new Error(`The Agent keeps session "${this.session.id}": call \`await agent.resume()\` before the first prompt.`);
    const { streamFn, checked } = this.runnable();
    return this.runner.run(plan, streamFn, () => this.loopConfig(), checked, tells);
  }

  /** The config of a run, as the settings and the state are when it starts. */
  private loopConfig(): AgentLoopConfig {
    return agentLoopConfig(this, { state: this.store, runControl: this.control(), queues: this.queues, runner: this.runner });
  }

  /** What a run needs from the Agent's settings; throws when they cannot make one. */
  private runnable(): { streamFn: StreamFn; checked: CheckedRun } {
    const control = this.control();
    checkRunOptions(this, control);
    const streamFn = this.streamFn;
    if (!streamFn) throw new Error("The Agent has no streamFn: pass one in the options or assign agent.streamFn.");
    const validator = this.validator ?? interpretingValidator;
    assertToolSet(this.store.tools, validator);
    return { streamFn, checked: { validator, control } };
  }
}
