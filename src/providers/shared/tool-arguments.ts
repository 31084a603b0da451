/**
 * Tool-call arguments from streamed JSON text.
 *
 * While a tool call streams, its arguments arrive as fragments of one JSON document. The UI
 * wants the arguments parsed so far (a file path before the file content finishes), so each
 * fragment re-parses the text with `partial-json`, a small, widely used parser for incomplete
 * JSON (`{"path": "a.t` → `{ path: "a.t" }`). When the call ends, the text is parsed strictly.
 *
 * @module
 */
import { Allow, parse as parsePartial } from "partial-json";
import { toolArgumentsOutOfBounds } from "../../model/tool-call-bounds.js";
import { truncate } from "./stream-failure.js";

/** Incomplete strings, arrays and objects are shown; half a number, `tr` or `nu` are not. */
const PARTIAL_ALLOWED = Allow.STR | Allow.ARR | Allow.OBJ;

function asArguments(value: unknown): Record<string, any> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, any>) : undefined;
}

/**
 * The arguments an incomplete JSON text already determines. `{}` while nothing usable has
 * arrived, and `undefined` when the text can never become a JSON object (so the caller keeps
 * what it showed before).
 *
 * @example
 * ```ts
 * parsePartialArguments('{"path": "src/ma'); // { path: "src/ma" }
 * ```
 */
export function parsePartialArguments(text: string): Record<string, any> | undefined {
  if (text.trim() === "") return {};
  try {
    return asArguments(parsePartial(text, PARTIAL_ALLOWED)) ?? {};
  } catch {
    return undefined;
  }
}

/** The outcome of parsing a finished tool call's arguments. */
export interface ParsedArguments {
  arguments: Record<string, any>;
  /** Why the text was not a JSON object; the arguments are then the best partial reading. */
  error?: string;
}

/**
 * Parses the complete arguments text of a tool call. Empty text is `{}` (models send that for
 * tools without parameters). Invalid JSON keeps the best partial reading and says why, so the
 * tool pipeline can report it to the model instead of crashing.
 */
export function parseFinalArguments(text: string): ParsedArguments {
  if (text.trim() === "") return { arguments: {} };
  let parsed: ParsedArguments;
  try {
    const value: unknown = JSON.parse(text);
    const args = asArguments(value);
    parsed = args ? { arguments: args } : { arguments: {}, error: `Tool call arguments are not a JSON object: ${truncate(text, 200)}` };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    parsed = { arguments: parsePartialArguments(text) ?? {}, error: `Tool call arguments are not valid JSON (${reason}): ${truncate(text, 200)}` };
  }
  // `JSON.parse` builds any depth; what comes after it (a proxy's encoder, listeners that clone)
  // may not. Bounded here as the loop bounds every answer, so `toolcall_end` carries it too.
  const outOfBounds = toolArgumentsOutOfBounds(parsed.arguments);
  return outOfBounds === undefined ? parsed : { arguments: {}, error: outOfBounds };
}
