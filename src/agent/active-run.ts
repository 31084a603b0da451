/**
 * The run an `Agent` is in (SPEC A2, A5): its abort controller, the subscriber its events go
 * to, and the promise `waitForIdle()` returns.
 *
 * @module
 */
import type { Subscriber } from "rxjs";
import type { AgentEvent } from "../model/types.js";
import { OneAtATime } from "../engine/one-at-a-time.js";

/** One run of an `Agent`, from `prompt()` until its `agent_end` listeners settled. */
export class ActiveRun {
  readonly controller = new AbortController();
  /** The controller's signal, read once: it is handed to the listeners with every event. */
  readonly signal: AbortSignal = this.controller.signal;
  /** The turn the run's events are told in: the loop's and the listeners' (SPEC A5). */
  readonly turn = new OneAtATime();
  /** Resolves once the run is over. */
  readonly idle: Promise<void>;
  private resolveIdle!: () => void;

  /**
   * @param out The one subscriber of the run (`prompt$()`'s). Once it has left, what is sent
   *   to it goes nowhere, as with any closed subscriber; the run still settles.
   */
  constructor(private readonly out: Subscriber<AgentEvent>) {
    this.idle = new Promise<void>((resolve) => (this.resolveIdle = resolve));
  }

  /** One event of the run, to its subscriber (no Subject between: this is the per-event path). */
  tell(event: AgentEvent): void {
    this.out.next(event);
  }

  /** The run is over: `prompt$()` completes, `waitForIdle()` resolves. */
  finish(): void {
    this.out.complete();
    this.resolveIdle();
  }
}
