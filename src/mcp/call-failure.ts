/**
 * Why an MCP tool call failed, in words the model can act on: the server timed out, went away,
 * was never reachable, refused the call, or answered with something that is not a tool result.
 *
 * @module
 */
import { describeError } from "../model/describe-error.js";

/** JSON-RPC and MCP error codes the SDK uses for its own failures. */
const CONNECTION_CLOSED = -32000;
const REQUEST_TIMEOUT = -32001;
const INVALID_PARAMS = -32602;

/** What the failure text names. */
export interface CallFailureContext {
  server: string;
  tool: string;
  /** The call's timeout, for the timeout text. */
  timeoutMs: number;
  /** The app closed the connection (`close()`): a connection that closed is then not the server's failure. */
  closedByApp?: boolean;
}

const codeOf = (error: unknown): number | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "number" ? code : undefined;
};

/** The SDK checks a result with zod: a failed check is a `ZodError` with `issues`. */
const isSchemaError = (error: unknown): boolean =>
  error instanceof Error && (error.name === "ZodError" || Array.isArray((error as { issues?: unknown }).issues));

function clip(text: string, limit = 600): string {
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

/**
 * The text of the error result for a call that did not return a result.
 *
 * @example
 * ```ts
 * callFailureText(new McpError(-32001, "Request timed out"), { server: "everything", tool: "slow", timeoutMs: 500 });
 * // 'MCP server "everything" did not answer "slow" within 500 ms; the request was cancelled. …'
 * ```
 */
export function callFailureText(error: unknown, { server, tool, timeoutMs, closedByApp = false }: CallFailureContext): string {
  const code = codeOf(error);
  const reason = describeError(error);
  if (code === REQUEST_TIMEOUT) {
    const total = /maximum total timeout/i.test(reason);
    return `MCP server "${server}" did not answer "${tool}" ${total ? "within its maximum total time" : `within ${timeoutMs} ms`}; the request was cancelled. The server may be busy or hung: try again later, or with less work.`;
  }
  if (code === CONNECTION_CLOSED && closedByApp) {
    return `The app closed its connection to MCP server "${server}" while "${tool}" was running; the call may or may not have taken effect. Its tools cannot be used until the app reconnects.`;
  }
  if (code === CONNECTION_CLOSED) {
    return `The connection to MCP server "${server}" closed while "${tool}" was running (the server stopped or crashed); the call may or may not have taken effect. Its tools cannot be used until the app reconnects.`;
  }
  if (error instanceof Error && error.message === "Not connected") {
    return `MCP server "${server}" is not connected (its connection closed earlier), so "${tool}" did not run. Its tools cannot be used until the app reconnects.`;
  }
  // The SDK checks `structuredContent` against the tool's `outputSchema` and reports a mismatch as invalid params.
  if (code === INVALID_PARAMS && /structured content/i.test(reason)) {
    return `MCP server "${server}" answered "${tool}" with a result that does not match the tool's own output schema: ${clip(reason)}`;
  }
  if (isSchemaError(error)) {
    return `MCP server "${server}" answered "${tool}" with something that is not a valid tool result: ${clip(reason)}`;
  }
  if (code !== undefined) return `MCP server "${server}" refused "${tool}": ${clip(reason)}`;
  if (error instanceof TypeError) return `Could not reach MCP server "${server}" to run "${tool}": ${clip(reason)}`;
  return `Calling "${tool}" on MCP server "${server}" failed: ${clip(reason)}`;
}
