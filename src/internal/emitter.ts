/**
 * Where the loop's events leave it: to the subscriber, and through the optional waiting `emit`
 * (SPEC L11) that the `Agent` uses as its listener barrier.
 *
 * @internal
 * @module
 */
import { defer, Observable, of, Subscriber, type Subscription, throwError } from "rxjs";
import { concat } from "./concat.js";
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
    return emitEach(of(...events), this.emit);
  }

  /** A stream of events, passed through untouched when nobody waits (the hot streaming path). */
  stream(events: Observable<AgentEvent>): Observable<AgentEvent> {
    return this.emit ? emitEach(events, this.emit) : events;
  }
}

/**
 * `events.pipe(concatMap((event) => emitter.one(event)))` without an inner subscription per
 * event: when `emit` returns nothing to wait for (a synchronous listener), the event goes
 * straight through; only a returned promise or Observable holds back the events behind it.
 * The per-event `defer` + `of` + inner subscriber of `concatMap` were the largest cost of an
 * `Agent` run with a synchronous listener (issue 6 benchmarks).
 */
function emitEach(events: Observable<AgentEvent>, emit: AgentEmit): Observable<AgentEvent> {
  return new Observable<AgentEvent>((subscriber) => {
    const queued: AgentEvent[] = [];
    let waiting: Subscription | undefined;
    let isWaiting = false;
    let draining = false;
    let upstreamDone = false;

    const settle = (): void => {
      if (!isWaiting && queued.length === 0 && upstreamDone) subscriber.complete();
    };
    /** Same order as `one`: `emit` first, then the event, then the wait (a throwing `emit` still lets the event out). */
    const deliver = (event: AgentEvent): void => {
      let wait: Observable<never> | undefined;
      try {
        wait = settled(emit(event));
      } catch (error) {
        subscriber.next(event);
        subscriber.error(error);
        return;
      }
      subscriber.next(event);
      if (!wait || subscriber.closed) return;
      isWaiting = true;
      waiting = wait.subscribe({
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          isWaiting = false;
          waiting = undefined;
          drain();
        },
      });
      if (!isWaiting) waiting = undefined;
    };
    const drain = (): void => {
      if (draining) return;
      draining = true;
      while (!isWaiting && queued.length > 0 && !subscriber.closed) deliver(queued.shift()!);
      draining = false;
      settle();
    };

    // Linked before subscribing, so a consumer that leaves inside a synchronous upstream stops it
    // at once (issue 7), as `concatMap` did.
    subscriber.add(() => waiting?.unsubscribe());
    const upstream = new Subscriber<AgentEvent>({
      next: (event) => {
        if (subscriber.closed) return;
        if (isWaiting || queued.length > 0) queued.push(event);
        else deliver(event);
      },
      error: (error: unknown) => subscriber.error(error),
      complete: () => {
        upstreamDone = true;
        settle();
      },
    });
    subscriber.add(upstream);
    events.subscribe(upstream);
  });
}
