/**
 * Turning anything thrown into text a person or a model can read.
 *
 * @module
 */

/**
 * A readable message for anything thrown: `Error.message`, a string, or a JSON rendering.
 *
 * @example
 * ```ts
 * describeError(new Error("boom")); // "boom"
 * describeError({ code: 42 });      // '{"code":42}'
 * ```
 */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === "string") return error;
  if (error === undefined) return "undefined was thrown";
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
