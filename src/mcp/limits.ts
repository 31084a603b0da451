/**
 * How much a server may hand the client: the size, nesting and block count of a tool result
 * (what goes into the transcript and every later request), and the pages and tools of a listing.
 * A server over a limit gets a clear error, never an unbounded transcript, a stack overflow or
 * an endless loop.
 *
 * @module
 */
import { MAX_TOOL_ARGUMENT_DEPTH } from "../model/tool-call-bounds.js";

/** The largest tool result, in bytes of its JSON (text, base64 data, numbers, …), by default: 1 MiB. */
export const DEFAULT_MAX_RESULT_BYTES = 1_048_576;
/**
 * The deepest nesting of objects and arrays in a tool result, by default (the result object is
 * level 1): the bound the loop puts on a model's tool arguments. Deeper values overflow the
 * stack of whatever serialises the transcript (`JSON.stringify`, `structuredClone`).
 */
export const DEFAULT_MAX_RESULT_DEPTH = MAX_TOOL_ARGUMENT_DEPTH;
/** The most content blocks a tool result may have, by default. */
export const DEFAULT_MAX_CONTENT_BLOCKS = 1_000;
/** The most pages one listing of `tools/list` follows, by default. */
export const DEFAULT_MAX_LIST_PAGES = 100;
/** The most tools one listing may hold, by default. */
export const DEFAULT_MAX_TOOLS = 1_000;

/** The limits of one connection (each has a default; see the `DEFAULT_MAX_…` constants). */
export interface McpLimits {
  /**
   * The largest tool result passed on, in bytes of its JSON: the UTF-8 bytes of its strings
   * (text, base64 image and audio data, URIs, `structuredContent`, keys), the length of its
   * numbers, booleans and nulls, and one per value. A larger one becomes an error result that
   * names the limit. Default {@link DEFAULT_MAX_RESULT_BYTES} (1 MiB).
   */
  maxResultBytes?: number | undefined;
  /**
   * The deepest nesting of objects and arrays a tool result may have (the result object is
   * level 1); a deeper one becomes an error result. Default {@link DEFAULT_MAX_RESULT_DEPTH} (64).
   */
  maxResultDepth?: number | undefined;
  /** The most content blocks a result may have; more becomes an error result. Default {@link DEFAULT_MAX_CONTENT_BLOCKS}. */
  maxContentBlocks?: number | undefined;
  /** The most pages of `tools/list` one listing follows; a server still paging after them fails the listing. Default {@link DEFAULT_MAX_LIST_PAGES}. */
  maxListPages?: number | undefined;
  /** The most tools a listing may hold; more fails the listing. Default {@link DEFAULT_MAX_TOOLS}. */
  maxTools?: number | undefined;
}

const LIMIT_NAMES = ["maxResultBytes", "maxResultDepth", "maxContentBlocks", "maxListPages", "maxTools"] as const;

/**
 * Throws a `TypeError` for a limit that is not a positive integer (or `Infinity`, no limit).
 *
 * @example
 * ```ts
 * checkLimits({ maxResultBytes: 0 }); // TypeError: maxResultBytes must be a positive integer (or Infinity), got 0.
 * ```
 */
export function checkLimits(limits: McpLimits): void {
  for (const name of LIMIT_NAMES) {
    const value = limits[name];
    if (value === undefined || value === Infinity || (Number.isInteger(value) && value > 0)) continue;
    throw new TypeError(`${name} must be a positive integer (or Infinity), got ${String(value)}.`);
  }
}

/** UTF-8 bytes of a string, counted without encoding it. */
function utf8Bytes(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) continue;
    // Two units of a surrogate pair make 4 bytes: 2 + 1 + 1 here.
    bytes += unit < 0x800 ? 1 : unit >= 0xd800 && unit <= 0xdfff ? 1 : 2;
  }
  return bytes;
}

/** The length of a value that holds no others, as JSON writes it (near enough: strings without quotes). */
function scalarBytes(value: unknown): number {
  switch (typeof value) {
    case "string":
      return utf8Bytes(value);
    case "number":
    case "bigint":
    case "boolean":
      return String(value).length;
    default:
      return value === null ? 4 : 0;
  }
}

/** An object or array being walked: its keys (objects only) and the next child to visit. */
interface Frame {
  container: Record<string, unknown> | unknown[];
  keys: string[] | undefined;
  next: number;
}

/** What {@link measureResult} found: the bytes counted, and the limit crossed, if any. */
export interface ResultMeasure {
  /** The size counted; when a limit was crossed, how far the walk got (it stops there). */
  bytes: number;
  over?: "maxResultBytes" | "maxResultDepth";
}

/**
 * The size of a JSON value — each string's and key's UTF-8 bytes, each number's, boolean's and
 * null's JSON length, and one per value for the separators — and whether it is larger than
 * `maxBytes` or nests objects and arrays deeper than `maxDepth` (the value itself is level 1).
 * Walked without recursion, holding one frame per level, and it stops at the first limit
 * crossed: neither a deep nor a huge value can overflow the stack or cost more than the limits.
 *
 * @example
 * ```ts
 * measureResult({ a: [0, true, null] });        // { bytes: 15 }: 4 values + "a" + 0 + true + null + 1 per value
 * measureResult({ a: [[[0]]] }, Infinity, 3);    // { bytes: 5, over: "maxResultDepth" }: 4 levels
 * ```
 */
export function measureResult(value: unknown, maxBytes = Infinity, maxDepth = Infinity): ResultMeasure {
  let bytes = 0;
  const stack: Frame[] = [];
  /** Counts a value and, for an object or array, opens its frame; false when that is too deep. */
  const visit = (item: unknown): boolean => {
    bytes += 1;
    if (item === null || typeof item !== "object") {
      bytes += scalarBytes(item);
      return true;
    }
    if (stack.length >= maxDepth) return false;
    const container = item as Frame["container"];
    stack.push({ container, keys: Array.isArray(container) ? undefined : Object.keys(container), next: 0 });
    return true;
  };
  if (!visit(value)) return { bytes, over: "maxResultDepth" };
  while (stack.length > 0) {
    if (bytes > maxBytes) return { bytes, over: "maxResultBytes" };
    const frame = stack[stack.length - 1]!;
    const { container, keys } = frame;
    const index = frame.next++;
    let child: unknown;
    if (keys) {
      if (index >= keys.length) {
        stack.pop();
        continue;
      }
      bytes += utf8Bytes(keys[index]!);
      child = (container as Record<string, unknown>)[keys[index]!];
    } else {
      if (index >= (container as unknown[]).length) {
        stack.pop();
        continue;
      }
      child = (container as unknown[])[index];
    }
    if (!visit(child)) return { bytes, over: "maxResultDepth" };
  }
  return bytes > maxBytes ? { bytes, over: "maxResultBytes" } : { bytes };
}

/**
 * The size of a JSON value as {@link measureResult} counts it, all of it.
 *
 * @example
 * ```ts
 * resultBytes({ content: [{ type: "text", text: "hé" }] }); // 5 values + 15 of keys + 7 of strings = 27
 * ```
 */
export function resultBytes(value: unknown): number {
  return measureResult(value).bytes;
}

/** Which limit a result broke, with the figures. */
export interface McpLimitExceeded {
  limit: "maxResultBytes" | "maxContentBlocks" | "maxResultDepth";
  /**
   * The result's number of blocks; for `maxResultBytes` and `maxResultDepth`, how far the count
   * got before it stopped: just past the limit (the rest is not walked).
   */
  actual: number;
  max: number;
  /** The text of the error result the model reads. */
  text: string;
}

/**
 * Whether a tool result breaks `maxContentBlocks`, `maxResultDepth` or `maxResultBytes` (blocks
 * first: counting them is cheap; then one walk for depth and size, which stops at the first
 * limit crossed), and the error text the model reads; `undefined` when it fits.
 *
 * @example
 * ```ts
 * resultOverLimit({ content: [{ type: "text", text: "x".repeat(2e6) }] }, {}, { server: "s", tool: "t" })?.text;
 * // 'MCP server "s" answered "t" with a result larger than the limit of 1048576 bytes (maxResultBytes); …'
 * ```
 */
export function resultOverLimit(result: object, limits: McpLimits, where: { server: string; tool: string }): McpLimitExceeded | undefined {
  const answered = `MCP server "${where.server}" answered "${where.tool}" with`;
  const notPassed = "it was not passed on. Ask the tool for less (a narrower query, a smaller page or range), or the app may raise";
  const maxBlocks = limits.maxContentBlocks ?? DEFAULT_MAX_CONTENT_BLOCKS;
  const content = (result as { content?: unknown }).content;
  const blocks = Array.isArray(content) ? content.length : 0;
  if (blocks > maxBlocks) {
    return { limit: "maxContentBlocks", actual: blocks, max: maxBlocks, text: `${answered} ${blocks} content blocks, over the limit of ${maxBlocks} (maxContentBlocks); ${notPassed} maxContentBlocks.` };
  }
  const maxBytes = limits.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
  const maxDepth = limits.maxResultDepth ?? DEFAULT_MAX_RESULT_DEPTH;
  if (maxBytes === Infinity && maxDepth === Infinity) return undefined;
  const { bytes, over } = measureResult(result, maxBytes, maxDepth);
  if (over === "maxResultDepth") {
    return { limit: over, actual: maxDepth + 1, max: maxDepth, text: `${answered} a result nested deeper than ${maxDepth} levels (maxResultDepth); it was not passed on. Ask the tool for a flatter answer, or the app may raise maxResultDepth.` };
  }
  if (over === "maxResultBytes") {
    return { limit: over, actual: bytes, max: maxBytes, text: `${answered} a result larger than the limit of ${maxBytes} bytes (maxResultBytes); ${notPassed} maxResultBytes.` };
  }
  return undefined;
}
