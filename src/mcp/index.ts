/**
 * `rxagent/mcp`: the tools of MCP servers as rxagent tools, built on the official
 * `@modelcontextprotocol/sdk` client (an optional peer dependency: install it to use this entry).
 * Browser-safe: Streamable HTTP here, stdio in `rxagent/mcp/stdio`. How a tool is made of a
 * listing (its name, its schema, its calls) is internal; the limits' defaults are documented in
 * docs/mcp.md, not exported.
 *
 * @module rxagent/mcp
 */
export { connectMcp, type McpClosed, type McpConnectOptions } from "./mcp-connection.js";
// Made by the connects only (its constructor is internal): a type to name a connection by.
export type { McpConnection } from "./mcp-connection.js";
export { connectMcpHttp, type McpHttpOptions } from "./streamable-http.js";
export type { McpLimits } from "./limits.js";
export { mergeTools, type MergeToolsOptions, type ToolCollision } from "./merge-tools.js";
export type { McpAgentTool, McpProgressDetails, McpToolDefinition, McpToolOptions, McpToolSource } from "./mcp-tool.js";
export {
  mcpToolResult,
  type McpAttachment,
  type McpCallResultLike,
  type McpResourceRef,
  type McpResultDetails,
  type McpToolResultOptions,
  type StructuredContentMode,
} from "./tool-result.js";
