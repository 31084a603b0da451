/**
 * How an `Agent` runs the loop (SPEC A4–A6, L11, S6): one run at a time, every event journaled
 * first when there is a session, then reduced into the state, then told to `events$`, then to
 * the listeners, whom the loop waits for.
 *
 * @module
 */
import { concat, defer, EMPTY, ignoreElements, isObservable, map, Observable, Subject } from "rxjs";
import { launchAgentLoop } from "../loop/agent-loop.js";
import type { AgentLoopConfig } from "../loop/loop-config.js";
import { describeError } from "../model/describe-error.js";
import type { StreamFn, ToolCall } from "../model/messages.js";
import type { AgentEvent, AgentMessage } from "../model/types.js";
import type { Failure } from "../rx/maybe-async.js";
import type { ValidatedLoopRun } from "../loop/run.js";
import { ActiveRun } from "./active-run.js";
import { ApprovalDesk } from "./approval-desk.js";
import type { AgentStateStore } from "./agent-state.js";
import type { ListenerBarrier } from "./listener-barrier.js";
import type { RunPlan } from "./run-plan.js";
import type { SessionJournal } from "./session-port.js";


/** What the Agent decided before a run: the tools' validator and the run control. */
export type CheckedRun = Pick<ValidatedLoopRun, "validator" | "control">;

/** Runs the loop for an `Agent` and owns the run that is active. */
export class AgentRunner {
  /** The run in progress, until its `agent_end` listeners settled. */
  active: ActiveRun | undefined;
  /** The session journal, once a session is open: every run event is written before it is told (SPEC S6). */
  recorder: SessionJournal | undefined;

  // Made on first use, like everything else an idle Agent has no need of.
  private events: Subject<AgentEvent> | undefined;
  private eventsView: Observable<AgentEvent> | undefined;
  private answers: ApprovalDesk | undefined;

  constructor(
    private readonly store: AgentStateStore,
    private readonly listeners: ListenerBarrier,
  ) {}

  /** Every event of every run, as it is told (hot; the same stream on every read). */
  get events$(): Observable<AgentEvent> {
    return (this.eventsView ??= (this.events ??= new Subject<AgentEvent>()).asObservable());
  }

  /**
   * The approval answers of the run in progress. An answer kept for a call belongs to its run:
   * it is forgotten when the run settles, so a later call with the same id is asked anew.
   */
  get desk(): ApprovalDesk {
    return (this.answers ??= new ApprovalDesk());
  }

  /**
   * A run as an Observable: subscribing starts it; the run's events arrive as they happen; it
   * completes when the Agent is idle again; unsubscribing aborts it, and it still settles.
   * `config` is read when the run starts; the tools were checked against `validator` by the
   * Agent already. Without `tells` the Observable emits no events, it only completes (for
   * `prompt()`, whose promise has no use for them).
   */
  run(plan: RunPlan, streamFn: StreamFn, config: () => AgentLoopConfig, checked: CheckedRun, tells: boolean): Observable<AgentEvent> {
    return new Observable<AgentEvent>((subscriber) => {
      const run = new ActiveRun(subscriber);
      // Registered before the run begins: a subscriber that leaves inside `next` while a
      // synchronous run is still in `begin` aborts it there, not after it ran to the end.
      subscriber.add(() => {
        if (this.active === run) run.controller.abort();
      });
      this.begin(run, plan, streamFn, config(), checked, tells);
    });
  }

  private begin(run: ActiveRun, plan: RunPlan, streamFn: StreamFn, config: AgentLoopConfig, { validator, control }: CheckedRun, tells: boolean): void {
    this.active = run;
    if (plan.aborted) run.controller.abort();
    this.store.beginRun();
    const loop = launchAgentLoop({
      prompts: plan.prompts,
      // The loop copies the transcript when it starts (so it is not copied here); the tools are
      // copied here, so a push onto `state.tools` waits for the next run.
      context: { messages: this.store.transcript as AgentMessage[], tools: this.store.tools.slice() },
      config,
      signal: run.signal,
      streamFn,
      emit: (event) => this.process(event, run),
      skipInitialSteeringPoll: plan.skipInitialSteeringPoll,
      resume: plan.resume,
      validator,
      control,
      turn: run.turn,
      executing: this.recorder ? this.executing : undefined,
    });
    loop.subscribe({
      // To the run's subscriber, or nowhere for `prompt()`, whose promise has no use for them.
      next: tells ? (event) => run.tell(event) : ignore,
      // The loop normalizes failures itself (SPEC A6); an error here is a bug, reported as the run's error.
      error: (error) => {
        this.store.runFailed(describeError(error));
        this.finish(run);
      },
      complete: () => this.finish(run),
    });
  }

  /** A call's tool is about to execute: on record first, so a resume knows whether it ran (SPEC S5). */
  private readonly executing = (toolCall: ToolCall): void | Observable<unknown> => this.recorder?.executing(toolCall.id);

  /**
   * Reduce first, then tell `events$`, then await the listeners in order (SPEC A4, A5). The first
   * listener failure fails the run (SPEC A6) once every listener has seen the event; after
   * `agent_end` the run is over, so a failure there is recorded in `errorMessage` instead.
   */
  private process(event: AgentEvent, run: ActiveRun): void | Observable<unknown> {
    // With a session, the event's entry is on record first (SPEC S6): the state never shows
    // what a crash would lose.
    const written = this.recorder?.record(event);
    return written ? this.tellOnceWritten(written, event, run) : this.tell(event, run);
  }

  private tellOnceWritten(written: Observable<unknown>, event: AgentEvent, run: ActiveRun): Observable<unknown> {
    return concat(
      written.pipe(ignoreElements()),
      defer(() => {
        const told = this.tell(event, run);
        return isObservable(told) ? told : EMPTY;
      }),
    );
  }

  /**
   * The state, then `events$`, then the listeners, in the run's turn: what they set off (an
   * abort a tool answers at once) is told once they returned (SPEC A5).
   */
  private tell(event: AgentEvent, run: ActiveRun): void | Observable<unknown> {
    const turn = run.turn;
    let outcome: ReturnType<ListenerBarrier["notify"]>;
    turn.enter();
    try {
      this.store.reduce(event);
      this.events?.next(event);
      outcome = this.listeners.notify(event, run.signal, turn);
    } finally {
      turn.exit();
    }
    // Nothing to wait for and no failure, the per-delta case; the rest is a method of its own, so
    // this one stays small enough to inline into that path.
    if (outcome === undefined) return;
    return this.settleTold(event, outcome);
  }

  /** What the listeners' outcome means for the run: a failure fails it, except on `agent_end` (recorded). */
  private settleTold(event: AgentEvent, outcome: ReturnType<ListenerBarrier["notify"]>): void | Observable<unknown> {
    const settle = event.type === "agent_end" ? endFailureRecorder(this.store) : throwFailure;
    if (!isObservable(outcome)) return settle(outcome);
    return outcome.pipe(map(settle));
  }

  /** The run is journaled as ended (SPEC S6), then over. A journal that cannot be written is the run's error. */
  private finish(run: ActiveRun): void {
    const recorder = this.recorder;
    const written = recorder?.runEnded(this.store.errorMessage, this.store.outcome);
    if (!written) return this.settle(run);
    written.subscribe({
      complete: () => this.settle(run),
      // This write, or one before it, failed: the session closes itself and says why.
      error: (error: unknown) => {
        this.store.runFailed(recorder!.failed(error));
        this.settle(run);
      },
    });
  }

  private settle(run: ActiveRun): void {
    this.active = undefined;
    this.store.endRun();
    this.answers?.forget();
    run.finish();
  }
}

/** Where the events of a run nobody reads go (`prompt()`'s). */
const ignore = (): void => {};

// Made outside `tell`: a closure there would allocate its context on every event, not once a run.
function endFailureRecorder(store: AgentStateStore): (failed: Failure | undefined) => void {
  return (failed) => {
    if (failed) store.runFailed(`A listener failed on agent_end: ${describeError(failed.error)}`);
  };
}

function throwFailure(failed: Failure | undefined): void {
  if (failed) throw failed.error;
}
