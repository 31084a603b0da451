/**
 * Calling a `StreamFn` from a wrapper (retry, proxy server): whatever it returns — an
 * Observable, an async iterable such as pi-ai's `streamSimple` result, an array, a promise
 * of any of these — becomes one Observable of provider events (SPEC M3).
 *
 * @module
 */
import { defer, from, isObservable, mergeMap, of, type Observable } from "rxjs";
import type { AssistantMessageEvent, LlmContext, Model, StreamFn, StreamOptions } from "../messages.js";

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === "object" || typeof value === "function") && typeof (value as PromiseLike<unknown>).then === "function";
}

function isEvent(value: unknown): value is AssistantMessageEvent {
  return value !== null && typeof value === "object" && typeof (value as { type?: unknown }).type === "string" && !isThenable(value);
}

/**
 * Calls `streamFn` on subscribe and returns its events. A synchronous throw or a rejected
 * promise becomes an Observable error (the caller decides how to report it).
 *
 * @example
 * ```ts
 * callStreamFn(streamSimple, model, context, { signal }).subscribe(console.log);
 * ```
 */
export function callStreamFn(streamFn: StreamFn, model: Model, context: LlmContext, options: StreamOptions): Observable<AssistantMessageEvent> {
  return defer(() => {
    const result: unknown = streamFn(model, context, options);
    if (!isObservable(result) && isThenable(result)) {
      return from(result).pipe(mergeMap((inner) => (isEvent(inner) ? of(inner) : from(inner as Iterable<AssistantMessageEvent>))));
    }
    return from(result as Observable<AssistantMessageEvent>);
  });
}
