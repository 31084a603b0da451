/**
 * The agent loop (SPEC L1–L12): the entry points, the abort wiring, and the recursive expand
 * over the run's phases.
 *
 * Read it like the pseudo-code it implements:
 *
 * ```text
 * agent_start, turn_start, prompts
 * pending = poll steering
 * loop (expandSteps):                               ── inner loop: tools and steering (turn.ts)
 *   [not first] prepareNextTurn, poll steering if nothing pending, turn_start
 *   append pending messages (tool changes declared)
 *   prepareRequest → transformContext → convertToLlm → provider → message events
 *   error | aborted → finishTurn (ignored), turn_end, agent_end; stop
 *   run the tool calls (length stop: fail them all)
 *   finishTurn → turn_end; `end` → agent_end; stop   (turn-end.ts)
 *   pending = poll steering; tool results or steering → next turn
 *   else follow-up = poll follow-up                 ── outer loop: follow-up
 *     follow-up → next turn; `continue` decided → next turn; else agent_end
 * a hook or listener throws → catchError: failure.ts closes what is open
 * ```
 *
 * @module
 */
import { catchError, concat, defer, finalize, type Observable, type Subscription, tap } from "rxjs";
import { expandSteps } from "../engine/expand-steps.js";
import { checkDelay } from "../model/run-limits.js";
import type { RunControl } from "../tools/run-control-port.js";
import { runControl } from "../run-control/run-control.js";
import type { StreamFn } from "../model/messages.js";
import type { AgentContext, AgentEvent, AgentMessage } from "../model/types.js";
import { failure } from "./failure.js";
import type { AgentLoopConfig } from "./loop-config.js";
import { AfterTurn, Append, FinishTurn, FirstPoll, isStep, type Phase, Responded, SendRequest, type Step } from "./steps.js";
import { assertOneQueueSource } from "./queue-poll.js";
import { type AgentLoopRun, Run, type ValidatedLoopRun } from "./run.js";
import { afterResponse, append, request, resumeTurn } from "./turn.js";
import { afterTurn, endRun, finishTurn } from "./turn-end.js";
import { assertToolSet } from "../tools/tool-set.js";
import { interpretingValidator } from "../tools/validators/interpreting-validator.js";

export type { AgentLoopRun } from "./run.js";

/**
 * Starts a run with new prompt messages. Cold: each subscription is one run, and
 * unsubscribing cancels it (provider request and running tools are aborted through their
 * signal, Observable tools are unsubscribed, nothing more is emitted).
 *
 * @param prompts Messages that open the run (usually one user message).
 * @param context The transcript so far and the executable tools; copied, never mutated.
 * @param config The model, stream options and hooks.
 * @param signal Graceful abort: the run ends with an `aborted` assistant message.
 * @param streamFn The provider.
 * @return The run's events, from `agent_start` to `agent_end`.
 *
 * @example
 * ```ts
 * import { ofType } from "rxagent/operators";
 * agentLoop([{ role: "user", content: "Hi", timestamp: Date.now() }], { messages: [] }, { model }, undefined, streamFn)
 *   .pipe(ofType("message_update"))
 *   .subscribe((e) => render(e.message));
 * ```
 * @see agentLoopContinue
 */
export function agentLoop(
  prompts: AgentMessage[],
  context: AgentContext,
  config: AgentLoopConfig,
  signal?: AbortSignal,
  streamFn?: StreamFn,
): Observable<AgentEvent> {
  return runAgentLoop({ prompts, context, config, signal, streamFn: requireStreamFn(streamFn) });
}

/**
 * Continues from the current transcript without adding a message (retries, resumed sessions).
 * Throws at call time when the transcript is empty or ends with an assistant message.
 *
 * @see agentLoop
 */
export function agentLoopContinue(context: AgentContext, config: AgentLoopConfig, signal?: AbortSignal, streamFn?: StreamFn): Observable<AgentEvent> {
  assertCanContinue(context.messages);
  return runAgentLoop({ context, config, signal, streamFn: requireStreamFn(streamFn) });
}

/** Throws the reference's errors for a transcript the loop cannot continue from. */
export function assertCanContinue(messages: readonly AgentMessage[]): void {
  if (messages.length === 0) throw new Error("Cannot continue: no messages in context");
  const last = messages[messages.length - 1] as { role?: string };
  if (last.role === "assistant") throw new Error("Cannot continue from message role: assistant");
}

/** The provider argument of the entry points, checked. @internal */
export function requireStreamFn(streamFn: StreamFn | undefined): StreamFn {
  if (typeof streamFn !== "function") throw new TypeError("agentLoop needs a stream function (the provider): pass it as the last argument.");
  return streamFn;
}

/**
 * The loop with a waiting `emit`: the entry the `Agent` builds on (SPEC L11). Tool arguments are
 * checked by the config's `validator`, else the interpreting one (no `eval`; a bundle that never
 * names `ajvValidator` carries no ajv); approvals, limits and scheduling are the config's
 * `runControl`, else rxagent's.
 *
 * Unsubscribing before the run settled tears everything down first, then fires the signal, so
 * nothing reacts to the abort by emitting (SPEC L10).
 *
 * @internal
 */
export function runAgentLoop(input: AgentLoopRun): Observable<AgentEvent> {
  const { config } = input;
  assertOneQueueSource(config.getSteeringMessages, config.steering$, "getSteeringMessages", "steering$");
  assertOneQueueSource(config.getFollowUpMessages, config.followUp$, "getFollowUpMessages", "followUp$");
  const validator = config.validator ?? interpretingValidator;
  assertToolSet(input.context.tools, validator);
  const control = config.runControl ?? runControl;
  checkRunOptions(config, control);
  return launchAgentLoop({ ...input, validator, control });
}

/** Throws a `TypeError` for run options that cannot mean anything (SPEC R2–R4). @internal */
export function checkRunOptions(config: Pick<AgentLoopConfig, "limits" | "maxConcurrency" | "abortGraceMs" | "requestApproval">, control: RunControl): void {
  checkDelay("abortGraceMs", config.abortGraceMs);
  control.checkConfig(config);
}

/**
 * The loop for a run whose config and tools were already checked: the Agent checks them in
 * `prompt()`, before it takes queued messages, so they are not checked twice.
 *
 * The run's phases go through `expandSteps`; each event is observed by the run on its way out
 * (its state is the fold of its events); a failure anywhere becomes the normalized ending of
 * `failure.ts`, subscribed once the failed phases are torn down (`catchError`). The deadline and
 * the queues stop after everything else. Unsubscribing before the run settled tears everything
 * down first, then fires the signal, so nothing reacts to the abort by emitting (SPEC L10):
 * `finalize` runs after the source's teardown.
 *
 * ```text
 * phases:   -a-t-#
 * failure:       (ETA|)
 * result:   -a-t-(ETA|)
 * ```
 *
 * @internal
 */
export function launchAgentLoop(input: ValidatedLoopRun): Observable<AgentEvent> {
  return defer(() => {
    const controller = new AbortController();
    const outer = input.signal;
    // Only ever `outer`'s own listener.
    const forwardAbort = (): void => controller.abort(outer!.reason);
    if (outer?.aborted) controller.abort(outer.reason);
    else outer?.addEventListener("abort", forwardAbort);
    const run = new Run(input, controller.signal);
    const deadline = runDeadline(run, controller);
    let settled = false;
    const over = (): void => void (settled = true);
    return start(run).pipe(
      // Flat stack by construction: a step that comes up while another is projected waits for it.
      expandSteps(isStep, (step) => phase(run, step)),
      // The run's state is the fold of its events, each observed on its way out; the phases'
      // completion, or the failure's end, settles the run (one tap on the per-event path).
      tap({ next: (event) => run.observe(event), complete: over }),
      catchError((error: unknown) =>
        defer(() => {
          // Aborted already: the failure came after a user's abort or the time limit, so its answer
          // is `aborted`, as in pi; the outcome is the abort's only when the error is the abort's
          // own (a hook's fetch rejecting with the signal's reason), else `failed` (failure.ts).
          const aborted = controller.signal.aborted;
          if (!aborted && !run.state.ended) controller.abort(error);
          return failure(run, error, aborted).pipe(tap({ error: over, complete: over }));
        }),
      ),
      finalize(() => {
        deadline?.unsubscribe();
        run.stopQueues();
        // Also after agent_end: a tool that ignored the abort may still run, and hears it here.
        if (!settled) controller.abort(new DOMException("The run was unsubscribed", "AbortError"));
        outer?.removeEventListener("abort", forwardAbort);
      }),
    );
  });
}

/** The phase a step starts (see `steps.ts`). */
function phase(run: Run, step: Step): Observable<Phase> {
  if (step instanceof Append) return append(run, step);
  if (step instanceof SendRequest) return request(run);
  if (step instanceof Responded) return afterResponse(run, step);
  if (step instanceof FinishTurn) return finishTurn(run, step);
  if (step instanceof AfterTurn) return afterTurn(run, step);
  if (step instanceof FirstPoll) return run.poll(run.steering, (pending) => append(run, new Append(pending)));
  return endRun(run);
}

/**
 * The run's time limit (SPEC R2), on the loop's scheduler: when it passes, the run is aborted
 * with the limit as the reason, and ends as an abort does (SPEC L10), `agent_end.limit` saying
 * why. Nothing happens once the run has ended, been aborted or failed (a hard-exit answer that
 * failed it is in: its listeners may still be running, L15).
 */
function runDeadline(run: Run, controller: AbortController): Subscription | undefined {
  return run.input.control.deadline(run.config.limits, run.config.scheduler, run.now, (limit) => {
    if (run.state.ended || controller.signal.aborted || run.failed) return;
    run.limit = limit;
    run.config.onLimitReached?.(limit);
    controller.abort(new DOMException(limit.message, "TimeoutError"));
  });
}

/** `agent_start`, `turn_start`, the prompts, then the first steering poll (SPEC L7). */
function start(run: Run): Observable<Phase> {
  const { prompts, skipInitialSteeringPoll, resume } = run.input;
  const opening: AgentEvent[] = [{ type: "agent_start" }, { type: "turn_start" }];
  if (resume) return concat(run.emitter.all(opening), resumeTurn(run, resume));
  // Copied now: the caller may reuse its array while agent_start's listeners are still settling.
  const prompted = prompts?.slice();
  // Waiting from now on, so that a failure before they are appended still commits them; the
  // append replaces this list with its own.
  if (prompted) run.waiting = prompted;
  // Without the first poll, the first request still gets its pending messages' step (none).
  const first: Step = skipInitialSteeringPoll ? new Append([]) : new FirstPoll();
  return run.emitter.tell<Step>(opening, prompted ? new Append(prompted, first) : first);
}
