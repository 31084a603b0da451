/**
 * `untilBegun`: subscribes to what a hosting starts (a resume) and resolves once it has begun,
 * keeping it running.
 *
 * @module
 */
import { type Observable, Subscription } from "rxjs";

/**
 * Subscribes to `source` and resolves with its subscription once it has emitted its first value
 * or completed, calling `onBegin` synchronously at that moment; rejects with an error that came
 * before either. An error after that goes to `onLaterError`. The subscription keeps `source`
 * running until it is unsubscribed.
 *
 * ```text
 * source:   --a--b--|
 * resolves:   ^ (the run goes on, subscribed)
 * ```
 *
 * @example
 * ```ts
 * const resumed = await untilBegun(agent.resume$(), report); // served from here on
 * hosted.keep(resumed);                                      // ended with the hosting
 * ```
 */
export function untilBegun(source: Observable<unknown>, onLaterError: (error: unknown) => void, onBegin?: () => void): Promise<Subscription> {
  return new Promise((resolve, reject) => {
    const kept = new Subscription();
    let begun = false;
    const begin = (): void => {
      if (begun) return;
      begun = true;
      onBegin?.();
      resolve(kept);
    };
    kept.add(
      source.subscribe({
        next: begin,
        complete: begin,
        error: (error: unknown) => (begun ? onLaterError(error) : reject(error)),
      }),
    );
  });
}
