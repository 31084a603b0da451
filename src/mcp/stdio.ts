/**
 * `rxagent/mcp/stdio`: MCP servers started as child processes, speaking over stdin and stdout
 * (Node only). Everything else is in `rxagent/mcp`, which this entry re-exports.
 *
 * @module rxagent/mcp/stdio
 */
import { StdioClientTransport, type StdioServerParameters } from "@modelcontextprotocol/sdk/client/stdio.js";
import { connectMcp, type McpConnectOptions, type McpConnection } from "./mcp-connection.js";

export * from "./index.js";
export type { StdioServerParameters };

/** Options of {@link connectMcpStdio}: how to start the server, and the connection's options. */
export interface McpStdioOptions extends StdioServerParameters, McpConnectOptions {}

/**
 * Starts the server (`command` with `args`, in `cwd`, with `env` — by default only a safe subset
 * of this process's environment, as the SDK does) and connects to it over its stdio. The
 * server's stderr is inherited unless `stderr` says otherwise (`"ignore"`, `"pipe"`: then read
 * `connection.transport.stderr`). `connection.transport.pid` is the process id. A server that
 * exits closes the connection (`closed` resolves with `{ by: "server" }`); `close()` ends the
 * process.
 *
 * @example
 * ```ts
 * import { connectMcpStdio } from "rxagent/mcp/stdio";
 * const fs = await connectMcpStdio({ command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp/work"], prefix: "fs_" });
 * agent.state.tools = await fs.listTools();
 * ```
 */
export function connectMcpStdio(options: McpStdioOptions): Promise<McpConnection<StdioClientTransport>> {
  const { command, args, env, stderr, cwd, maxBufferSize, ...connectOptions } = options;
  const server: StdioServerParameters = { command };
  if (args !== undefined) server.args = args;
  if (env !== undefined) server.env = env;
  if (stderr !== undefined) server.stderr = stderr;
  if (cwd !== undefined) server.cwd = cwd;
  if (maxBufferSize !== undefined) server.maxBufferSize = maxBufferSize;
  return connectMcp(new StdioClientTransport(server), connectOptions);
}
