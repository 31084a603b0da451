/**
 * A cold Observable around one asynchronous request: the request starts on subscribe, gets an
 * `AbortSignal` that fires on unsubscribe or when the caller's signal fires, and emits through
 * `emit`, which drops values once the subscriber is gone.
 *
 * @internal
 * @module
 */
import { Observable } from "rxjs";
import { describeError } from "../../model/describe-error.js";

/** The body of a request: emits values, settles when done. It should not reject. */
export type AbortableRun<T> = (emit: (value: T) => void, signal: AbortSignal) => Promise<void>;

/**
 * Runs `run` once per subscription. Unsubscribing aborts its signal (cancelling a `fetch`);
 * `outer` aborting does too, and `run` decides what to emit for it.
 */
export function fromAbortableRun<T>(run: AbortableRun<T>, outer?: AbortSignal): Observable<T> {
  return new Observable<T>((subscriber) => {
    const controller = new AbortController();
    const onAbort = () => controller.abort(outer?.reason);
    if (outer?.aborted) onAbort();
    else outer?.addEventListener("abort", onAbort, { once: true });
    const emit = (value: T) => {
      if (!subscriber.closed) subscriber.next(value);
    };
    run(emit, controller.signal).then(
      () => subscriber.complete(),
      (error: unknown) => subscriber.error(error instanceof Error ? error : new Error(describeError(error))),
    );
    return () => {
      outer?.removeEventListener("abort", onAbort);
      controller.abort();
    };
  });
}
