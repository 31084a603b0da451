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

function copyPlain(value: unknown, depth: number, seen: Set<object>): unknown {
  if (value === null || typeof value !== "object") {
    // Functions and symbols cannot be cloned: `structuredClone` says so with its own error.
    if (typeof value === "function" || typeof value === "symbol") throw NOT_PLAIN;
    return value;
  }
  // A value met twice (shared, or a cycle) is one object in `structuredClone`'s copy, too deep a
  // value may be cyclic: both are left to it.
  if (depth > MAX_DEPTH || seen.has(value)) throw NOT_PLAIN;
  seen.add(value);
  if (Array.isArray(value)) {
    // Another prototype may hold indices: `in` would read them, `structuredClone` copies own ones only.
    if (Object.getPrototypeOf(value) !== Array.prototype) throw NOT_PLAIN;
    // Stryker disable next-line ArrayDeclaration: the indices are assigned in order below, so an empty array grows to the same one; the length given up front saves its regrowth.
    const copy = new Array<unknown>(value.length);
    let indices = 0;
    for (let i = 0; i < value.length; i++) {
      // `in`, not `Object.hasOwn`: faster. With the prototype checked above, only an index set on
      // `Array.prototype` itself could be inherited, and the key count below catches that unless an extra property evens it.
      if (!(i in value)) throw NOT_PLAIN;
      copy[i] = copyPlain(value[i], depth + 1, seen);
      indices++;
    }
    // Properties beside the indices (`structuredClone` keeps them): not JSON-shaped.
    if (Object.keys(value).length !== indices) throw NOT_PLAIN;
    return copy;
  }
  if (!isPlainObject(value)) throw NOT_PLAIN;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = copyPlain((value as Record<string, unknown>)[key], depth + 1, seen);
    // A "__proto__" key (JSON.parse makes it an own property) must stay one: assigning it would
    // set the copy's prototype to what the model sent.
    // Stryker disable next-line ConditionalExpression: defining every key would give the same own, writable, enumerable property (only "__proto__" has a setter on Object.prototype); assignment is the cheaper path for the rest.
    if (key === "__proto__") Object.defineProperty(copy, key, { value: item, writable: true, enumerable: true, configurable: true });
    else copy[key] = item;
  }
  return copy;
}

/**
 * A deep copy of `value`, equal to what `structuredClone(value)` gives. JSON-shaped values (a
 * tree of plain objects, arrays and primitives: all a provider parses) are copied directly,
 * several times faster than `structuredClone`, which serializes; anything else (a `Date`, a
 * `Map`, an object met twice, a cycle, a function) goes to `structuredClone` as a whole, with its
 * errors. Two differences, for values only a `prepareArguments` hook can make: a `Proxy` of a
 * plain object is copied as one (`structuredClone` refuses it), and a getter read before the
 * copy turned to `structuredClone` is read again by it.
 *
 * @example
 * ```ts
 * const args = copyArguments(toolCall.arguments);
 * args.count = Number(args.count); // the message's arguments are unchanged
 * ```
 */
export function copyArguments<T>(value: T): T {
  try {
    return copyPlain(value, 0, new Set()) as T;
  } catch (error) {
    if (error !== NOT_PLAIN) throw error;
    return structuredClone(value);
  }
}
