/**
 * The run an `Agent` is in (SPEC A2, A5): its abort controller, its events for `prompt$()`, and
 * the promise `waitForIdle()` returns.
 *
 * @module
 */
import { Subject } from "rxjs";
import type { AgentEvent } from "../model/types.js";

/** One run of an `Agent`, from `prompt()` until its `agent_end` listeners settled. */
export class ActiveRun {
  readonly controller = new AbortController();
  /** The run's events, for the `prompt$()` subscriber. */
  readonly events = new Subject<AgentEvent>();
  /** Resolves once the run is over. */
  readonly idle: Promise<void>;
  private resolveIdle!: () => void;

  constructor() {
    this.idle = new Promise<void>((resolve) => (this.resolveIdle = resolve));
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The run is over: `prompt$()` completes, `waitForIdle()` resolves. */
  finish(): void {
    this.events.complete();
    this.resolveIdle();
  }
}
