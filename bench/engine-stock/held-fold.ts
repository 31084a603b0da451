/**
 * The stock equivalent of src/engine/held-fold.ts, for bench/engine.mjs: a `Subject` of the
 * actions, `scan` by the reducer, held in a `BehaviorSubject` (NgRx's store).
 */
import { BehaviorSubject, type Observable, scan, Subject } from "rxjs";

export class HeldFold<S, A> {
  private readonly actions = new Subject<A>();
  private readonly held: BehaviorSubject<S>;

  constructor(reduce: (state: S, action: A) => S, initial: S) {
    this.held = new BehaviorSubject(initial);
    this.actions.pipe(scan(reduce, initial)).subscribe(this.held);
  }

  get value(): S {
    return this.held.value;
  }

  dispatch(action: A): void {
    this.actions.next(action);
  }

  get values$(): Observable<S> {
    return this.held.asObservable();
  }
}
