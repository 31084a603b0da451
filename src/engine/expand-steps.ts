/**
 * `expandSteps`: rxjs's `expand` for a loop whose values are mostly events and sometimes a step
 * to take next. See CONTRACT.md in this folder.
 *
 * @module
 */
import { Observable, type OperatorFunction } from "rxjs";
import { LinkedObserver } from "./linked-observer.js";

/**
 * Emits the source's values, except those `isStep` picks: each of those is projected instead,
 * and what its projection emits is treated the same way, recursively. Equivalent to
 *
 * ```ts
 * source.pipe(expand((v) => (isStep(v) ? project(v) : EMPTY), Infinity, queueScheduler), filter((v) => !isStep(v)))
 * ```
 *
 * without the inner subscription `expand` makes for every value (an event is passed on, not
 * projected), and with the queue scheduler's flat stack: a step that comes up while another is
 * being projected is projected once that projection has subscribed, so a run of any number of
 * synchronous turns takes no deeper stack. Completes when the source and every projection did;
 * the first error is the result's; unsubscribing stops them all.
 *
 * ```text
 * source:      -a-S|          (S a step)
 * project(S):     -b-T|       (T a step)
 * project(T):         -c|
 * result:      -a--b--c|
 * ```
 *
 * @example
 * ```ts
 * start$.pipe(expandSteps((v): v is Step => v instanceof Step, (step) => phase(run, step)));
 * ```
 */
export function expandSteps<V, S extends V>(isStep: (value: V) => value is S, project: (step: S) => Observable<V>): OperatorFunction<V, Exclude<V, S>> {
  return (source) =>
    new Observable<Exclude<V, S>>((subscriber) => {
      /** Sources subscribed and not completed: the source itself and each projection. */
      let active = 0;
      const steps: S[] = [];
      let projecting = false;

      const follow = (observable: Observable<V>): void => {
        active++;
        const inner = new LinkedObserver<V>({
          next: (value) => {
            if (isStep(value)) {
              steps.push(value);
              drain();
            } else subscriber.next(value as Exclude<V, S>);
          },
          error: (error) => subscriber.error(error),
          complete: () => {
            active--;
            // Let go of the finished inner, so a long run does not keep every turn's subscription.
            subscriber.remove(inner);
            if (active === 0 && !projecting) subscriber.complete();
          },
        });
        subscriber.add(inner);
        observable.subscribe(inner);
      };

      const drain = (): void => {
        if (projecting) return;
        projecting = true;
        while (steps.length > 0 && !subscriber.closed) {
          const step = steps.shift()!;
          let next: Observable<V>;
          try {
            next = project(step);
          } catch (error) {
            subscriber.error(error);
            break;
          }
          follow(next);
        }
        projecting = false;
        if (active === 0 && !subscriber.closed) subscriber.complete();
      };

      follow(source);
    });
}
