/**
 * A wait that ends at an abort: one value of a source, or `undefined` once the signal fires.
 *
 * @module
 */
import { Observable } from "rxjs";

/**
 * The one value of `source`, or `undefined` as soon as the signal fires first (at once when it
 * has fired already and `source` has no value on subscribe); then complete. A value `source`
 * gives while it is subscribed wins over an abort that came meanwhile. Unsubscribing
 * leaves no listener on the signal; an error of `source` is the wait's error.
 *
 * ```text
 * source:      ----a|
 * result:      ----(a|)
 * abort at 2:  --(u|)     (u: undefined; source unsubscribed)
 * ```
 *
 * @example
 * ```ts
 * untilAborted(answer$, signal).subscribe((answer) => {
 *   if (signal.aborted) return; // the run ended the wait
 *   decide(answer);
 * });
 * ```
 *
 * @internal
 */
export function untilAborted<T>(source: Observable<T>, signal: AbortSignal): Observable<T | undefined> {
  return new Observable<T | undefined>((subscriber) => {
    const settle = (value: T | undefined): void => {
      // Once only: rxjs hands a notification to a closed subscriber to `config.onStoppedNotification`.
      if (subscriber.closed) return;
      // Before the value goes on: an abort from whoever handles it (a listener of
      // `tool_approval_end`, say) is the run's, not a second value.
      signal.removeEventListener("abort", onAbort);
      subscriber.next(value);
      subscriber.complete();
    };
    const onAbort = (): void => settle(undefined);
    // Subscribed first, even when the signal has fired: a promise's rejection is handled, and a
    // source that answers while it is subscribed (an approver that aborts, then answers) is heard.
    const inner = source.subscribe({ next: settle, error: (error: unknown) => subscriber.error(error) });
    // A source that answered while it was subscribed closed the wait already: the teardown below
    // then runs at once (rxjs runs what a closed subscriber is given), taking the listener off again.
    signal.addEventListener("abort", onAbort);
    // An abort before the listener was added: nothing else would end the wait.
    if (signal.aborted) settle(undefined);
    return () => {
      signal.removeEventListener("abort", onAbort);
      inner.unsubscribe();
    };
  });
}
