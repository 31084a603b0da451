/**
 * The agent loop (SPEC L1–L12): the entry points, the abort wiring, and the recursive `expand`
 * over turns.
 *
 * Read it like the pseudo-code it implements:
 *
 * ```text
 * agent_start, turn_start, prompts
 * pending = poll steering
 * loop (expand):                                   ── inner loop: tools and steering (turn.ts)
 *   [not first] prepareNextTurn, poll steering if nothing pending, turn_start
 *   append pending messages (tool changes declared)
 *   prepareRequest → transformContext → convertToLlm → provider → message events
 *   error | aborted → finishTurn (ignored), turn_end, agent_end; stop
 *   run the tool calls (length stop: fail them all)
 *   finishTurn → turn_end; `end` → agent_end; stop   (turn-end.ts)
 *   pending = poll steering; tool results or steering → next turn
 *   else follow-up = poll follow-up                 ── outer loop: follow-up
 *     follow-up → next turn; `continue` decided → next turn; else agent_end
 * a hook or listener throws → failure.ts closes what is open
 * ```
 *
 * @module
 */
import { EMPTY, expand, filter, ignoreElements, Observable, Subscription } from "rxjs";
import { deferred } from "../rx/deferred.js";
import { type LinkedHandlers, LinkedObserver } from "../rx/linked-observer.js";
import { trampolined } from "../rx/trampolined.js";
import { just } from "../rx/values.js";
import { checkDelay } from "./run-limits.js";
import { assertRunControl, type RunControl } from "./run-control-port.js";
import { runControl } from "./run-control.js";
import { sequence } from "../rx/sequence.js";
import type { StreamFn } from "../model/messages.js";
import type { AgentContext, AgentEvent, AgentMessage } from "../model/types.js";
import type { AgentTool } from "../tools/tool-types.js";
import { failure } from "./failure.js";
import type { AgentLoopConfig } from "./loop-config.js";
import { NextTurn, type Step } from "./next-turn.js";
import { assertOneQueueSource, poll } from "./queue-poll.js";
import { type AgentLoopRun, type LaunchedLoopRun, Run, type ValidatedLoopRun } from "./run.js";
import { appendMessages, resumeTurn, turn } from "./turn.js";
import { assertToolSet, validatorFor } from "../tools/tool-set.js";
import { ajvValidator } from "../tools/validators/ajv-validator.js";
import type { ArgumentValidator } from "../tools/validators/argument-validator.js";

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
 * import { filter, map } from "rxjs";
 * agentLoop([{ role: "user", content: "Hi", timestamp: Date.now() }], { messages: [] }, { model }, undefined, streamFn)
 *   .pipe(filter((e) => e.type === "message_update"))
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
 * The loop with a waiting `emit`: the entry the `Agent` builds on (SPEC L11).
 *
 * Unsubscribing before the run settled tears everything down first, then fires the signal, so
 * nothing reacts to the abort by emitting (SPEC L10).
 *
 * @internal
 */
export function runAgentLoop(input: AgentLoopRun): Observable<AgentEvent> {
  return startAgentLoop(input, ajvValidator, runControl);
}

/**
 * {@link runAgentLoop} with the validator for tools and config that name none passed in (or
 * none: then the config must name one), and the run control when the config names none (or
 * none: then the run may not ask for it). Nothing here refers to ajv or to run control, so an
 * entry point that never passes `ajvValidator` or `runControl` leaves them out of the bundle.
 *
 * @internal
 */
export function startAgentLoop(input: AgentLoopRun, defaultValidator: ArgumentValidator | undefined, defaultControl?: RunControl): Observable<AgentEvent> {
  const { config } = input;
  assertOneQueueSource(config.getSteeringMessages, config.steering$, "getSteeringMessages", "steering$");
  assertOneQueueSource(config.getFollowUpMessages, config.followUp$, "getFollowUpMessages", "followUp$");
  const validator = validatorFor(input.context.tools, config.validator ?? defaultValidator);
  assertToolSet(input.context.tools, validator);
  const control = config.runControl ?? defaultControl;
  checkRunOptions(config, input.context.tools, control);
  return launchAgentLoop(control ? { ...input, validator, control } : { ...input, validator });
}

/**
 * Throws a `TypeError` for run options that cannot mean anything (SPEC R2–R4), or that ask for
 * run control a run without it cannot give.
 *
 * @internal
 */
export function checkRunOptions(config: Pick<AgentLoopConfig, "limits" | "maxConcurrency" | "abortGraceMs" | "requestApproval">, tools: readonly AgentTool[] | undefined, control: RunControl | undefined): void {
  checkDelay("abortGraceMs", config.abortGraceMs);
  assertRunControl(config, tools, control);
}

/**
 * The loop for a run whose config and tools were already checked: the Agent checks them in
 * `prompt()`, before it takes queued messages, so they are not checked twice.
 *
 * @internal
 */
export function launchAgentLoop(input: ValidatedLoopRun): Observable<AgentEvent> {
  return new Observable<AgentEvent>((subscriber) => {
    const controller = new AbortController();
    const outer = input.signal;
    // Only ever `outer`'s own listener.
    const forwardAbort = (): void => controller.abort(outer!.reason);
    if (outer?.aborted) controller.abort(outer.reason);
    else outer?.addEventListener("abort", forwardAbort);
    let settled = false;
    // The turns' events go straight here, past the operators between (the per-delta path); only
    // a failure's events come through `events`.
    const deliver = input.deliver ?? ((event: AgentEvent) => subscriber.next(event));
    const events = new LinkedObserver<AgentEvent>({
      next: deliver,
      error: (error) => {
        settled = true;
        subscriber.error(error);
      },
      complete: () => {
        settled = true;
        subscriber.complete();
      },
    });
    subscriber.add(events);
    // Added after `events`: on an unsubscribe the run is torn down before its signal fires.
    subscriber.add(() => {
      if (!settled) controller.abort(new DOMException("The run was unsubscribed", "AbortError"));
      outer?.removeEventListener("abort", forwardAbort);
    });
    runEvents({ ...input, deliver }, controller).subscribe(events);
  });
}

/**
 * The run; a failure anywhere becomes the normalized ending of `failure.ts`, subscribed once the
 * failed turns are torn down. The turns' events leave by `input.deliver`; what this Observable
 * emits is the failure's events. The deadline and the queues stop after everything else.
 *
 * ```text
 * deliver:  -a-t-
 * turns:    -----#
 * failure:       (ETA|)
 * result:   -----(ETA|)
 * ```
 */
function runEvents(input: LaunchedLoopRun, controller: AbortController): Observable<AgentEvent> {
  return new Observable<AgentEvent>((subscriber) => {
    const run = new Run(input, controller.signal);
    const deadline = runDeadline(run, controller);
    // What runs now: the turns, then the failure's events if they failed.
    const current = new Subscription();
    subscriber.add(current);
    subscriber.add(() => {
      deadline?.unsubscribe();
      run.stopQueues();
    });
    const passOn = (handlers: LinkedHandlers<AgentEvent> = {}): LinkedObserver<AgentEvent> => {
      const observer = new LinkedObserver<AgentEvent>({ next: (event) => subscriber.next(event), error: (error) => subscriber.error(error), complete: () => subscriber.complete(), ...handlers });
      current.add(observer);
      return observer;
    };
    const turnEvents = passOn({
      error: (error) => {
        // Torn down first, so the abort reaches no provider or tool that could still answer it with an event.
        turnEvents.unsubscribe();
        deferred(() => {
          if (!controller.signal.aborted && !run.state.ended) controller.abort(error);
          return failure(run, error);
        }).subscribe(passOn());
      },
    });
    turns(run).subscribe(turnEvents);
  });
}

/**
 * The run's time limit (SPEC R2), on the loop's scheduler: when it passes, the run is aborted
 * with the limit as the reason, and ends as an abort does (SPEC L10), `agent_end.limit` saying why.
 */
function runDeadline(run: Run, controller: AbortController): Subscription | undefined {
  return run.input.control?.deadline(run.config.limits, run.config.scheduler, run.now, (limit) => {
    if (run.state.ended || controller.signal.aborted) return;
    run.limit = limit;
    run.config.onLimitReached?.(limit);
    controller.abort(new DOMException(limit.message, "TimeoutError"));
  });
}

/**
 * The turns as a trampolined `expand` (SPEC L4). Only {@link NextTurn} steps go through
 * `expand`; events leave by the side, straight to the run's `deliver`: rxjs's `expand` projects
 * every value it emits, so each streamed event would cost an inner subscription and its teardown.
 * The Observable itself only completes or errors.
 */
function turns(run: Run): Observable<never> {
  return new Observable<never>((subscriber) => {
    // Without `emit` the run observes each event here, on its way out (with `emit`, the emitter does).
    const observing = !run.emitter.waits;
    const out = run.input.deliver;
    run.sink = observing
      ? (event) => {
          run.observe(event);
          out(event);
        }
      : out;
    const nextTurns = (source: Observable<Step>): Observable<NextTurn> =>
      source.pipe(
        filter((step): step is NextTurn => {
          if (step instanceof NextTurn) return true;
          if (observing) run.observe(step);
          out(step);
          return false;
        }),
      );
    // `subscriber` itself, not an observer object: linked from the first event, so a consumer
    // leaving inside a synchronous run stops it there (no tool or provider call after that).
    nextTurns(start(run))
      .pipe(
        expand((next) => trampolined(nextTurns(turn(run, next)))),
        ignoreElements(),
      )
      .subscribe(subscriber);
  });
}

/** `agent_start`, `turn_start`, the prompts, then the first steering poll (SPEC L7). */
function start(run: Run): Observable<Step> {
  const { prompts, skipInitialSteeringPoll, resume } = run.input;
  if (resume) return run.emitter.allThen([{ type: "agent_start" }, { type: "turn_start" }], () => resumeTurn(run, resume));
  // Copied now: the caller may reuse its array while agent_start's listeners are still settling.
  const opening = prompts?.slice();
  // Waiting from now on, so that a failure before they are appended still commits them; the
  // append replaces this list with its own.
  if (opening) run.waiting = opening;
  const first = (pending: AgentMessage[]): Observable<Step> => just(new NextTurn(pending, undefined));
  return sequence(
    run.emitter.all([{ type: "agent_start" }, { type: "turn_start" }]),
    opening ? appendMessages(run, opening) : EMPTY,
    skipInitialSteeringPoll ? first([]) : poll(run, run.steering, first),
  );
}
