/**
 * `rxagent/mcp`: the tools of MCP servers as rxagent tools, built on the official
 * `@modelcontextprotocol/sdk` client (an optional peer dependency: install it to use this entry).
 * Browser-safe: Streamable HTTP here, stdio in `rxagent/mcp/stdio`.
 *
 * @module rxagent/mcp
 */
export { connectMcp, DEFAULT_CLOSE_TIMEOUT_MS, McpConnection, type McpClosed, type McpConnectOptions } from "./mcp-connection.js";
export { connectMcpHttp, type McpHttpOptions } from "./streamable-http.js";
export { DEFAULT_MAX_CONTENT_BLOCKS, DEFAULT_MAX_LIST_PAGES, DEFAULT_MAX_RESULT_BYTES, DEFAULT_MAX_RESULT_DEPTH, DEFAULT_MAX_TOOLS, type McpLimits } from "./limits.js";
export { mergeTools, type MergeToolsOptions, type ToolCollision } from "./merge-tools.js";
export {
  CANCEL_REASON,
  DEFAULT_MCP_TIMEOUT_MS,
  mcpAgentTool,
  SERVER_VALIDATED,
  type McpAgentTool,
  type McpProgressDetails,
  type McpToolCaller,
  type McpToolDefinition,
  type McpToolOptions,
  type McpToolSource,
} from "./mcp-tool.js";
export {
  mcpToolResult,
  NO_ERROR_TEXT,
  type McpAttachment,
  type McpCallResultLike,
  type McpResourceRef,
  type McpResultDetails,
  type McpToolResultOptions,
  type StructuredContentMode,
} from "./tool-result.js";
export { mcpToolParameters } from "./tool-schema.js";
export { MAX_TOOL_NAME_LENGTH, mcpToolName, uniqueToolNames } from "./tool-name.js";
