/**
 * `waitAfterEach`: mirror the source, and after each value wait for what `wait(value)` returns
 * before the next one.
 *
 * @module
 */
import { concat, concatMap, ignoreElements, type MonoTypeOperatorFunction, type Observable, of } from "rxjs";

/**
 * Calls `wait(value)` for each value, emits the value, then holds the values behind it until
 * the Observable `wait` returned completes; `undefined` means there is nothing to wait for.
 * An error of that Observable (or a throw of `wait`) errors the result after the value.
 *
 * ```text
 * source:   -ab-c---|
 * wait(a):   ---|
 * wait(b):      -|
 * wait(c):       (undefined)
 * result:   -a--bc--|
 * ```
 *
 * It is `concatMap((v) => concat(of(v), wait(v) ?? EMPTY))` with the call made before the value
 * is emitted: the `Agent` reduces its state in `wait` before any observer sees the event.
 *
 * @example
 * ```ts
 * events.pipe(waitAfterEach((event) => listenersOf(event)));
 * ```
 */
export function waitAfterEach<T>(wait: (value: T) => Observable<unknown> | undefined): MonoTypeOperatorFunction<T> {
  return concatMap((value) => {
    const settled = wait(value);
    return settled ? concat(of(value), settled.pipe(ignoreElements())) : of(value);
  });
}
