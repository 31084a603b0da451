/**
 * The stock equivalent of src/engine/wait-gate.ts, for bench/engine.mjs: the pushed values
 * through a `Subject` and `concatMap` over each value and its wait.
 */
import { concat, concatMap, defer, ignoreElements, type Observable, of, Subject, type Subscriber } from "rxjs";

export class WaitGate<T> {
  private readonly pushed = new Subject<T>();

  constructor(wait: (value: T) => Observable<unknown> | undefined, subscriber: Subscriber<unknown>, deliver: (value: T) => void, finish: () => void = () => subscriber.complete()) {
    subscriber.add(
      this.pushed
        .pipe(
          concatMap((value) =>
            defer(() => {
              const held = wait(value);
              return held ? concat(of(value), held.pipe(ignoreElements())) : of(value);
            }),
          ),
        )
        .subscribe({ next: deliver, error: (error: unknown) => subscriber.error(error), complete: finish }),
    );
  }

  push(value: T): void {
    this.pushed.next(value);
  }

  end(): void {
    this.pushed.complete();
  }
}
