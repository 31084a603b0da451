/**
 * `HeldFold`: `actions.pipe(scan(reduce, initial))` held in a `BehaviorSubject`, as NgRx's store
 * holds its state (without its queue scheduler), without the three subscribers that chain costs
 * on every action.
 *
 * @module
 */
import { BehaviorSubject, type Observable } from "rxjs";

/**
 * The fold of the dispatched actions by `reduce`, the newest value readable at once. Equivalent
 * to (test/engine/held-fold.property.test.ts):
 *
 * ```ts
 * const actions = new Subject<A>();
 * const held = new BehaviorSubject(initial);
 * actions.pipe(scan(reduce, initial)).subscribe(held);
 * // dispatch(a) = actions.next(a); value = held.value; values$ = held.asObservable()
 * ```
 *
 * ```text
 * dispatch:  ---a-----b---
 * values$:   s--t-----u---   (t = reduce(s, a), u = reduce(t, b); a late subscriber gets the newest first)
 * ```
 *
 * A dispatch costs one call of `reduce` while nobody observes `values$`: the subject that
 * multicasts is made on the first read of `values$`. `reduce` must not throw (the stock chain
 * would error the held subject for good; here the dispatch throws and the value stays). A
 * subscriber that dispatches inside a value makes the later subscribers get the newer value
 * first, then the older one, as with the stock chain (NgRx queues such a dispatch instead).
 *
 * @example
 * ```ts
 * const counter = new HeldFold((n: number, by: number) => n + by, 0);
 * counter.values$.subscribe((n) => console.log(n)); // 0
 * counter.dispatch(2); // 2
 * ```
 */
export class HeldFold<S, A> {
  private current: S;
  private held: BehaviorSubject<S> | undefined;
  private view: Observable<S> | undefined;

  constructor(
    private readonly reduce: (state: S, action: A) => S,
    initial: S,
  ) {
    this.current = initial;
  }

  /** The newest value. */
  get value(): S {
    return this.current;
  }

  /** Folds `action` in, then tells the subscribers of `values$` the new value. */
  dispatch(action: A): void {
    const next = this.reduce(this.current, action);
    this.current = next;
    this.held?.next(next);
  }

  /** The newest value at once, then every later one (hot). */
  get values$(): Observable<S> {
    return (this.view ??= (this.held = new BehaviorSubject(this.current)).asObservable());
  }
}
