/**
 * The stock equivalent of src/engine/expand-steps.ts, for bench/engine.mjs: rxjs's `expand`,
 * projecting every value (events to EMPTY), each projection subscribed on the queue scheduler
 * (SPEC L4: plain `expand` over synchronous phases overflows its stack and stops silently), then
 * the steps filtered out.
 */
import { EMPTY, expand, filter, type Observable, type OperatorFunction, queueScheduler, subscribeOn } from "rxjs";

export function expandSteps<V, S extends V>(isStep: (value: V) => value is S, project: (step: S) => Observable<V>): OperatorFunction<V, Exclude<V, S>> {
  return (source) =>
    source.pipe(
      expand((value) => (isStep(value) ? project(value).pipe(subscribeOn(queueScheduler)) : EMPTY)),
      filter((value): value is Exclude<V, S> => !isStep(value)),
    );
}
