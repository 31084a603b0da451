/**
 * Where the loop's events leave it: to the subscriber, and through the optional waiting `emit`
 * (SPEC L11) that the `Agent` uses as its listener barrier.
 *
 * @module
 */
import { isObservable, Observable, of } from "rxjs";
import type { AgentEvent } from "../model/types.js";
import { maybeAsync, type OnFailure } from "../rx/maybe-async.js";
import { waitAfterEach } from "../rx/wait-after-each.js";
import type { AgentEmit } from "./loop-config.js";

/**
 * Emits events, each one through `emit` first: `emit` is called (the `Agent` reduces its state
 * before anyone sees the event), the event is emitted, and what `emit` returned is waited for
 * before the next event. A failing `emit` is handled by `onFailure`: `"error"` lets the event
 * out, then errors (the run's failure recovery takes over); a function swallows it.
 */
export class Emitter {
  /** `emit` as `waitAfterEach` calls it: `undefined` when there is nothing to wait for. */
  private readonly wait: ((event: AgentEvent) => Observable<unknown> | undefined) | undefined;

  constructor(emit: AgentEmit | undefined, onFailure: OnFailure<unknown> = "error") {
    this.wait = emit
      ? (event) => {
          const settled = maybeAsync(() => emit(event), onFailure);
          return isObservable(settled) ? settled : undefined;
        }
      : undefined;
  }

  /** Whether events go through an `emit` (else they pass straight through). */
  get waits(): boolean {
    return this.wait !== undefined;
  }

  /** One event. */
  one(event: AgentEvent): Observable<AgentEvent> {
    const wait = this.wait;
    if (!wait) return of(event);
    return new Observable<AgentEvent>((subscriber) => {
      const held = wait(event);
      subscriber.next(event);
      if (!held) return subscriber.complete();
      if (subscriber.closed) return undefined;
      return held.subscribe({ error: (error: unknown) => subscriber.error(error), complete: () => subscriber.complete() });
    });
  }

  /** Several events in order. */
  all(events: readonly AgentEvent[]): Observable<AgentEvent> {
    return this.stream(of(...events));
  }

  /** A stream of events, passed through untouched when nobody waits (the hot streaming path). */
  stream(events: Observable<AgentEvent>): Observable<AgentEvent> {
    return this.wait ? events.pipe(waitAfterEach(this.wait)) : events;
  }
}
