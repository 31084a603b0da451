/**
 * Connecting to an MCP server over Streamable HTTP: `fetch` and web streams only, so it works in
 * browsers and in Node alike.
 *
 * @module
 */
import { StreamableHTTPClientTransport, type StreamableHTTPClientTransportOptions } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { cancellingFetch } from "./cancelling-fetch.js";
import { McpConnection, mcpClient, type McpConnectOptions } from "./mcp-connection.js";

/**
 * Options of {@link connectMcpHttp}: the connection's, and the SDK transport's (`requestInit` for
 * headers, `fetch`, `authProvider`, …). A `fetch` of yours is wrapped, not replaced: each
 * request's POST gets its own abort signal, so a cancelled call's response stream is closed.
 */
export interface McpHttpOptions extends McpConnectOptions {
  transport?: StreamableHTTPClientTransportOptions | undefined;
}

/** The page's address, to resolve a relative URL against; none outside a page (Deno without `--location` throws on reading it). */
function pageAddress(): string | undefined {
  try {
    return typeof location === "undefined" ? undefined : location.href;
  } catch {
    return undefined;
  }
}

/** The values of the headers configured for every request (an `Authorization` token, an API key): secrets a server may echo. */
function headerValues(options: StreamableHTTPClientTransportOptions | undefined): string[] {
  const headers = options?.requestInit?.headers;
  if (headers === undefined) return [];
  const values: string[] = [];
  new Headers(headers).forEach((value) => {
    values.push(value);
    // "Bearer <token>": the token alone too, for a server that echoes only the token.
    const token = /^\S+\s+(\S+)$/.exec(value)?.[1];
    if (token !== undefined) values.push(token);
  });
  return values;
}

/**
 * Connects to the MCP server at `url` (its Streamable HTTP endpoint, e.g. `…/mcp`; in a page, a
 * relative URL is the page's origin). A page on
 * another origin needs the server to allow it (CORS, with `mcp-session-id` among the exposed
 * headers). A call that is cancelled or times out has its POST closed at once (SPEC MCP4), so
 * Stop presses do not pile up open connections. `close()` ends the session on the server
 * (`DELETE`, waited for `closeTimeoutMs` at most), then the client.
 *
 * @example
 * ```ts
 * import { connectMcpHttp } from "rxagent/mcp";
 * const server = await connectMcpHttp("http://127.0.0.1:3001/mcp", { prefix: "everything_", timeoutMs: 30_000 });
 * agent.state.tools = await server.listTools();
 * ```
 */
export async function connectMcpHttp(url: string | URL, options: McpHttpOptions = {}): Promise<McpConnection<StreamableHTTPClientTransport>> {
  const { transport: transportOptions, ...connectOptions } = options;
  const client = mcpClient(connectOptions);
  // A relative URL (a page's own origin, through a proxy) resolves against the page.
  const address = typeof url === "string" ? new URL(url, pageAddress()) : url;
  const transport = new StreamableHTTPClientTransport(address, { ...transportOptions, fetch: cancellingFetch(transportOptions?.fetch) });
  return new McpConnection(client, transport, connectOptions, () => transport.terminateSession(), headerValues(transportOptions)).start();
}
