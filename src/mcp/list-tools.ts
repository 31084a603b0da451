/**
 * One listing of a server's tools: every page of `tools/list`, bounded by `maxListPages` and
 * `maxTools`, each page's request on a signal of its own.
 *
 * @module
 */
import { Observable } from "rxjs";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { DEFAULT_MAX_LIST_PAGES, DEFAULT_MAX_RESULT_BYTES, DEFAULT_MAX_RESULT_DEPTH, DEFAULT_MAX_TOOLS, type McpLimits, measureResult } from "./limits.js";
import type { McpToolDefinition } from "./mcp-tool.js";

/**
 * What the SDK client keeps of a listing: each tool's output-schema check and whether it needs
 * MCP tasks. `listTools()` replaces it with the tools of the page it got, so after several pages
 * only the last page's tools would have their `structuredContent` checked.
 */
type ToolCache = { cacheToolMetadata?: (tools: McpToolDefinition[]) => void };

type ListPage = Awaited<ReturnType<Client["listTools"]>>;

/**
 * One page, on a signal of its own that follows `signal`: the SDK adds an abort listener to the
 * signal of every request and never removes it, so one signal shared by every page would gather
 * one listener per page. Here `signal` holds one listener at a time, removed when the page is in.
 */
async function listPage(client: Client, cursor: string | undefined, signal: AbortSignal): Promise<ListPage> {
  const page = new AbortController();
  const forward = (): void => page.abort(signal.reason);
  if (signal.aborted) forward();
  else signal.addEventListener("abort", forward, { once: true });
  try {
    return await client.listTools(cursor === undefined ? undefined : { cursor }, { signal: page.signal });
  } finally {
    signal.removeEventListener("abort", forward);
  }
}

/**
 * A tool's definition goes into every request (its description and schemas) and, announced
 * (SPEC M5), into the transcript: one nested without end would overflow every serialisation
 * after it, a huge description would ride along with every turn. The whole definition (schemas,
 * description, title, annotations, `_meta`) is held to the result limits in one walk
 * (`maxResultDepth`, `maxResultBytes`); a tool past them fails the listing, naming it.
 */
function checkTool(tool: McpToolDefinition, limits: McpLimits): void {
  const maxBytes = limits.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
  const maxDepth = limits.maxResultDepth ?? DEFAULT_MAX_RESULT_DEPTH;
  const { over } = measureResult(tool, maxBytes, maxDepth);
  const name = `the server's tool "${String(tool.name).slice(0, 100)}"`;
  const counted = "its inputSchema, description, annotations and _meta count";
  if (over === "maxResultDepth") throw new Error(`${name} is nested deeper than ${maxDepth} levels (${counted}: maxResultDepth).`);
  if (over === "maxResultBytes") throw new Error(`${name} is larger than ${maxBytes} bytes (${counted}: maxResultBytes).`);
}

/**
 * One listing of a server's tools (every page of `tools/list`; a name listed twice counts once).
 * Rejects when the server is still paging after `maxListPages` pages, or has listed more than
 * `maxTools` tools.
 *
 * @example
 * ```ts
 * const tools = await listAll(client, new AbortController().signal, { maxListPages: 10 });
 * ```
 */
export async function listAll(client: Client, signal: AbortSignal, limits: McpLimits = {}): Promise<McpToolDefinition[]> {
  const maxPages = limits.maxListPages ?? DEFAULT_MAX_LIST_PAGES;
  const maxTools = limits.maxTools ?? DEFAULT_MAX_TOOLS;
  const tools = new Map<string, McpToolDefinition>();
  const seen = new Set<string>();
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await listPage(client, cursor, signal);
    pages++;
    for (const tool of page.tools) {
      if (tools.has(tool.name)) continue;
      checkTool(tool, limits);
      tools.set(tool.name, tool);
    }
    if (tools.size > maxTools) throw new Error(`the server listed more than ${maxTools} tools (maxTools).`);
    cursor = page.nextCursor;
    // A server that hands out the same cursor again would page forever.
    if (cursor !== undefined && seen.has(cursor)) break;
    if (cursor !== undefined && pages >= maxPages) throw new Error(`the server listed more than ${maxPages} pages of tools (maxListPages); it may be paging without end.`);
    if (cursor !== undefined) seen.add(cursor);
  } while (cursor !== undefined);
  const all = [...tools.values()];
  // The cache is private to the SDK: it is refilled with every page's tools while the method is
  // there (SDK 1.x); without it, the SDK's own behaviour stands.
  const cache = (client as unknown as ToolCache).cacheToolMetadata;
  if (pages > 1 && typeof cache === "function") cache.call(client, all);
  return all;
}

/**
 * A promise-returning call as a cold Observable that aborts the call when unsubscribed before it
 * settled (never after: the SDK would send a cancellation for a request that is over).
 *
 * @example
 * ```ts
 * const tools$ = abortable((signal) => listAll(client, signal));
 * ```
 */
export function abortable<T>(call: (signal: AbortSignal) => Promise<T>): Observable<T> {
  return new Observable<T>((subscriber) => {
    const controller = new AbortController();
    let settled = false;
    call(controller.signal).then(
      (value) => {
        settled = true;
        subscriber.next(value);
        subscriber.complete();
      },
      (error: unknown) => {
        settled = true;
        subscriber.error(error);
      },
    );
    return () => {
      if (!settled) controller.abort("The tool list is no longer wanted.");
      settled = true;
    };
  });
}
