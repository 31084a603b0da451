/**
 * Where the loop's events leave it: to the subscriber, and through the optional waiting `emit`
 * (SPEC L11) that the `Agent` uses as its listener barrier.
 *
 * @module
 */
import { isObservable, Observable, type Subscriber } from "rxjs";
import { just, values, valuesThen } from "../rx/values.js";
import { WaitGate } from "../rx/wait-gate.js";
import type { AgentEvent } from "../model/types.js";
import { failedWith, type OnFailure, settle } from "../rx/maybe-async.js";
import type { AgentEmit } from "./loop-config.js";

/**
 * Emits events, each one through `emit` first: `emit` is called (the `Agent` reduces its state
 * before anyone sees the event), the event is emitted, and what `emit` returned is waited for
 * before the next event. A failing `emit` is handled by `onFailure`: `"error"` lets the event
 * out, then errors (the run's failure recovery takes over); a function swallows it.
 */
export class Emitter {
  /**
   * `emit` as the events' producers call it, before each event goes out: what it returns is
   * waited for before the next one. `undefined` when there is nothing to wait for.
   */
  readonly wait: ((event: AgentEvent) => Observable<unknown> | undefined) | undefined;

  constructor(emit: AgentEmit | undefined, onFailure: OnFailure<unknown> = "error") {
    this.wait = emit
      ? (event) => {
          // Called here, not in a closure for `maybeAsync`: this is once per event.
          let settled: unknown;
          try {
            settled = emit(event);
            // Nothing returned, the common case: nothing to settle.
            if (settled === undefined) return undefined;
            settled = settle(settled, onFailure);
          } catch (error) {
            settled = failedWith(error, onFailure);
          }
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
    return this.wait ? this.allThen([event], undefined) : just(event);
  }

  /** Several events in order. */
  all(events: readonly AgentEvent[]): Observable<AgentEvent> {
    return this.wait ? this.allThen(events, undefined) : values(events);
  }

  /**
   * One event, then what `next()` returns, made once the event was waited for: it is
   * `concat(one(event), defer(next))` in one subscription (the loop does this several times per
   * turn and per tool call).
   *
   * ```text
   * emit(e) waits:  --|
   * next():           -x|
   * result:         e---x|
   * ```
   */
  oneThen<T>(event: AgentEvent, next: () => Observable<T>): Observable<AgentEvent | T> {
    return this.allThen([event], next);
  }

  /** Several events in order, then what `next()` returns (see {@link Emitter.oneThen}); just the events without `next`. */
  allThen<T>(events: readonly AgentEvent[], next: (() => Observable<T>) | undefined): Observable<AgentEvent | T> {
    const wait = this.wait;
    // Nothing to wait for: known values, which the loop's operators emit in place.
    if (!wait) return next ? valuesThen<AgentEvent | T>(events, next) : values(events);
    return new Observable<AgentEvent | T>((subscriber) => {
      const gate = new WaitGate<AgentEvent>(wait, subscriber, (event) => subscriber.next(event), next ? () => goOnWith(next, subscriber) : undefined);
      for (const event of events) gate.push(event);
      gate.end();
    });
  }
}

/** What `next()` returns, subscribed with `subscriber` itself (linked from the start, no subscription in between). */
function goOnWith<T>(next: () => Observable<T>, subscriber: Subscriber<unknown>): void {
  let rest: Observable<T>;
  try {
    rest = next();
  } catch (error) {
    return subscriber.error(error);
  }
  rest.subscribe(subscriber);
}
