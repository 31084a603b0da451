/**
 * Why an MCP tool call failed, in words the model can act on: the server timed out, went away,
 * was never reachable, refused the call, or answered with something that is not a tool result.
 *
 * @module
 */
import { describeError } from "../model/describe-error.js";
import { redactSecrets } from "../model/redact-secrets.js";
import { truncate } from "../providers/shared/stream-failure.js";

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
  /** Credentials the connection holds (its configured header values): taken out of the text. */
  secrets?: readonly string[];
}

const codeOf = (error: unknown): number | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "number" ? code : undefined;
};

/** The SDK checks a result with zod: a failed check is a `ZodError` with `issues`. */
const isSchemaError = (error: unknown): boolean =>
  error instanceof Error && (error.name === "ZodError" || Array.isArray((error as { issues?: unknown }).issues));


/**
 * The text of the error result for a call that did not return a result.
 *
 * @example
 * ```ts
 * callFailureText(new McpError(-32001, "Request timed out"), { server: "everything", tool: "slow", timeoutMs: 500 });
 * // 'MCP server "everything" did not answer "slow" within 500 ms; the request was cancelled. …'
 * ```
 */
export function callFailureText(error: unknown, context: CallFailureContext): string {
  // The SDK quotes a response body into its errors ("Error POSTing to endpoint: …"), and a server
  // may echo the credentials it was sent: redact the whole text first, then cut it between words,
  // so no prefix of a key survives the cut.
  return truncate(redactSecrets(failureText(error, context), context.secrets ?? []), 800);
}

function failureText(error: unknown, { server, tool, timeoutMs, closedByApp = false }: CallFailureContext): string {
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
    return `MCP server "${server}" answered "${tool}" with a result that does not match the tool's own output schema: ${reason}`;
  }
  if (isSchemaError(error)) {
    return `MCP server "${server}" answered "${tool}" with something that is not a valid tool result: ${reason}`;
  }
  if (code !== undefined) return `MCP server "${server}" refused "${tool}": ${reason}`;
  if (error instanceof TypeError) return `Could not reach MCP server "${server}" to run "${tool}": ${reason}`;
  return `Calling "${tool}" on MCP server "${server}" failed: ${reason}`;
}
