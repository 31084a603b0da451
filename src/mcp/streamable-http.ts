/**
 * Connecting to an MCP server over Streamable HTTP: `fetch` and web streams only, so it works in
 * browsers and in Node alike.
 *
 * @module
 */
import { StreamableHTTPClientTransport, type StreamableHTTPClientTransportOptions } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpConnection, mcpClient, type McpConnectOptions } from "./mcp-connection.js";

/** Options of {@link connectMcpHttp}: the connection's, and the SDK transport's (`requestInit` for headers, `fetch`, `authProvider`, …). */
export interface McpHttpOptions extends McpConnectOptions {
  transport?: StreamableHTTPClientTransportOptions;
}

/**
 * Connects to the MCP server at `url` (its Streamable HTTP endpoint, e.g. `…/mcp`; in a page, a
 * relative URL is the page's origin). A page on
 * another origin needs the server to allow it (CORS, with `mcp-session-id` among the exposed
 * headers). `close()` ends the session on the server (`DELETE`), then the client.
 *
 * @example
 * ```ts
 * import { connectMcpHttp } from "rxagent/mcp";
 * const server = await connectMcpHttp("http://127.0.0.1:3001/mcp", { prefix: "everything_", timeoutMs: 30_000 });
 * agent.state.tools = await server.listTools();
 * ```
 */
export function connectMcpHttp(url: string | URL, options: McpHttpOptions = {}): Promise<McpConnection<StreamableHTTPClientTransport>> {
  const { transport: transportOptions, ...connectOptions } = options;
  // A relative URL (a page's own origin, through a proxy) resolves against the page.
  const base = typeof location === "undefined" ? undefined : location.href;
  const transport = new StreamableHTTPClientTransport(typeof url === "string" ? new URL(url, base) : url, transportOptions);
  return new McpConnection(mcpClient(connectOptions), transport, connectOptions, () => transport.terminateSession()).start();
}
