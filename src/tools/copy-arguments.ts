/**
 * The copy of a tool call's arguments that validation may change (coercion, defaults, dropped
 * `null`s) while the assistant message keeps what the model sent (SPEC T2).
 *
 * @module
 */

/** Deeper than any argument a model sends: past it, the value may be cyclic and is left to `structuredClone`. */
const MAX_DEPTH = 64;

/** Thrown inside the copy to hand the whole value to `structuredClone`. */
const NOT_PLAIN: unique symbol = Symbol("not plain");

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

function copyPlain(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== "object") {
    // Functions and symbols cannot be cloned: `structuredClone` says so with its own error.
    if (typeof value === "function" || typeof value === "symbol") throw NOT_PLAIN;
    return value;
  }
  if (depth > MAX_DEPTH) throw NOT_PLAIN;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) throw NOT_PLAIN;
    const copy = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) throw NOT_PLAIN;
      copy[i] = copyPlain(value[i], depth + 1);
    }
    return copy;
  }
  if (!isPlainObject(value)) throw NOT_PLAIN;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) copy[key] = copyPlain((value as Record<string, unknown>)[key], depth + 1);
  return copy;
}

/**
 * A deep copy of `value`, equal to what `structuredClone(value)` gives. JSON-shaped values (plain
 * objects, arrays, primitives: all a provider parses) are copied directly, several times faster
 * than `structuredClone`, which serializes; anything else (a `Date`, a `Map`, a cycle, a
 * function) goes to `structuredClone` as a whole, with its errors.
 *
 * @example
 * ```ts
 * const args = copyArguments(toolCall.arguments);
 * args.count = Number(args.count); // the message's arguments are unchanged
 * ```
 */
export function copyArguments<T>(value: T): T {
  try {
    return copyPlain(value, 0) as T;
  } catch (error) {
    if (error !== NOT_PLAIN) throw error;
    return structuredClone(value);
  }
}
