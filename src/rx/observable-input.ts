/**
 * `fromInput`: rxjs's `from(input)` for a value of unknown shape, that says when the value is
 * not an `ObservableInput` instead of throwing. `from` itself also carries its scheduled
 * variants (and their operators) into an app's bundle, though the loop never passes a scheduler.
 *
 * @module
 */
import { defer, Observable, type ObservableInput } from "rxjs";

/** The interop key rxjs reads (`Symbol.observable` where a polyfill defines it). */
export const interopKey: PropertyKey = (Symbol as { observable?: symbol }).observable ?? "@@observable";

/**
 * Whether rxjs's `from` accepts `value`: an Observable or interop observable, an array-like, a
 * promise or thenable, an async iterable, an iterable, or a `ReadableStream`-like. The checks
 * are the ones `from` makes, in the same terms (a method where it looks for one).
 */
function isObservableInput(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  const fields = value as Record<PropertyKey, unknown>;
  return (
    (typeof fields.length === "number" && typeof value !== "function") ||
    typeof fields[interopKey] === "function" ||
    typeof fields.then === "function" ||
    typeof fields[Symbol.asyncIterator] === "function" ||
    typeof fields[Symbol.iterator] === "function" ||
    typeof fields.getReader === "function"
  );
}

/**
 * `from(input)`, or `undefined` when `from` would throw because `input` is not an
 * `ObservableInput`. Cold: the checks read only the fields `from` looks at (`length`, `then`,
 * the iterator methods); no value of `input` is read before subscription.
 *
 * ```text
 * fromInput([a, b]):  (ab|)
 * fromInput(42):      undefined
 * ```
 *
 * @example
 * ```ts
 * const events = fromInput<AssistantMessageEvent>(returned) ?? refuse(returned);
 * ```
 * @see from
 */
export function fromInput<T>(input: unknown): Observable<T> | undefined {
  // An Observable is its own `from`, as in rxjs.
  if (input instanceof Observable) return input as Observable<T>;
  return isObservableInput(input) ? defer(() => input as ObservableInput<T>) : undefined;
}
