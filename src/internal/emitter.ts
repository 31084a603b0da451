/**
 * Where the loop's events leave it: to the subscriber, and through the optional waiting `emit`
 * (SPEC L11) that the `Agent` uses as its listener barrier.
 *
 * @internal
 * @module
 */
import { concat, concatMap, defer, type Observable, of, throwError } from "rxjs";
import type { AgentEmit, AgentEvent } from "../types.js";
import { settled } from "./maybe-async.js";

/** Emits events, waiting for `emit` after each one when it returns a promise or an Observable. */
export class Emitter {
  constructor(private readonly emit: AgentEmit | undefined) {}

  /** One event: `emit` is called first (state reduces before anyone sees it), then the event is emitted, then the wait. */
  one(event: AgentEvent): Observable<AgentEvent> {
    const emit = this.emit;
    if (!emit) return of(event);
    return defer(() => {
      let wait: Observable<never> | undefined;
      try {
        wait = settled(emit(event));
      } catch (error) {
        // The event is already reduced and seen by earlier listeners: the subscriber gets it too,
        // so both views keep the same brackets (issue 7), then the failure is normalized.
        return concat(of(event), throwError(() => error));
      }
      return wait ? concat(of(event), wait) : of(event);
    });
  }

  /** Several events in order, each through {@link Emitter.one}. */
  all(events: readonly AgentEvent[]): Observable<AgentEvent> {
    if (!this.emit) return of(...events);
    return of(...events).pipe(concatMap((event) => this.one(event)));
  }

  /** A stream of events, passed through untouched when nobody waits (the hot streaming path). */
  stream(events: Observable<AgentEvent>): Observable<AgentEvent> {
    return this.emit ? events.pipe(concatMap((event) => this.one(event))) : events;
  }
}
