/**
 * How much a server may hand the client: the size and block count of a tool result (what goes
 * into the transcript and every later request), and the pages and tools of a listing. A server
 * over a limit gets a clear error, never an unbounded transcript or an endless loop.
 *
 * @module
 */

/** The most a tool result may hold, in UTF-8 bytes of its strings (text, base64 data, …), by default: 1 MiB. */
export const DEFAULT_MAX_RESULT_BYTES = 1_048_576;
/** The most content blocks a tool result may have, by default. */
export const DEFAULT_MAX_CONTENT_BLOCKS = 1_000;
/** The most pages one listing of `tools/list` follows, by default. */
export const DEFAULT_MAX_LIST_PAGES = 100;
/** The most tools one listing may hold, by default. */
export const DEFAULT_MAX_TOOLS = 1_000;

/** The limits of one connection (each has a default; see the `DEFAULT_MAX_…` constants). */
export interface McpLimits {
  /**
   * The largest tool result passed on, in UTF-8 bytes of all its strings (text, base64 image and
   * audio data, URIs, `structuredContent`, keys). A larger one becomes an error result that
   * names its size and the limit. Default {@link DEFAULT_MAX_RESULT_BYTES} (1 MiB).
   */
  maxResultBytes?: number;
  /** The most content blocks a result may have; more becomes an error result. Default {@link DEFAULT_MAX_CONTENT_BLOCKS}. */
  maxContentBlocks?: number;
  /** The most pages of `tools/list` one listing follows; a server still paging after them fails the listing. Default {@link DEFAULT_MAX_LIST_PAGES}. */
  maxListPages?: number;
  /** The most tools a listing may hold; more fails the listing. Default {@link DEFAULT_MAX_TOOLS}. */
  maxTools?: number;
}

const LIMIT_NAMES = ["maxResultBytes", "maxContentBlocks", "maxListPages", "maxTools"] as const;

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

/**
 * The UTF-8 bytes of every string in a JSON value (keys included), walked without recursion so a
 * deeply nested result cannot overflow the stack.
 *
 * @example
 * ```ts
 * resultBytes({ content: [{ type: "text", text: "hé" }] }); // 7 + 4 + 4 + 4 + 3 = 22
 * ```
 */
export function resultBytes(value: unknown): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === "string") total += utf8Bytes(item);
    else if (Array.isArray(item)) for (const element of item) stack.push(element);
    else if (item !== null && typeof item === "object") {
      for (const [key, child] of Object.entries(item)) {
        total += utf8Bytes(key);
        stack.push(child);
      }
    }
  }
  return total;
}

/** Which limit a result broke, with the figures. */
export interface McpLimitExceeded {
  limit: "maxResultBytes" | "maxContentBlocks";
  /** The result's size in bytes, or its number of blocks. */
  actual: number;
  max: number;
  /** The text of the error result the model reads. */
  text: string;
}

/**
 * Whether a tool result breaks `maxContentBlocks` or `maxResultBytes` (checked in that order:
 * counting blocks is cheap), and the error text the model reads; `undefined` when it fits.
 *
 * @example
 * ```ts
 * resultOverLimit({ content: [{ type: "text", text: "x".repeat(2e6) }] }, {}, { server: "s", tool: "t" })?.text;
 * // 'MCP server "s" answered "t" with a result of 2000018 bytes, over the limit of 1048576 bytes (maxResultBytes); …'
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
  if (maxBytes === Infinity) return undefined;
  const bytes = resultBytes(result);
  if (bytes <= maxBytes) return undefined;
  return { limit: "maxResultBytes", actual: bytes, max: maxBytes, text: `${answered} a result of ${bytes} bytes, over the limit of ${maxBytes} bytes (maxResultBytes); ${notPassed} maxResultBytes.` };
}
